// Package auth decides who may talk to a coordinator: a shared token sent
// as gRPC metadata and checked in constant time, an optional cluster name
// that binds a worker to one deployment, TLS and mutual TLS from PEM
// files, and a development CA that issues those files.
package auth
