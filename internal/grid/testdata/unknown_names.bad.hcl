# Unknown models, mechanisms, learners and strategies get a suggestion or the allowed list.
# error: testdata/unknown_names.bad.hcl:11:14: data.model: model "quadratik" is unknown (did you mean "quadratic"?)
# error: testdata/unknown_names.bad.hcl:11:39: data.model: model "banana" is unknown (allowed: quadratic, linear, friedman, nonlinear, nonlinear-high, example1, example2, example3, prop1, prop2, stump)
# error: testdata/unknown_names.bad.hcl:14:26: missingness.mechanism: mechanism "mnra" is unknown (did you mean "mnar"?)
# error: testdata/unknown_names.bad.hcl:17:27: pipelines.learners: learner "forrest" is unknown (did you mean "forest"?)
# error: testdata/unknown_names.bad.hcl:18:26: pipelines.strategies: strategy "gausian" is unknown (did you mean "gaussian"?)
sweep "s" {
  seed        = 1
  repetitions = 10
  data {
    model = ["quadratik", "friedman", "banana"]
  }
  missingness {
    mechanism = ["mcar", "mnra"]
  }
  pipelines {
    learners   = ["tree", "forrest"]
    strategies = ["mia", "gausian"]
  }
}
