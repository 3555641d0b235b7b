sweep "onelevel" {
  seed        = 1
  repetitions = 2
  table {
    file        = "tables/onelevel.csv"
    target      = "y"
    categorical = ["k"]
  }
  pipelines {
    learners   = ["tree"]
    strategies = ["mia"]
  }
}

# error: testdata/table_onelevel.bad.hcl:7:20: table.categorical: onelevel.csv: categorical column "k" has a single level, "same"; drop it
