# Built-in pipelines only, submitted beside byom.hcl in the compose
# methods test: any worker may run its jobs, so the plain worker does.
# Its learner families (forest, linear) are not byom's, so the plain
# worker's metrics tell which sweep's jobs it ran.
sweep "builtin" {
  seed        = 18
  repetitions = 8

  data {
    model   = "quadratic"
    n_train = 300
    n_test  = 300
  }

  missingness {
    mechanism = "mcar"
    rate      = 0.2
    columns   = [1, 2, 3]
  }

  pipelines {
    names = ["forest/mia", "linear/mean"]
  }
}
