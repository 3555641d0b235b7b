# want: tasks_imputer.bad.hcl:5,3-8: method "mice": tasks is only for learners
method "mice" {
  kind    = "imputer"
  command = ["Rscript", "helper.R"]
  tasks   = ["classification"]
}
