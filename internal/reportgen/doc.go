// Package reportgen turns a sweep's stored results into a report.Input:
// scenario titles and labels, per-run records, failures, learning
// curves, stump split choices and the simulated points of the theory
// figures.
package reportgen
