# want: env_number.bad.hcl:5,13-36: method "hgb": env: OMP_NUM_THREADS must be a string
method "hgb" {
  kind    = "learner"
  command = ["python3", "method.py"]
  env     = { OMP_NUM_THREADS = 1 }
}
