sweep "split" {
  seed        = 1
  repetitions = 2
  table {
    file        = "tables/small.csv"
    target      = "y"
    drop        = ["d"]
    categorical = ["c"]
  }
  split {
    folds         = 3
    test_fraction = 0.2
  }
  pipelines {
    learners   = ["tree"]
    strategies = ["mia"]
  }
}

# error: testdata/table_split.bad.hcl:12:5: split.test_fraction: give folds (K-fold) or test_fraction (hold-out), not both
