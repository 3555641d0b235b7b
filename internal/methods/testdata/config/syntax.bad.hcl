# want: syntax.bad.hcl:3,10-11: Invalid expression
method "hgb" {
  kind = = "learner"
}
