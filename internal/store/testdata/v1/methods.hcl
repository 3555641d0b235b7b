# The one external method of the v1 store fixture (see make.sh).
method "crash" {
  kind            = "learner"
  command         = ["sh", "crash.sh"]
  files           = ["crash.sh"]
  version         = "fixture-1"
  accepts_missing = true
}
