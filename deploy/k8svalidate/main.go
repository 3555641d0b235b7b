// Command k8svalidate checks the Kubernetes manifests of deploy/kubernetes
// without a cluster or a network: every object is decoded strictly into
// the Go types of k8s.io/api (the types the API server's OpenAPI schema is
// generated from), so an unknown or misspelt field, a wrong type or a
// duplicate key fails; then the references between objects are checked
// the way the API server and the controllers would resolve them (selectors
// against pod labels, named ports, volumes, Secrets and their keys, the
// StatefulSet's Service, the HPA's target, resource requests and limits).
//
// Usage: k8svalidate DIR|FILE... (exit status 1 on any problem).
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: k8svalidate DIR|FILE...")
		os.Exit(2)
	}
	b, err := Load(os.Args[1:]...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "k8svalidate:", err)
		os.Exit(1)
	}
	problems := b.Check()
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, "k8svalidate:", p)
	}
	if len(problems) > 0 {
		fmt.Printf("k8svalidate: %d objects in %d files: %d problems\n", len(b.Objects), len(b.Files), len(problems))
		os.Exit(1)
	}
	fmt.Printf("k8svalidate: %d objects in %d files: valid\n", len(b.Objects), len(b.Files))
}
