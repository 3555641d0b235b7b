# Pipelines keep file order: each learners × strategies block is crossed
# learners-major; names follow; bayes comes last. Learner settings reach
# every pipeline of that learner, strategy settings to every pipeline of
# that strategy (with or without mask). Columns are 1-based and may be given in
# any order.
sweep "curve" {
  seed        = 5
  repetitions = 200
  data {
    model   = "linear"
    d       = [10, 12]
    noise   = 0.5
    n_train = [300, 1e3]
    n_test  = 2000
  }
  missingness {
    mechanism = "mar"
    rate      = 0.4
    columns   = [10, 1]
  }
  pipelines {
    learners   = ["tree", "ctree"]
    strategies = ["surrogate", "mean+mask"]
  }
  pipelines {
    names = ["linear/gaussian", "tree/mia"]
  }
  learner "tree" {
    minbucket = 30
    cp        = 0
  }
  learner "ctree" {
    maxdepth = 1
  }
  strategy "gaussian" {
    shrink = 0.02
  }
  bayes = true
}
