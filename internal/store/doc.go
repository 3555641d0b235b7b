// Package store keeps sweeps, per-pipeline results and failed jobs in one
// bbolt file, in a format it declares itself, and exports them as tidy CSV.
//
// What goes on disk is the store's own: its record types (records.go),
// the canonical encodings its keys derive from (keys.go), and the
// messages of proto/misslab/store/v1 they are written as, each value
// framed with a CRC-32C of its bucket, key and bytes (codec.go). The store
// imports no domain package; internal/storeconv converts the
// coordinator's sweeps to and from its records. A file of an older schema
// is migrated forward at open (migrate.go) after a backup is written
// beside it; one of a newer schema is refused.
//
// A damaged file is an error, never a crash and never silently wrong data:
// every open first walks the file's pages itself (verify.go), checking
// every record's frame and each bucket's record count (walkrecords.go),
// because bbolt panics on a damaged page, at open on a goroutine where
// nothing can recover, and checks nothing inside values; every
// transaction turns a later bbolt panic into an error wrapping
// ErrCorrupt. Check verifies a store without changing it and names every
// damaged record (`coordinator check`).
package store
