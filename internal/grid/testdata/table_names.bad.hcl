sweep "names" {
  seed        = 1
  repetitions = 2
  table {
    file        = "tables/small.csv"
    target      = "y"
    drop        = ["dd"]
    categorical = ["c"]
  }
  pipelines {
    learners   = ["tree"]
    strategies = ["mia"]
  }
}

# error: testdata/table_names.bad.hcl:7:20: table.drop: small.csv: drop names column "dd", which the table does not have (did you mean "d"?)
