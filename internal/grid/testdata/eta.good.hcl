# Proposition 2's coupling η is an axis of the data block (model prop2
# only), nested between n_test and the missingness: for each η, every rate.
sweep "prop2" {
  seed        = 3
  repetitions = 2
  data {
    model   = "prop2"
    n_train = 1e4
    eta     = [0, 0.75]
  }
  missingness {
    rate = [0.1, 0.5]
  }
  pipelines {
    names = ["tree/mia"]
  }
}
