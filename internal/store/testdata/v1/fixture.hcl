# The grid of the v1 store fixture (see make.sh): simulated data with
# settings overrides, the Bayes oracle and an external method that always
# fails, and a table sweep under K-fold cross-validation with amputation.
sweep "simulated" {
  seed        = 11
  repetitions = 2
  methods     = ["crash"]
  data {
    model   = "quadratic"
    n_train = 300
    n_test  = 50
  }
  missingness {
    mechanism = ["mcar", "mnar"]
    rate      = 0.2
    columns   = [1, 2, 3]
  }
  pipelines {
    names = ["tree/mia", "tree/mean+mask", "linear/gaussian", "crash/native"]
  }
  learner "tree" {
    cp = 0.005
  }
  bayes = true
}

sweep "table" {
  seed        = 12
  repetitions = 2
  table {
    file        = "small.csv"
    target      = "Ozone"
    drop        = ["Day"]
    categorical = ["Month"]
  }
  split {
    folds = 2
  }
  missingness {
    mechanism = ["none", "mcar"]
    rate      = [0.2]
    columns   = "all"
  }
  pipelines {
    names = ["tree/mia", "linear/mean+mask"]
  }
}
