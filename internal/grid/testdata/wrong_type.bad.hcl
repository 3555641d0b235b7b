# Wrong value types are reported at the value.
# error: testdata/wrong_type.bad.hcl:9:17: seed: expected a whole number, got string "one"
# error: testdata/wrong_type.bad.hcl:10:17: repetitions: expected a whole number, got 2.5
# error: testdata/wrong_type.bad.hcl:11:17: bayes: expected true or false, got string "yes"
# error: testdata/wrong_type.bad.hcl:13:29: data.model: expected a string, got number 3
# error: testdata/wrong_type.bad.hcl:14:15: data.rho: expected a number, got string "high"
# error: testdata/wrong_type.bad.hcl:15:16: data.n_train: lists cannot be nested
sweep "s" {
  seed        = "one"
  repetitions = 2.5
  bayes       = "yes"
  data {
    model   = ["quadratic", 3]
    rho     = "high"
    n_train = [[100, 200]]
  }
}
