//go:build race

package store

// raceBuild: the race detector slows the store's byte-by-byte tests
// about tenfold, so they try fewer bytes under it.
const raceBuild = true
