# Figure 5 of the paper (Experiment 3, Section 5.4): learning curves, i.e.
# Bayes consistency, with 40% of values missing completely at random on
# every variable of Models 2 (linear), 3 (Friedman) and 4 with Friedman's
# high-SNR coefficients (nonlinear-high); d = 10, ρ = 0.5. Sample sizes
# span 300 to 10⁴ on a log grid; each point summarises 200 repetitions.
#
# Methods as displayed: trees with mean and Gaussian imputation, MIA and
# surrogate splits; forests and boosting with mean, Gaussian and MIA; SVM
# and KNN with mean and Gaussian imputation; the mask is left out ("changes
# almost nothing here"). The Bayes oracle gives the limit.
sweep "figure5" {
  seed        = 1
  repetitions = 200

  data {
    model   = ["linear", "friedman", "nonlinear-high"]
    d       = 10
    n_train = [300, 1000, 3000, 10000]
    n_test  = 1000
  }

  missingness {
    mechanism = "mcar"
    rate      = 0.4
    columns   = "all"
  }

  pipelines {
    learners   = ["tree"]
    strategies = ["mean", "gaussian", "mia", "surrogate"]
  }

  pipelines {
    learners   = ["forest", "boost"]
    strategies = ["mean", "gaussian", "mia"]
  }

  pipelines {
    learners   = ["svm", "knn"]
    strategies = ["mean", "gaussian"]
  }

  bayes = true
}
