sweep "columns" {
  seed        = 1
  repetitions = 2
  table {
    file   = "tables/small.csv"
    target = "y"
    drop   = ["d"]
    categorical = ["c"]
  }
  missingness {
    mechanism = ["mcar", "mar"]
    rate      = 0.2
    columns   = ["a", "y", "d", "bb"]
  }
  pipelines {
    learners   = ["tree"]
    strategies = ["mia"]
  }
}

# error: testdata/table_columns.bad.hcl:13:23: missingness.columns: column "y" is the target; only feature columns are amputed
# error: testdata/table_columns.bad.hcl:13:28: missingness.columns: column "d" is dropped
# error: testdata/table_columns.bad.hcl:13:33: missingness.columns: the table has no feature column "bb" (did you mean "b"?) (or write "all")
