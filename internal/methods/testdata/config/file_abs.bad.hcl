# want: file_abs.bad.hcl:5,14-26: method "hgb": files: "/etc/hosts" must be a slash-separated path relative
method "hgb" {
  kind    = "learner"
  command = ["python3", "method.py"]
  files   = ["/etc/hosts"]
}
