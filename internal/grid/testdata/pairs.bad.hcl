# Invalid learner/strategy pairs are rejected by name, in crosses and in explicit names.
# error: testdata/pairs.bad.hcl:18:27: pipelines.strategies: svm/surrogate: learner "svm" does not support strategy "surrogate" (supported: mean, median, constant, oor, gaussian, iterative, knn)
# error: testdata/pairs.bad.hcl:18:27: pipelines.strategies: knn/surrogate: learner "knn" does not support strategy "surrogate" (supported: mean, median, constant, oor, gaussian, iterative, knn)
# error: testdata/pairs.bad.hcl:18:40: pipelines.strategies: svm/mia+mask: learner "svm" does not support strategy "mia" (supported: mean, median, constant, oor, gaussian, iterative, knn)
# error: testdata/pairs.bad.hcl:18:40: pipelines.strategies: knn/mia+mask: learner "knn" does not support strategy "mia" (supported: mean, median, constant, oor, gaussian, iterative, knn)
# error: testdata/pairs.bad.hcl:21:30: pipelines.names: "tree" is not of the form learner/strategy[+mask]
# error: testdata/pairs.bad.hcl:21:38: pipelines.names: linear/mia: learner "linear" does not support strategy "mia" (supported: mean, median, constant, oor, gaussian, iterative, knn)
# error: testdata/pairs.bad.hcl:21:52: pipelines.names: "bayes/oracle+mask": the bayes oracle takes no mask
# error: testdata/pairs.bad.hcl:21:73: pipelines: pipeline "tree/mean" is listed twice (first at line 18)
sweep "s" {
  seed        = 1
  repetitions = 10
  data {
    model = "quadratic"
  }
  pipelines {
    learners   = ["tree", "svm", "knn"]
    strategies = ["mean", "surrogate", "mia+mask"]
  }
  pipelines {
    names = ["svm/oor+mask", "tree", "linear/mia", "bayes/oracle+mask", "tree/mean"]
  }
}
