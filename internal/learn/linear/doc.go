// Package linear fits linear models on complete (imputed) data: Ridge,
// least-squares regression with a small, scale-invariant ridge penalty,
// and Logistic, logistic regression for classification, fitted as R's
// glm(family = binomial) (two classes) and nnet::multinom (three or
// more) fit it.
package linear
