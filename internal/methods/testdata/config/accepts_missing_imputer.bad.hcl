# want: accepts_missing_imputer.bad.hcl:5,3-18: method "mice": accepts_missing is only for learners
method "mice" {
  kind            = "imputer"
  command         = ["Rscript", "helper.R"]
  accepts_missing = true
}
