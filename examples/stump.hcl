# Appendix "Variable selection properties of the tree methods with missing
# values": X1, X2 iid N(0, 1), Y = 0.25·X1 + ε with ε ~ N(0, 1) (model
# "stump"). Stumps (trees of depth one) are fitted on 500 Monte-Carlo
# repetitions for several sample sizes and MCAR rates, with values missing
# on X1 only (Figure "missing values on X1 only") or on both variables
# (Figure "missing values on X1 and X2"). The quantity of interest is how
# often each kind of tree splits on the informative X1.
#
# Tree controls: depth 1, and rpart's default minbucket (7) with cp = 0 so
# that a stump can split even at n = 50 (the paper's minbucket 30 implies
# minsplit 90, which forbids any split below n = 90). Conditional trees keep
# their defaults apart from the depth.
sweep "stump-x1" {
  seed        = 1
  repetitions = 500

  data {
    model   = "stump"
    n_train = [50, 100, 200, 500, 1000]
  }

  missingness {
    mechanism = "mcar"
    rate      = [0, 0.25, 0.5, 0.75]
    columns   = [1]
  }

  pipelines {
    names = ["tree/surrogate", "ctree/majority"]
  }

  learner "tree" {
    maxdepth  = 1
    minbucket = 7
    cp        = 0
  }

  learner "ctree" {
    maxdepth     = 1
    minbucket    = 7 # partykit's default; the paper's 30 forbids any split at n = 50
    mincriterion = 0 # always split: we count which variable is chosen
  }
}

sweep "stump-both" {
  seed        = 1
  repetitions = 500

  data {
    model   = "stump"
    n_train = [50, 100, 200, 500, 1000]
  }

  missingness {
    mechanism = "mcar"
    rate      = [0, 0.25, 0.5, 0.75]
    columns   = [1, 2]
  }

  pipelines {
    names = ["tree/surrogate", "ctree/majority"]
  }

  learner "tree" {
    maxdepth  = 1
    minbucket = 7
    cp        = 0
  }

  learner "ctree" {
    maxdepth     = 1
    minbucket    = 7 # partykit's default; the paper's 30 forbids any split at n = 50
    mincriterion = 0 # always split: we count which variable is chosen
  }
}
