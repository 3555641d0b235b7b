# External methods: a sweep lists them, pipelines compose them like built-ins, settings blocks name them.
sweep "byom" {
  seed        = 3
  repetitions = 2
  methods     = ["hgb", "iterative"]
  data {
    model = "quadratic"
  }
  missingness {
    mechanism = "mcar"
    rate      = 0.2
  }
  pipelines {
    names = ["hgb/native", "hgb/mean+mask", "tree/iterative", "svm/iterative+mask", "hgb/iterative"]
  }
  pipelines {
    learners   = ["forest"]
    strategies = ["mean", "iterative"]
  }
  learner "hgb" {
    max_iter = 50
  }
  strategy "iterative" { # reaches the imputer alone, as iterative.n_nearest_features
    n_nearest_features = 3
  }
  learner "tree" {
    cp = 0.01
  }
}
