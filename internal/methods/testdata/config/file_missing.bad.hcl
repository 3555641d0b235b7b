# want: file_missing.bad.hcl:5,27-36: method "hgb": files: "nope.py" does not exist
method "hgb" {
  kind    = "learner"
  command = ["python3", "method.py"]
  files   = ["method.py", "nope.py"]
}
