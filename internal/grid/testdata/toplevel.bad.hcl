# Only sweep blocks at top level; sweep names are required.
# error: testdata/toplevel.bad.hcl:5:1: seed: seed belongs inside a sweep block
# error: testdata/toplevel.bad.hcl:6:1: sweeps: unknown block "sweeps" (did you mean "sweep"?)
# error: testdata/toplevel.bad.hcl:8:1: sweep: a sweep block takes exactly one label: sweep "name" { ... }
seed = 1
sweeps "a" {
}
sweep {
  seed = 1
}
