# Sweep names are unique within a file.
# error: testdata/duplicate.bad.hcl:14:7: sweep: sweep "a" is defined twice (first at line 3)
sweep "a" {
  seed        = 1
  repetitions = 10
  data {
    model = "quadratic"
  }
  pipelines {
    names = ["tree/mia"]
  }
}

sweep "a" {
  seed        = 2
  repetitions = 10
  data {
    model = "linear"
  }
  pipelines {
    names = ["tree/mia"]
  }
}
