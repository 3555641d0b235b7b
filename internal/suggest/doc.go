// Package suggest proposes the closest known name for a misspelt one, for
// "did you mean" hints in error messages.
package suggest
