# want: file_unclean.bad.hcl:5,14-27: method "hgb": files: "./method.py" is not a clean path (write "method.py")
method "hgb" {
  kind    = "learner"
  command = ["python3", "method.py"]
  files   = ["./method.py"]
}
