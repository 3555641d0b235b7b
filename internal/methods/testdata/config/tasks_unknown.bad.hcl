# want: tasks_unknown.bad.hcl:5,13-25: method "logit": tasks: task "classify" is unknown (want "regression" or "classification")
method "logit" {
  kind    = "learner"
  command = ["python3", "method.py"]
  tasks   = ["classify"]
}
