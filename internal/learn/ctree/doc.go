// Package ctree grows conditional inference trees with partykit's ctree
// semantics (asymptotic quadratic permutation tests, Bonferroni-adjusted
// variable selection, maximally selected two-sample split statistics) and
// its NA handling: majority, random or surrogate routing.
package ctree
