// Package worker pulls jobs from a coordinator over one long-lived gRPC
// stream, runs them through an Executor and returns their results.
package worker
