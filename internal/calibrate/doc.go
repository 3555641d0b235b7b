// Package calibrate scales a cost model to the machine it runs on by
// timing one small job of every learner family.
package calibrate
