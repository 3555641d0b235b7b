# Strategy settings validated by learn at each key: a strategy key in a learner block, conflicts, a range error (reported once for gaussian and gaussian+mask), unused and unknown blocks.
# error: testdata/strategy.bad.hcl:22:5: learner.linear.shrink: linear/mean: unknown key "shrink" (allowed: lambda, ols (preset, 0/1))
# error: testdata/strategy.bad.hcl:24:3: strategy.gaussian: "shrink" is set both here and in learner "linear" (line 21); set it in one place
# error: testdata/strategy.bad.hcl:25:5: strategy.gaussian.shrink: tree/gaussian: shrink = 2, want a number in [0, 1] (covariance shrinkage s: (1−s)Σ + s·tr(Σ)·I (paper: 0.01))
# error: testdata/strategy.bad.hcl:27:3: strategy.oor: settings for strategy "oor", but no pipeline of this sweep uses it
# error: testdata/strategy.bad.hcl:30:12: strategy.gausian: strategy "gausian" is unknown (did you mean "gaussian"?)
#
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
