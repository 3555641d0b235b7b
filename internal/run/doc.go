// Package run owns a process's long-lived goroutines as one group that
// starts them together, stops them all when the first one returns, and
// reports that one's error.
package run
