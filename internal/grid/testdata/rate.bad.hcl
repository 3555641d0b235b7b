# Every bad rate is reported once, at its element, however many scenarios use it.
# error: testdata/rate.bad.hcl:12:23: missingness.rate: rate = 1.2 outside [0, 1)
# error: testdata/rate.bad.hcl:12:28: missingness.rate: rate = -0.1 outside [0, 1)
sweep "s" {
  seed        = 1
  repetitions = 10
  data {
    model = "quadratic"
  }
  missingness {
    mechanism = ["mcar", "mnar"]
    rate      = [0.2, 1.2, -0.1]
  }
  pipelines {
    learners   = ["tree"]
    strategies = ["mia"]
  }
}
