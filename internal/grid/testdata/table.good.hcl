# A table sweep: small.csv (12 rows, one with an NA target? no: all
# targets present), K = 3 folds, MCAR and self-masking amputation.
sweep "small" {
  seed        = 7
  repetitions = 2
  table {
    file        = "tables/small.csv"
    target      = "y"
    drop        = ["d"]
    categorical = ["c"]
  }
  split {
    folds = 3
  }
  missingness {
    mechanism = ["none", "mcar", "self-masking", "censoring"]
    rate      = [0.1, 0.3]
    columns   = "all"
  }
  pipelines {
    learners   = ["tree"]
    strategies = ["mia", "mean"]
  }
}
