// Package ctree grows conditional inference trees with partykit's ctree
// semantics (asymptotic quadratic permutation tests, Bonferroni-adjusted
// variable selection, maximally selected two-sample split statistics) and
// its NA handling: majority, random or surrogate routing. Fit grows a
// regression tree (numeric response, h(y) = y); FitClass a classification
// tree (factor response, h(y) the class indicators), whose leaves predict
// the training rows' class shares.
package ctree
