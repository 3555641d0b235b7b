// Package plan estimates what a grid file would cost to run, without
// running it: counts of jobs and fits, CPU and wall time from a per-learner
// cost model, and a suggested Slurm allocation (`coordinator plan`).
package plan
