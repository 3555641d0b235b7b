# want: string_command.bad.hcl:4,13-32: method "hgb": command must be a list of strings, not string
method "hgb" {
  kind    = "learner"
  command = "python3 method.py"
}
