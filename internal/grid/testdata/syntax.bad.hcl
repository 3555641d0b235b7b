# HCL syntax errors keep the library's message and position.
# error: testdata/syntax.bad.hcl:5:19: syntax: Missing newline after argument; An argument definition must end with a newline.
sweep "s" {
  seed = 1
  repetitions = 2 3
}
