// Package svm is epsilon-support-vector regression with a radial kernel,
// solved by libsvm's SMO algorithm with e1071 svm()'s defaults and scaling.
package svm
