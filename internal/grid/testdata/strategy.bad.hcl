# Strategy settings and the pipeline hook (learn.CheckSettings stand-in): positions and conflicts.
# error: testdata/strategy.bad.hcl:19:14: pipelines: knn/mean: learner knn is not implemented yet
# error: testdata/strategy.bad.hcl:24:3: strategy.gaussian: tree/gaussian: shrink = 2 outside [0, 1]
# error: testdata/strategy.bad.hcl:24:3: strategy.gaussian: tree/gaussian+mask: shrink = 2 outside [0, 1]
# error: testdata/strategy.bad.hcl:24:3: strategy.gaussian: "shrink" is set both here and in learner "linear" (line 21); set it in one place
# error: testdata/strategy.bad.hcl:27:3: strategy.oor: settings for strategy "oor", but no pipeline of this sweep uses it
# error: testdata/strategy.bad.hcl:30:12: strategy.gausian: strategy "gausian" is unknown (did you mean "gaussian"?)
sweep "s" {
  seed        = 1
  repetitions = 1
  data {
    model = "quadratic"
  }
  pipelines {
    learners   = ["tree", "linear"]
    strategies = ["gaussian", "gaussian+mask", "mean"]
  }
  pipelines {
    names = ["knn/mean"]
  }
  learner "linear" {
    shrink = 0.5
  }
  strategy "gaussian" {
    shrink = 2
  }
  strategy "oor" {
    value = 1
  }
  strategy "gausian" {
    em_tol = 1
  }
}
