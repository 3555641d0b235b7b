# want: unknown_block.bad.hcl:2,1-8: unknown block "learner"
learner "hgb" {
  kind = "learner"
}
