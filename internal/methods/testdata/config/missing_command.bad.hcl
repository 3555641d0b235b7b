# want: missing_command.bad.hcl:2,1-13: method "hgb": command is required
method "hgb" {
  kind = "learner"
}
