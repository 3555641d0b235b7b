// Package verify recomputes a sample of a store's results under the
// running build and compares them with the stored ones bit for bit.
package verify
