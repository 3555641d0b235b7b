# Figure 3 of the paper (Experiment 1, Section 5.3): R² on Model 1 for the
# three missing-data mechanisms, with 20% of missing values on X1, X2, X3,
# n = 1000, d = 9, ρ = 0.5; 1000 repetitions.
#
# Methods (Section 5.2): decision trees with MIA, rpart surrogate splits
# (± mask), conditional trees (± mask), mean / out-of-range / Gaussian
# imputation (± mask); random forests and gradient boosting with MIA and
# the three imputations (± mask); SVM and KNN with the three imputations
# (± mask). Learners use their paper defaults (learn's defaults).
sweep "figure3" {
  seed        = 1
  repetitions = 1000

  data {
    model   = "quadratic"
    d       = 9
    rho     = 0.5
    noise   = 0.1
    n_train = 1000
    n_test  = 1000
  }

  missingness {
    mechanism = ["mcar", "mnar", "predictive"]
    rate      = 0.2
    columns   = [1, 2, 3]
  }

  pipelines { # rpart-style CART: MIA, surrogate splits, imputation ± mask
    learners   = ["tree"]
    strategies = ["mia", "surrogate", "surrogate+mask", "mean", "mean+mask",
    "oor", "oor+mask", "gaussian", "gaussian+mask"]
  }

  pipelines { # conditional inference trees (party::ctree as the paper ran it: NA to the majority child)
    learners   = ["ctree"]
    strategies = ["majority", "majority+mask"]
  }

  pipelines { # ranger forests and XGBoost
    learners   = ["forest", "boost"]
    strategies = ["mia", "mean", "mean+mask", "oor", "oor+mask", "gaussian", "gaussian+mask"]
  }

  pipelines { # learners that need complete data
    learners   = ["svm", "knn"]
    strategies = ["mean", "mean+mask", "oor", "oor+mask", "gaussian", "gaussian+mask"]
  }
}
