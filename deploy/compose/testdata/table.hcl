# A table sweep for the compose tests: the shipped airquality table
# (uploaded by `submit` from the host; the worker containers share no
# filesystem with it or with each other, so each fetches the table from
# the coordinator by hash) under 4 repetitions of 5-fold cross-validation,
# as it is and with 20% MCAR amputation: 2 scenarios × 20 units = 40 jobs.
sweep "table" {
  seed        = 5
  repetitions = 4
  table {
    file        = "../../../examples/data/airquality.csv"
    target      = "Ozone"
    drop        = ["Day"]
    categorical = ["Month"]
  }
  missingness {
    mechanism = ["none", "mcar"]
    rate      = 0.2
  }
  pipelines {
    names = ["tree/mia", "tree/mean+mask", "forest/mia", "linear/gaussian"]
  }
}
