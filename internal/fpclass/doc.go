// Package fpclass names the floating-point class of this build (its
// platform and misslab's score version): two processes of one class
// compute bit-identical scores from the same job.
package fpclass
