# seed, repetitions (≥ 1), data and at least one pipeline are required.
# error: testdata/missing.bad.hcl:7:1: seed: required attribute is missing (any whole number in [0, 2^64))
# error: testdata/missing.bad.hcl:8:17: repetitions: repetitions = 0 outside [1, 10000000]
# error: testdata/missing.bad.hcl:17:1: repetitions: required attribute is missing (a whole number ≥ 1)
# error: testdata/missing.bad.hcl:17:1: data: required block is missing: data { model = "quadratic" }
# error: testdata/missing.bad.hcl:17:1: pipelines: the sweep runs no pipeline: add pipelines { learners = [...] strategies = [...] } or bayes = true
sweep "no-seed" {
  repetitions = 0
  data {
    model = "quadratic"
  }
  pipelines {
    names = ["tree/mia"]
  }
}

sweep "no-data" {
  seed = 3
}
