# rho is checked against each d (Σ must be positive definite); one bad value does not hide another.
# error: testdata/rho.bad.hcl:12:14: data.rho: rho = -0.3 makes Σ singular or indefinite for d = 9 (need -0.125 < rho < 1)
# error: testdata/rho.bad.hcl:12:25: data.rho: rho = 1 makes Σ singular or indefinite for d = 3 (need -0.5 < rho < 1)
# error: testdata/rho.bad.hcl:12:25: data.rho: rho = 1 makes Σ singular or indefinite for d = 9 (need -0.125 < rho < 1)
# error: testdata/rho.bad.hcl:13:13: data.noise: noise = -1 must be a finite standard deviation ≥ 0
sweep "s" {
  seed        = 1
  repetitions = 10
  data {
    model = "quadratic"
    d     = [3, 9]
    rho   = [-0.3, 0.5, 1]
    noise = -1
  }
  pipelines {
    names = ["tree/mia"]
  }
}
