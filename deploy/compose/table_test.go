//go:build compose

package compose_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	pb "github.com/misslab/misslab/proto/misslab/v1"
)

var tableGrid = filepath.Join("deploy", "compose", "testdata", "table.hcl")

// TestTableSweepAcrossContainers runs a table sweep on two worker
// containers that share no filesystem with the client or each other:
// submit uploads the table, each worker fetches it by hash. The
// coordinator is SIGKILLed mid-sweep and restarted; the sweep resumes,
// and the scores are bit-identical to an uninterrupted local run.
func TestTableSweepAcrossContainers(t *testing.T) {
	p := up(t, 2, "MISSLAB_EXECUTOR=experiment", "MISSLAB_DELAY=300ms", "MISSLAB_PARALLEL=1")
	c := p.client()
	id := p.submit(grid(tableGrid)) // 40 jobs
	before := p.waitStatus(c, id, 2*time.Minute, "first results", func(st *pb.SweepStatus) bool { return st.GetDone() >= 4 })
	if before.GetDone() >= 40 {
		t.Fatalf("the sweep finished before the kill: %v", before)
	}
	killed := time.Now()
	p.compose(time.Minute, "kill", "-s", "SIGKILL", "coordinator")
	for _, w := range p.containers("worker") {
		p.waitLog(w, killed, "not connected to coordinator", time.Minute)
	}
	p.compose(time.Minute, "start", "coordinator")
	c = p.client()
	st := p.waitStatus(c, id, 4*time.Minute, "table sweep complete", complete)
	if st.GetFailed() != 0 || st.GetDone() != 40 {
		t.Fatalf("final status %v", st)
	}
	sameScores(t, p.export(id), localRun(t, grid(tableGrid)), 40)
	// Each worker container holds its own verified copy, fetched by hash.
	want, err := os.ReadFile(filepath.Join(root, "examples", "data", "airquality.csv"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(want)
	sha := hex.EncodeToString(sum[:])
	for _, w := range p.containers("worker") {
		dir := t.TempDir()
		p.docker("cp", w+":/tables/"+sha, filepath.Join(dir, "copy"))
		got, err := os.ReadFile(filepath.Join(dir, "copy"))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("worker %s: its copy of the table differs from the file (%v)", w, err)
		}
	}
}
