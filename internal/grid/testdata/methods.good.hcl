# External methods: a sweep lists them, pipelines compose them like built-ins, settings blocks name them.
sweep "byom" {
  seed        = 3
  repetitions = 2
  methods     = ["hgb", "sk_iterative"]
  data {
    model = "quadratic"
  }
  missingness {
    mechanism = "mcar"
    rate      = 0.2
  }
  pipelines {
    names = ["hgb/native", "hgb/mean+mask", "tree/sk_iterative", "svm/sk_iterative+mask", "hgb/sk_iterative"]
  }
  pipelines {
    learners   = ["forest"]
    strategies = ["mean", "sk_iterative"]
  }
  learner "hgb" {
    max_iter = 50
  }
  strategy "sk_iterative" { # reaches the imputer alone, as sk_iterative.n_nearest_features
    n_nearest_features = 3
  }
  learner "tree" {
    cp = 0.01
  }
}
