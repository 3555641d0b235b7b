# A table sweep of the v1 store fixture whose jobs all fail (see make.sh:
# its table is damaged on the coordinator before any worker fetches it).
sweep "broken" {
  seed        = 13
  repetitions = 1
  table {
    file   = "broken.csv"
    target = "Ozone"
  }
  split {
    folds = 2
  }
  pipelines {
    names = ["linear/mean"]
  }
}
