# External methods a worker offers (docs/METHODS.md):
#
#   worker --join host:port --methods examples/methods/methods.hcl
#
# Commands run in this file's directory with an environment built from
# scratch (the worker's PATH, LANG, a private HOME/TMPDIR, the method's
# env). `python3` must be an interpreter with numpy and scikit-learn
# (Debian: /usr/bin/python3 with python3-sklearn; write its absolute path
# when another python3 comes first on PATH), and Rscript must have rpart
# (r-cran-rpart). scripts/install-methods-deps.sh installs both on Debian.
#
# A method's identity hashes its name, kind, version, accepts_missing, its
# tasks when it declares classification, and the bytes of its files: the
# script AND the helper libraries it imports, so editing either gives new
# results; the command and env are not part of it. Put the interpreter's
# or library's version in `version`.

method "hgb" {
  kind            = "learner"
  command         = ["python3", "sklearn_hgb.py"]
  files           = ["sklearn_hgb.py", "misslab_method.py"]
  version         = "sklearn-1.2"
  accepts_missing = true # NA handled natively: "hgb/native"
  timeout         = "10m"
}

# "iterative" and "knn" are misslab's built-in strategies (native Go
# ports of these two scikit-learn imputers, no Python needed; "knn" is
# also the built-in learner), so the methods that call scikit-learn
# itself have other names.
method "sk_iterative" {
  kind    = "imputer"
  command = ["python3", "sklearn_iterative.py"]
  files   = ["sklearn_iterative.py", "misslab_method.py"]
  version = "sklearn-1.2"
  timeout = "10m"
}

method "knn_impute" {
  kind    = "imputer"
  command = ["python3", "sklearn_knn.py"]
  files   = ["sklearn_knn.py", "misslab_method.py"]
  version = "sklearn-1.2"
  timeout = "10m"
}

method "rpart" {
  kind            = "learner"
  command         = ["Rscript", "rpart_surrogate.R"]
  files           = ["rpart_surrogate.R", "misslab_method.R"]
  version         = "rpart-4.1"
  accepts_missing = true # surrogate splits: "rpart/native"
  timeout         = "10m"
}

# Classifiers: a learner declares the tasks it does (default: regression
# only). "logit" only classifies; "ridge_r" regresses and classifies, in
# one process. Each lists misslab_classify (the helper's companion for
# classification) beside misslab_method.
method "logit" {
  kind            = "learner"
  command         = ["python3", "sklearn_logit.py"]
  files           = ["sklearn_logit.py", "misslab_method.py", "misslab_classify.py"]
  version         = "sklearn-1.2"
  accepts_missing = true # mean imputation and the mask, inside the method
  tasks           = ["classification"]
  timeout         = "10m"
}

method "ridge_r" {
  kind            = "learner"
  command         = ["Rscript", "ridge_r.R"]
  files           = ["ridge_r.R", "misslab_method.R", "misslab_classify.R"]
  version         = "r-4"
  accepts_missing = true # mean imputation and the mask, inside the method
  tasks           = ["regression", "classification"]
  timeout         = "10m"
}
