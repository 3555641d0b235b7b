# Jobs: 11 scenarios × 10,000,000 repetitions pass the limit of jobs per sweep that a Submit applies.
# error: testdata/jobs.bad.hcl:5:17: repetitions: 11 scenarios × 10000000 repetitions = 110000000 jobs exceed the limit of 100000000
sweep "s" {
  seed        = 1
  repetitions = 10000000
  data {
    model   = "quadratic"
    n_train = [100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110]
  }
  pipelines { names = ["tree/mia"] }
}
