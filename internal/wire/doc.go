// Package wire converts sweeps between their grid and misslab.v1 forms,
// validating what comes off the wire.
package wire
