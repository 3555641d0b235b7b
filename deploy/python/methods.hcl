# The external methods of the Python worker image (misslab-py), built by
# scripts/build-python-image.sh: the shipped scikit-learn adapters of
# examples/methods/, copied to /methods beside this file, run by the
# image's Debian /usr/bin/python3 (numpy, scipy, scikit-learn).
#
# Everything but `command` is as in examples/methods/methods.hcl, so these
# methods have the same identities as a host worker's: a coordinator sees
# one method per name whichever kind of worker offers it. The R method
# (rpart) is not here: the image has no R.

method "hgb" {
  kind            = "learner"
  command         = ["/usr/bin/python3", "sklearn_hgb.py"]
  files           = ["sklearn_hgb.py", "misslab_method.py"]
  version         = "sklearn-1.2"
  accepts_missing = true # NA handled natively: "hgb/native"
  timeout         = "10m"
}

method "sk_iterative" {
  kind    = "imputer"
  command = ["/usr/bin/python3", "sklearn_iterative.py"]
  files   = ["sklearn_iterative.py", "misslab_method.py"]
  version = "sklearn-1.2"
  timeout = "10m"
}

# "knn" is misslab's built-in learner, so the imputer has another name.
method "knn_impute" {
  kind    = "imputer"
  command = ["/usr/bin/python3", "sklearn_knn.py"]
  files   = ["sklearn_knn.py", "misslab_method.py"]
  version = "sklearn-1.2"
  timeout = "10m"
}
