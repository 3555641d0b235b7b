# want: missing_kind.bad.hcl:2,1-13: method "hgb": kind is required
method "hgb" {
  command = ["python3", "method.py"]
}
