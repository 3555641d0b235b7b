# want: negative_duration.bad.hcl:5,19-24: method "hgb": start_timeout = "-1s" must be positive
method "hgb" {
  kind          = "learner"
  command       = ["python3", "method.py"]
  start_timeout = "-1s"
}
