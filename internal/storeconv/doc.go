// Package storeconv converts the coordinator's sweeps (grid, sim and learn
// types) to and from the store's record types, in one place, so that the
// store's on-disk format depends on no domain type.
package storeconv
