# Expressions are literals only; block multiplicity, labels, attribute/block confusion and settings shape.
# error: testdata/blocks.bad.hcl:16:13: data.noise: Function calls not allowed; Functions may not be called here.
# error: testdata/blocks.bad.hcl:17:13: data.rho: Variables not allowed; Variables may not be used here.
# error: testdata/blocks.bad.hcl:19:3: data: duplicate data block (first at line 14)
# error: testdata/blocks.bad.hcl:23:5: pipelines.names: a pipelines block holds either names or learners and strategies, not both
# error: testdata/blocks.bad.hcl:26:3: pipelines.strategies: required attribute is missing: a pipelines block needs learners and strategies (crossed), or names
# error: testdata/blocks.bad.hcl:29:13: pipelines: a pipelines block takes no label
# error: testdata/blocks.bad.hcl:32:3: missingness: missingness is a block: write missingness { ... } without "="
# error: testdata/blocks.bad.hcl:34:10: learner.tree.cp: expected a single value, got a list
# error: testdata/blocks.bad.hcl:35:5: learner.tree.control: unknown block "control" (none allowed here)
sweep "s" {
  seed        = 1
  repetitions = 1
  data {
    model = "quadratic"
    noise = log(2)
    rho   = var.rho
  }
  data {
    model = "linear"
  }
  pipelines {
    names    = ["tree/mia"]
    learners = ["tree"]
  }
  pipelines {
    learners = ["tree"]
  }
  pipelines "extra" {
    names = ["tree/mean"]
  }
  missingness = {}
  learner "tree" {
    cp = [0, 1]
    control {
      cp = 1
    }
  }
}
