# Every parameter left out takes sim.Defaults(model).
sweep "minimal" {
  seed        = 7
  repetitions = 3
  data {
    model = "quadratic"
  }
  pipelines {
    names = ["tree/mia"]
  }
}

# A second sweep in the same file; the stump's defaults differ (σ = 1,
# d = 2, no correlation, NA on X1 only).
sweep "stump" {
  seed        = 18446744073709551615
  repetitions = 1
  data {
    model = "stump"
  }
  missingness {}
  bayes = true
}
