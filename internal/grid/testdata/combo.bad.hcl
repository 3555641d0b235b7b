# Errors that appear only in combination (model × d, model × mechanism) point at the offending element.
# error: testdata/combo.bad.hcl:14:14: data.d: d = 5 is too small for model "linear" (need d ≥ 10)
# error: testdata/combo.bad.hcl:14:14: data.d: d = 5 but model "stump" has exactly 2 covariates
# error: testdata/combo.bad.hcl:14:14: data.d: d = 5 but model "nonlinear-high" has exactly 10 covariates
# error: testdata/combo.bad.hcl:14:17: data.d: d = 10 but model "stump" has exactly 2 covariates
# error: testdata/combo.bad.hcl:17:26: missingness.mechanism: mechanism "mar" needs at least one always-observed column; columns covers all 10
# error: testdata/combo.bad.hcl:17:26: missingness.mechanism: mechanism "mar" needs Gaussian covariates (models quadratic, linear, friedman), not "stump"
# error: testdata/combo.bad.hcl:17:26: missingness.mechanism: mechanism "mar" needs Gaussian covariates (models quadratic, linear, friedman), not "nonlinear-high"
sweep "s" {
  seed        = 1
  repetitions = 1
  data {
    model = ["linear", "stump", "nonlinear-high"]
    d     = [5, 10]
  }
  missingness {
    mechanism = ["mcar", "mar"]
  }
  pipelines {
    names = ["linear/mean"]
  }
}
