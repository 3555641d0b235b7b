// Package embedded runs a grid on one machine: a coordinator on a loopback
// listener, an in-process worker and a client, over the same gRPC path as
// a cluster (`coordinator run`).
package embedded
