// Package grid parses grid files (HCL) into sweeps: a seed, a number of
// repetitions, the cross product of scenarios and the pipelines to run.
package grid
