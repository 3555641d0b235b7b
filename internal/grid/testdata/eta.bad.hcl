# eta belongs to model prop2 alone, and must lie in [0, 1].
# error: testdata/eta.bad.hcl:8:14: data.eta: eta is only used by model "prop2"; model "prop1" has no eta (split the sweep)
# error: testdata/eta.bad.hcl:9:19: data.eta: eta = 1.5 outside [0, 1]
sweep "s" {
  seed        = 1
  repetitions = 1
  data {
    model = ["prop1", "prop2"]
    eta   = [0.5, 1.5]
  }
  pipelines {
    names = ["tree/mia"]
  }
}
