sweep "folds" {
  seed        = 1
  repetitions = 2
  table {
    file        = "tables/small.csv"
    target      = "y"
    drop        = ["d"]
    categorical = ["c"]
  }
  split {
    folds = 7
  }
  pipelines {
    learners   = ["tree"]
    strategies = ["mia"]
  }
}

# error: testdata/table_folds.bad.hcl:11:13: split.folds: folds = 7 but the table has 12 rows with a target: each fold needs at least 2 test rows
