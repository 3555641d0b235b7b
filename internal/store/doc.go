// Package store keeps sweeps, per-pipeline results and failed jobs in one
// bbolt file, commits results in batches and exports them as tidy CSV.
//
// A damaged file is an error, never a crash: every open first walks the
// file's pages itself (verify.go), because bbolt panics on a damaged page,
// at open on a goroutine where nothing can recover; every transaction
// turns a later bbolt panic into an error wrapping ErrCorrupt. Check
// verifies a store without changing it (`coordinator check`).
package store
