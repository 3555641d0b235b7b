// Package forest grows random forests with ranger's defaults and rules,
// natively handling NA with MIA or taking complete (imputed) data, on
// its own weighted grower whose trees a test checks equal to the tree
// package's on the same bootstrap rows. Fit grows a regression forest
// (ranger's "variance" rule); FitClass a probability forest
// (ranger(probability = TRUE): Gini splits, leaves holding class
// fractions), whose trees a test checks equal to a naive transcription
// of ranger's TreeProbability on the same draws.
package forest
