# A small real grid for the compose fault tests (deploy/compose): Model 1
# of the paper at n = 300, two mechanisms, 12 repetitions = 24 jobs of a
# few quick pipelines, so that a run takes seconds but every score comes
# from a real fit (scores must be bit-identical to a local `coordinator
# run` of the same grid, whatever fails in between).
sweep "faults" {
  seed        = 7
  repetitions = 12

  data {
    model   = "quadratic"
    n_train = 300
    n_test  = 300
  }

  missingness {
    mechanism = ["mcar", "mnar"]
    rate      = 0.2
    columns   = [1, 2, 3]
  }

  pipelines {
    names = ["tree/mia", "tree/mean+mask", "forest/mia", "linear/mean"]
  }
}
