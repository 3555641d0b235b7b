// Package svm is support-vector learning with a radial kernel, solved by
// libsvm's SMO algorithm with e1071 svm()'s defaults and scaling:
// epsilon-support-vector regression (Regressor) and C-classification,
// one-vs-one with libsvm's Platt-scaled class probabilities
// (Classifier). Both duals run through the same solver and vector loops.
package svm
