# A sweep the compose methods test holds at a gate (fake.py waits for
# /tmp/gate.go in the Python worker) while it stops that worker: the
# sweep then waits for hgb and gate, and completes once it is back.
sweep "gated" {
  seed        = 20
  repetitions = 4
  methods     = ["hgb", "gate"]

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
    names = ["hgb/native", "gate/native"]
  }
}
