# Faulty methods in the compose methods test: garbage and a timeout fail
# their pipelines with their stderr; a crash and a process killed mid-fit
# are retried; the built-in pipeline and later jobs are unaffected.
sweep "method-faults" {
  seed        = 19
  repetitions = 2
  methods     = ["junk", "slow", "flaky", "victim"]

  data {
    model   = "quadratic"
    n_train = 200
    n_test  = 200
  }

  missingness {
    mechanism = "mcar"
    rate      = 0.2
  }

  pipelines {
    names = ["tree/mia", "junk/native", "slow/native", "flaky/native", "victim/native"]
  }
}
