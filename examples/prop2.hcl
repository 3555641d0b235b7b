# Proposition 2 of the paper (Appendix "Theoretical comparison of CART
# versus MIA"): Y = X1 ~ U(0, 1), X2 = X1·1{W = 1} with P(W = 0) = η,
# X1 missing completely at random with probability p. The risk of a
# single split handled by MIA, block propagation, probabilistic split
# and surrogate split (plus the majority rule) is compared with the
# closed forms for η ∈ {0, 0.25, 0.75}, the paper's three panels.
#
# Stumps on 10⁵ training rows; the test MSE on 10⁴ rows estimates the
# risk (the model has no noise), averaged over the repetitions by the
# report. The trees score available-case splits as rpart does (the gain
# on the observed rows, shrunk by the observed fraction), so at large p
# block, prob, majority and surrogate stumps split on the complete X2
# instead of X1 and leave the paper's curves for MIA's risk on X2 (the
# paper's proof compares variables on the observed rows alone; see
# internal/learn/tree/prop2_test.go).
sweep "prop2" {
  seed        = 1
  repetitions = 20

  data {
    model   = "prop2"
    eta     = [0, 0.25, 0.75]
    n_train = 1e5
    n_test  = 1e4
  }

  missingness {
    mechanism = "mcar"
    rate      = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
    columns   = [1]
  }

  pipelines {
    learners   = ["tree"]
    strategies = ["mia", "block", "prob", "surrogate", "majority"]
  }

  learner "tree" {
    maxdepth  = 1
    minbucket = 5
    cp        = 0
  }
}
