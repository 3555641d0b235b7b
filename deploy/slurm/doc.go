// Package slurm holds misslab's Slurm deployment (sweep.sbatch,
// workers.sbatch; docs/SLURM.md) and its tests against a real Slurm
// controller and compute daemons, which run only with the build tag
// "slurm" (`make slurm-test`): the default `go test ./...` needs no Slurm.
package slurm
