# want: file_dir.bad.hcl:5,14-19: method "hgb": files: "lib" is not a regular file
method "hgb" {
  kind    = "learner"
  command = ["python3", "method.py"]
  files   = ["lib"]
}
