// Package client is the command-line side of the SweepService: it loads
// grid files, submits sweeps, follows their progress and exports results.
package client
