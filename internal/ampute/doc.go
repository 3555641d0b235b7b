// Package ampute adds missing values to a real table's feature matrix under
// a chosen mechanism (MCAR, MAR, MNAR, self-masking, censoring), fitted on a
// fold's training rows and applied with the same parameters to any rows.
package ampute
