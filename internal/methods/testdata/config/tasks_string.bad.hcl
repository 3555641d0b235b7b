# want: tasks_string.bad.hcl:5,13-29: method "logit": tasks must be a list of strings, not string
method "logit" {
  kind    = "learner"
  command = ["python3", "method.py"]
  tasks   = "classification"
}
