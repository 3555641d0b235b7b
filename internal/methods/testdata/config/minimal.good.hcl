method "hgb" {
  kind    = "learner"
  command = ["python3", "method.py"]
}
