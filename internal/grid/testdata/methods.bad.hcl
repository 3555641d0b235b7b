# External methods: bad names, repeats, unused, wrong place, native for a built-in learner, a typo.
# error: testdata/methods.bad.hcl:12:18: methods: method name "Bad-Name": want a lower-case letter, then letters, digits or _ (at most 40 bytes)
# error: testdata/methods.bad.hcl:12:30: methods: method name "forest" is a built-in learner or strategy of misslab
# error: testdata/methods.bad.hcl:12:47: methods: "hgb" is listed twice (first at line 12)
# error: testdata/methods.bad.hcl:17:14: pipelines.names: tree/native: learner "tree" does not support strategy "native" (supported: mia, mia-inf, surrogate, block, prob, majority, mean, median, constant, oor, gaussian, iterative, knn)
# error: testdata/methods.bad.hcl:17:29: pipelines.names: external learner "hgb" in "hgb/surrogate" takes native, mia-inf, mean, median, constant, oor, gaussian, iterative, knn or an external imputer the sweep lists, not "surrogate"
# error: testdata/methods.bad.hcl:17:46: pipelines.names: knn/hgbb: strategy "hgbb" is unknown (did you mean "hgb"?)
#
sweep "s" {
  seed        = 1
  repetitions = 1
  methods     = ["Bad-Name", "forest", "hgb", "hgb", "unused"]
  data {
    model = "quadratic"
  }
  pipelines {
    names = ["tree/native", "hgb/surrogate", "knn/hgbb"]
  }
}
