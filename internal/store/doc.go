// Package store keeps sweeps, per-pipeline results and failed jobs in one
// bbolt file, commits results in batches and exports them as tidy CSV.
package store
