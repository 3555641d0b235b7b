# want: unknown_attribute.bad.hcl:5,3-10: method "hgb": unknown attribute "threads" (allowed: kind, command, files
method "hgb" {
  kind    = "learner"
  command = ["python3", "method.py"]
  threads = 4
}
