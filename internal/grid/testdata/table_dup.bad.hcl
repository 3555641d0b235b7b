sweep "dup" {
  seed        = 1
  repetitions = 2
  table {
    file   = "tables/dup.csv"
    target = "y"
  }
  pipelines {
    learners   = ["tree"]
    strategies = ["mia"]
  }
}

# error: testdata/table_dup.bad.hcl:5:14: table.file: dup.csv: column name "a" appears twice in the header (columns 2 and 3)
