// Package impute fits missing-value transforms (mean, median, constant,
// out-of-range, Gaussian EM, scikit-learn's iterative (chained Bayesian
// ridge) and k-nearest-neighbour imputers, missingness mask, MIA ±∞
// duplication) on a training matrix and applies them unchanged to any
// other matrix.
//
// Every error it returns wraps one of the learnerr sentinels or is the
// context's error: learnerr.ErrInput for a nil or empty training matrix,
// or a matrix whose column count differs from the one the transform was
// fitted on; learnerr.ErrNumerical for a covariance block that stays
// singular even after the documented diagonal jitter (see Gaussian);
// learnerr.ErrSetting for an invalid imputer parameter (e.g. a Gaussian
// shrinkage outside [0, 1], a negative iterative tolerance).
package impute
