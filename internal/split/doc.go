// Package split assigns the rows of a user's table to cross-validation
// folds or a hold-out test set, as a pure function of (grid seed, table
// hash, split, repetition).
package split
