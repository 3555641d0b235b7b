// Package server is the coordinator: it loads sweeps from the store into
// the scheduler and serves the misslab.v1 gRPC services to clients and
// workers.
package server
