# Learner settings: a key the learner does not accept (at its own line, once for both pipelines), non-numeric value, unused learner, unknown learner.
# error: testdata/settings.bad.hcl:18:5: learner.tree.bogus: tree/mean: unknown key "bogus" (allowed: cp, maxdepth, maxsurrogate, minbucket, minsplit, rpart_defaults (preset, 0/1))
# error: testdata/settings.bad.hcl:21:14: learner.linear.lambda: expected a number, got string "small"
# error: testdata/settings.bad.hcl:23:3: learner.forest: settings for learner "forest", but no pipeline of this sweep uses it
# error: testdata/settings.bad.hcl:26:11: learner.tre: learner "tre" is unknown (did you mean "tree"?)
sweep "s" {
  seed        = 1
  repetitions = 10
  data {
    model = "quadratic"
  }
  pipelines {
    learners   = ["tree", "linear"]
    strategies = ["mean"]
  }
  learner "tree" {
    maxdepth = 2
    bogus    = 1
  }
  learner "linear" {
    lambda = "small"
  }
  learner "forest" {
    trees = 500
  }
  learner "tre" {
    cp = 0
  }
}
