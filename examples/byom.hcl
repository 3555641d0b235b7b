# Bring your own method: misslab's built-in pipelines beside external
# methods that workers run (docs/METHODS.md), on the same draws.
#
#   coordinator run examples/byom.hcl --methods examples/methods/methods.hcl --out out/byom
#   (make byom does this; on a cluster: worker --methods examples/methods/methods.hcl)
#
# The data are the quickstart's (Model 1, 20% NA on X1..X3 under MCAR,
# MNAR and predictive missingness, seed 1), so its built-in results are
# reused. rpart/native is R's rpart with surrogate splits, run by the R
# adapter: misslab's tree/surrogate was built to match it node by node,
# and the two must score identically on every repetition (CI checks it).
# hgb is scikit-learn's HistGradientBoostingRegressor with its native NA
# handling; sk_iterative and knn_impute are scikit-learn's IterativeImputer
# and KNNImputer, fitted on the training set and feeding misslab's own
# learners (the built-in strategies iterative and knn are Go ports of the
# same two imputers, whose names the methods therefore cannot take).
sweep "byom" {
  seed        = 1
  repetitions = 10
  methods     = ["rpart", "hgb", "sk_iterative", "knn_impute"]

  data {
    model = "quadratic"
  }

  missingness {
    mechanism = ["mcar", "mnar", "predictive"]
    rate      = 0.2
    columns   = [1, 2, 3]
  }

  pipelines { # the same tree in Go and in R
    names = ["tree/surrogate", "rpart/native"]
  }

  pipelines { # native NA handling in scikit-learn against XGBoost-style MIA
    names = ["hgb/native", "boost/mia", "hgb/mean+mask"]
  }

  pipelines { # scikit-learn's imputers in front of misslab's learners
    learners   = ["tree", "svm"]
    strategies = ["mean", "sk_iterative", "knn_impute+mask"]
  }
}
