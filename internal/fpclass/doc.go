// Package fpclass names the floating-point class of this build: two
// processes of one class compute bit-identical scores from the same job.
package fpclass
