# want: duplicate_name.bad.hcl:7,8-13: method "hgb": defined twice (first at line 2)
method "hgb" {
  kind    = "learner"
  command = ["python3", "method.py"]
}

method "hgb" {
  kind    = "imputer"
  command = ["python3", "method.py"]
}
