# Appendix "Additional experiments": Figure 3's setting (Model 1, d = 9,
# n = 1000, X1..X3 incomplete, three mechanisms, 1000 repetitions) with
#   - the correlation ρ ∈ {0.2, 0.5, 0.8} at 20% missing values, and
#   - the missing rate ∈ {0.2, 0.4, 0.6} at ρ = 0.5.
# The paired t-test tables of the appendix are computed from the same runs.
#
# Both sweeps share figure3.hcl's seed and pipelines, so their common
# scenario (ρ = 0.5, 20%) is the same job in all three sweeps and its
# results are computed once.
sweep "appendix-rho" {
  seed        = 1
  repetitions = 1000

  data {
    model = "quadratic"
    d     = 9
    rho   = [0.2, 0.5, 0.8]
  }

  missingness {
    mechanism = ["mcar", "mnar", "predictive"]
    rate      = 0.2
    columns   = [1, 2, 3]
  }

  pipelines {
    learners   = ["tree"]
    strategies = ["mia", "surrogate", "surrogate+mask", "mean", "mean+mask",
    "oor", "oor+mask", "gaussian", "gaussian+mask"]
  }

  pipelines {
    learners   = ["ctree"]
    strategies = ["majority", "majority+mask"]
  }

  pipelines {
    learners   = ["forest", "boost"]
    strategies = ["mia", "mean", "mean+mask", "oor", "oor+mask", "gaussian", "gaussian+mask"]
  }

  pipelines {
    learners   = ["svm", "knn"]
    strategies = ["mean", "mean+mask", "oor", "oor+mask", "gaussian", "gaussian+mask"]
  }
}

sweep "appendix-rate" {
  seed        = 1
  repetitions = 1000

  data {
    model = "quadratic"
    d     = 9
    rho   = 0.5
  }

  missingness {
    mechanism = ["mcar", "mnar", "predictive"]
    rate      = [0.2, 0.4, 0.6]
    columns   = [1, 2, 3]
  }

  pipelines {
    learners   = ["tree"]
    strategies = ["mia", "surrogate", "surrogate+mask", "mean", "mean+mask",
    "oor", "oor+mask", "gaussian", "gaussian+mask"]
  }

  pipelines {
    learners   = ["ctree"]
    strategies = ["majority", "majority+mask"]
  }

  pipelines {
    learners   = ["forest", "boost"]
    strategies = ["mia", "mean", "mean+mask", "oor", "oor+mask", "gaussian", "gaussian+mask"]
  }

  pipelines {
    learners   = ["svm", "knn"]
    strategies = ["mean", "mean+mask", "oor", "oor+mask", "gaussian", "gaussian+mask"]
  }
}
