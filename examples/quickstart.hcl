# Quickstart: the paper's Experiment 1 (Figure 3) at small scale.
#
# Model 1 (quadratic, d = 9, ρ = 0.5, σ = 0.1, n_train = n_test = 1000),
# 20% of values missing on X1..X3 under each of the three mechanisms, 30
# repetitions: 90 jobs, each fitting one pipeline of every learner family
# the paper compares, with its main strategies, plus the Bayes oracle.
# About two minutes on 2 cores (`coordinator plan examples/quickstart.hcl`
# prints the estimate).
#
# The seed is the one of the paper's grids, so these 90 jobs draw exactly
# the data of the first 30 repetitions of figure3.hcl, and their results,
# keyed by content, are reused by a later full run.
sweep "quickstart" {
  seed        = 1
  repetitions = 30

  data {
    model = "quadratic" # every other data parameter: the model's defaults
  }

  missingness {
    mechanism = ["mcar", "mnar", "predictive"]
    rate      = 0.2
    columns   = [1, 2, 3] # X1, X2, X3 (1-based, as in the paper)
  }

  pipelines { # rpart-style trees: MIA, surrogates, imputation ± mask
    learners   = ["tree"]
    strategies = ["mia", "surrogate", "mean", "mean+mask", "gaussian", "gaussian+mask"]
  }

  pipelines { # conditional trees as the paper ran them
    names = ["ctree/majority"]
  }

  pipelines { # ranger forests and XGBoost
    learners   = ["forest", "boost"]
    strategies = ["mia", "mean", "mean+mask"]
  }

  pipelines { # learners that need complete data
    learners   = ["svm", "knn"]
    strategies = ["mean", "mean+mask", "gaussian"]
  }

  pipelines {
    names = ["linear/mean"]
  }

  # The oracle E[Y | observed entries, mask]: under censoring MNAR a
  # missing entry is known to exceed the population (1 − p) quantile, so
  # the oracle integrates over the truncated conditional Gaussian.
  bayes = true
}
