# Nesting order (outermost first): model, d, rho, noise, n_train, n_test,
# mechanism, rate. The nonlinear model ignores rho (forced to 0, one
# value); mechanism "none" takes rate 0 and no columns, once.
sweep "cross" {
  repetitions = 2
  seed        = 11
  data {
    n_train = [100, 300]
    model   = ["quadratic", "nonlinear"]
    rho     = [0.2, 0.8]
  }
  missingness {
    mechanism = ["none", "mnar"]
    rate      = [0.1, 0.3]
    columns   = "all"
  }
  pipelines {
    learners   = ["linear"]
    strategies = ["mean"]
  }
}
