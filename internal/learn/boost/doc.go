// Package boost is gradient-boosted regression trees reproducing XGBoost's
// exact greedy method with native (sparsity-aware, MIA) missing values.
package boost
