# want: tasks_twice.bad.hcl:5,13-63: method "logit": tasks: task "classification" is listed twice
method "logit" {
  kind    = "learner"
  command = ["python3", "method.py"]
  tasks   = ["classification", "regression", "classification"]
}
