// Package sim draws the training and test sets of the paper's simulation
// study: covariate models, targets, missing-data mechanisms, seeds, the
// population variance of Y and the Bayes predictor.
package sim
