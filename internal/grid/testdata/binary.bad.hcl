# Binary tasks: a toy setting has none, a binary task has no noise, scale
# and threshold need task = "binary", one task per sweep, and neither a ridge
# penalty nor an SVM's regression tube has a classification counterpart.
# error: testdata/binary.bad.hcl:15:13: data.model: model "example1" has no binary task: the toy settings are the paper's regression examples (models with one: [quadratic linear friedman nonlinear nonlinear-high])
# error: testdata/binary.bad.hcl:26:13: data.noise: noise = 0.5 with task "binary": the randomness of a binary target is its Bernoulli draw; noise must be 0
# error: testdata/binary.bad.hcl:35:13: data.scale: scale and threshold are set, but the task is regression (set task = "binary")
# error: testdata/binary.bad.hcl:44:13: data.task: give one task per sweep (one of [regression binary]); split the sweep to compare tasks
# error: testdata/binary.bad.hcl:54:13: data.scale: scale = -1 must be a finite number > 0
# error: testdata/binary.bad.hcl:65:3: pipelines: linear/mean cannot run task "binary": learn: bad setting: linear/mean: lambda = 2: logistic regression (glm, multinom) is unpenalised; ridge applies to regression only
# error: testdata/binary.bad.hcl:77:3: pipelines: svm/mean cannot run task "binary": learn: bad setting: svm/mean: epsilon = 0.5: the insensitive tube is eps-regression's; C-classification has none
sweep "toy" {
  seed        = 1
  repetitions = 1
  data {
    model = "example1"
    task  = "binary"
  }
  pipelines { names = ["tree/mia"] }
}
sweep "noisy" {
  seed        = 1
  repetitions = 1
  data {
    model = "quadratic"
    task  = "binary"
    noise = 0.5
  }
  pipelines { names = ["tree/mia"] }
}
sweep "no-task" {
  seed        = 1
  repetitions = 1
  data {
    model = "quadratic"
    scale = 2
  }
  pipelines { names = ["tree/mia"] }
}
sweep "two-tasks" {
  seed        = 1
  repetitions = 1
  data {
    model = "quadratic"
    task  = ["regression", "binary"]
  }
  pipelines { names = ["tree/mia"] }
}
sweep "negative" {
  seed        = 1
  repetitions = 1
  data {
    model = "quadratic"
    task  = "binary"
    scale = -1
  }
  pipelines { names = ["tree/mia"] }
}
sweep "ridge" {
  seed        = 1
  repetitions = 1
  data {
    model = "quadratic"
    task  = "binary"
  }
  pipelines { names = ["linear/mean"] }
  learner "linear" {
    lambda = 2
  }
}
sweep "tube" {
  seed        = 1
  repetitions = 1
  data {
    model = "quadratic"
    task  = "binary"
  }
  pipelines { names = ["svm/mean"] }
  learner "svm" {
    epsilon = 0.5
  }
}
