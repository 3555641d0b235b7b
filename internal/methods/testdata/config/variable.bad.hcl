# want: variable.bad.hcl:4,25-29: method "hgb": command: Variables not allowed
method "hgb" {
  kind    = "learner"
  command = ["python3", path]
}
