# want: env_reserved.bad.hcl:5,13-27: method "hgb": env: HOME is set by the worker and cannot be changed
method "hgb" {
  kind    = "learner"
  command = ["python3", "method.py"]
  env     = { HOME = "/" }
}
