# want: bad_duration.bad.hcl:5,13-17: method "hgb": timeout = "10" is not a duration
method "hgb" {
  kind    = "learner"
  command = ["python3", "method.py"]
  timeout = "10"
}
