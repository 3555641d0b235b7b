# Unknown attributes and blocks get a did-you-mean suggestion.
# error: testdata/unknown_attr.bad.hcl:10:5: data.rhos: unknown attribute "rhos" (did you mean "rho"?)
# error: testdata/unknown_attr.bad.hcl:13:5: missingness.mechanisms: unknown attribute "mechanisms" (did you mean "mechanism"?)
# error: testdata/unknown_attr.bad.hcl:19:3: pipeline: unknown block "pipeline" (did you mean "pipelines"?)
sweep "s" {
  seed        = 1
  repetitions = 2
  data {
    model = "quadratic"
    rhos  = [0.5]
  }
  missingness {
    mechanisms = ["mcar"]
  }
  pipelines {
    learners   = ["tree"]
    strategies = ["mia"]
  }
  pipeline {
    names = ["tree/mean"]
  }
}
