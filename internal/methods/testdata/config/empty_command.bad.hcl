# want: empty_command.bad.hcl:4,13-15: method "hgb": command is empty
method "hgb" {
  kind    = "learner"
  command = []
}
