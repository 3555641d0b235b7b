// Package compose holds the Docker Compose deployment of misslab and its
// tests across real containers, which run only with the build tag
// "compose" (`make compose-test`): the default `go test ./...` needs no
// Docker.
package compose
