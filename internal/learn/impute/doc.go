// Package impute fits missing-value transforms (mean, median, constant,
// out-of-range, Gaussian EM, missingness mask, MIA ±∞ duplication) on a
// training matrix and applies them unchanged to any other matrix.
package impute
