sweep "mar" {
  seed        = 1
  repetitions = 2
  table {
    file        = "tables/small.csv"
    target      = "y"
    drop        = ["d"]
    categorical = ["c"]
  }
  missingness {
    mechanism = ["mar", "censoring"]
    rate      = [0.2, 1.5]
  }
  pipelines {
    learners   = ["tree"]
    strategies = ["mia"]
  }
}

# error: testdata/table_mar.bad.hcl:12:18: missingness: sim: invalid scenario: mechanism "mar" needs at least one feature column that is never amputed; columns covers all 3
# error: testdata/table_mar.bad.hcl:12:23: missingness: sim: invalid scenario: rate = 1.5 outside [0, 1)
