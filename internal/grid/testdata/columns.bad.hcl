# Columns are 1-based and checked against every d of the cross product.
# error: testdata/columns.bad.hcl:13:16: missingness.columns: column 0 does not exist: columns are numbered from 1 (X1)
# error: testdata/columns.bad.hcl:13:22: missingness.columns: column 9 is outside 1..5: model "quadratic" has d = 5 (columns are 1-based: X1..X5)
# error: testdata/columns.bad.hcl:13:25: missingness.columns: column 7 is outside 1..5: model "quadratic" has d = 5 (columns are 1-based: X1..X5)
sweep "s" {
  seed        = 1
  repetitions = 10
  data {
    model = "quadratic"
    d     = [5, 9]
  }
  missingness {
    columns = [0, 3, 9, 7]
  }
  pipelines {
    names = ["tree/mia"]
  }
}
