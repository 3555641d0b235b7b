sweep "text" {
  seed        = 1
  repetitions = 2
  table {
    file   = "tables/text.csv"
    target = "y"
  }
  pipelines {
    learners   = ["tree"]
    strategies = ["mia"]
  }
}

# error: testdata/table_text.bad.hcl:5:14: table.file: text.csv: row 5 (line 6), column "city": "Paris" is not a number; list the column in categorical or drop
