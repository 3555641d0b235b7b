sweep "constant" {
  seed        = 1
  repetitions = 2
  table {
    file   = "tables/constant.csv"
    target = "y"
  }
  pipelines {
    learners   = ["tree"]
    strategies = ["mia"]
  }
}

# error: testdata/table_constant.bad.hcl:6:14: table.target: constant.csv: target "y" is constant: it is 3 on every row where it is not NA
