# The compose methods test's main grid (deploy/compose/methods_test.go):
# built-in pipelines beside the shipped scikit-learn methods, a learner
# (hgb, NA native) and an imputer feeding a built-in tree. Every job
# needs both methods, so only the Python worker may run it; its scores
# must be bit-identical to a local `coordinator run --methods` on the host.
sweep "byom" {
  seed        = 17
  repetitions = 3
  methods     = ["hgb", "sk_iterative"]

  data {
    model   = "quadratic"
    n_train = 300
    n_test  = 300
  }

  missingness {
    mechanism = ["mcar", "mnar"]
    rate      = 0.2
    columns   = [1, 2, 3]
  }

  pipelines {
    names = ["tree/mia", "tree/mean+mask", "hgb/native", "tree/sk_iterative"]
  }

  learner "hgb" {
    max_iter = 50
  }
}
