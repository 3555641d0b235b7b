// Package learnerr is the error vocabulary shared by package learn and its learner, imputer and preprocessing packages.
package learnerr
