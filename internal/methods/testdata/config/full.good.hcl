# Two methods with every attribute.
method "hgb" {
  kind            = "learner"
  command         = ["python3", "method.py", "--fast"]
  files           = ["method.py", "lib/util.py"]
  version         = "sklearn-1.2"
  accepts_missing = true
  tasks           = ["classification", "regression"]
  timeout         = "90s"
  start_timeout   = "5s"
  env             = { OMP_NUM_THREADS = "1", PATH = "/usr/bin:/bin" }
}

method "mice_r" {
  kind    = "imputer"
  command = ["Rscript", "helper.R"]
  files   = ["helper.R"]
}
