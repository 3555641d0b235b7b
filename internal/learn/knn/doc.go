// Package knn is k-nearest-neighbour regression with the exact neighbour
// and tie semantics of caret's knnreg (k = 5, Euclidean distance on
// unscaled features, mean of the neighbours' targets).
package knn
