# want: tasks_empty.bad.hcl:5,13-15: method "logit": tasks: tasks is empty; give at least one of "regression" or "classification"
method "logit" {
  kind    = "learner"
  command = ["python3", "method.py"]
  tasks   = []
}
