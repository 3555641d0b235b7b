# want: unknown_kind.bad.hcl:3,13-21: method "hgb": kind = "lerner" is unknown (want "learner" or "imputer")
method "hgb" {
  kind    = "lerner"
  command = ["python3", "method.py"]
}
