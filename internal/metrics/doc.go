// Package metrics exposes what a coordinator and a worker do as Prometheus
// metrics, served over HTTP on a port of their own.
package metrics
