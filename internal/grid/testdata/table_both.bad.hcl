sweep "both" {
  seed        = 1
  repetitions = 2
  data {
    model = "quadratic"
  }
  table {
    file   = "tables/small.csv"
    target = "y"
  }
  pipelines {
    learners   = ["tree"]
    strategies = ["mia"]
  }
}

sweep "split_without_table" {
  seed        = 1
  repetitions = 2
  data {
    model = "quadratic"
  }
  split {
    folds = 3
  }
  pipelines {
    learners   = ["tree"]
    strategies = ["mia"]
  }
}

# error: testdata/table_both.bad.hcl:4:3: data: a sweep takes a data block (simulated) or a table block (a real table), not both
# error: testdata/table_both.bad.hcl:23:3: split: a split block belongs to a sweep with a table block (simulated data draw fresh test sets)
