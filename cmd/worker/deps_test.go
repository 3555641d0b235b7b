package main

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestWorkerLinksNoCoordinatorCode: the worker binary shares the
// protocol and the domain packages with the coordinator, but must not
// link the store, its format, bbolt, the scheduler or the coordinator
// itself (which would make a worker's image carry, and its operator
// trust, code it never runs).
func TestWorkerLinksNoCoordinatorCode(t *testing.T) {
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(gobin, "list", "-deps", "-f", "{{.ImportPath}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 20 || !slices.Contains(deps, "github.com/misslab/misslab/internal/wire") {
		t.Fatalf("go list returned an implausible dependency list (%d packages): %v", len(deps), deps)
	}
	for _, banned := range []string{
		"go.etcd.io/bbolt",
		"github.com/misslab/misslab/internal/store",
		"github.com/misslab/misslab/internal/storeconv",
		"github.com/misslab/misslab/proto/misslab/store/v1",
		"github.com/misslab/misslab/internal/sched",
		"github.com/misslab/misslab/internal/server",
		"github.com/misslab/misslab/internal/embedded",
		"github.com/misslab/misslab/internal/reportgen",
	} {
		if slices.Contains(deps, banned) {
			t.Errorf("cmd/worker depends on %s", banned)
		}
	}
}
