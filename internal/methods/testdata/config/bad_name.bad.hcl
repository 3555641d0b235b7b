# want: bad_name.bad.hcl:2,8-18: method "Hgb-fast": invalid method name
method "Hgb-fast" {
  kind    = "learner"
  command = ["python3", "method.py"]
}
