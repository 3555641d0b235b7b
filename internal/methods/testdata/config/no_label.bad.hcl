# want: no_label.bad.hcl:2,1-7: a method block takes exactly one label
method {
  kind = "learner"
}
