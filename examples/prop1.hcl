# Proposition 1 of the paper (Appendix "Theoretical comparison of CART
# versus MIA"): Y = X1 ~ U(0, 1), X1 missing completely at random with
# probability p. CART's criterion on the observed values splits at 1/2
# whatever p; MIA, which scores every threshold with the missing values
# sent left and right, moves its split to s*(p) (or 1 − s*(p) when the
# missing values go right). The report's theory figure draws the closed
# form and, for each repetition, the threshold of the fitted stump.
#
# Stumps (maxdepth = 1) with a small minbucket and cp = 0 on 10⁵ rows:
# the proposition is a population statement, and at this size a stump's
# threshold is within about 0.01 of its limit.
sweep "prop1" {
  seed        = 1
  repetitions = 20

  data {
    model   = "prop1"
    n_train = 1e5
    n_test  = 1000
  }

  missingness {
    mechanism = "mcar"
    rate      = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
    columns   = [1]
  }

  pipelines {
    names = ["tree/mia", "tree/surrogate"]
  }

  learner "tree" {
    maxdepth  = 1
    minbucket = 5
    cp        = 0
  }
}
