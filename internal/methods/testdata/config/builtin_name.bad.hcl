# want: builtin_name.bad.hcl:2,8-16: method "forest": "forest" is the name of a built-in learner or strategy
method "forest" {
  kind    = "learner"
  command = ["python3", "method.py"]
}
