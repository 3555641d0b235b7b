// Package knn is k-nearest-neighbour regression and classification with
// the exact neighbour and tie semantics of caret (k = 5, Euclidean
// distance on unscaled features): Regressor is caret's knnreg (mean of
// the neighbours' targets), Classifier is caret's knn3 (class
// proportions among the neighbours).
package knn
