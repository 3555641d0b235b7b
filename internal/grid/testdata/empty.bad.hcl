# Empty lists, repeated list values and repeated pipelines are errors.
# error: testdata/empty.bad.hcl:11:15: data.n_train: the list is empty; give at least one value
# error: testdata/empty.bad.hcl:12:26: data.rho: 0.2 is listed twice (first at line 12)
# error: testdata/empty.bad.hcl:16:27: pipelines.strategies: "mean" is listed twice (first at line 16)
# error: testdata/empty.bad.hcl:19:14: pipelines: pipeline "tree/mean" is listed twice (first at line 16)
sweep "s" {
  seed        = 1
  repetitions = 10
  data {
    model   = "quadratic"
    n_train = []
    rho     = [0.2, 0.5, 0.2]
  }
  pipelines {
    learners   = ["tree"]
    strategies = ["mean", "mean"]
  }
  pipelines {
    names = ["tree/mean"]
  }
  bayes = true
}
