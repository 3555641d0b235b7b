package main

import (
	"bytes"
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/server"
	"github.com/misslab/misslab/internal/store"
	"github.com/misslab/misslab/internal/storeconv"
)

// writeFailedStore stores the tiny grid's sweep with every job scored but
// job 1, which failed for good, and returns the sweep's id.
func writeFailedStore(t *testing.T, dir string) string {
	t.Helper()
	f, err := grid.Parse([]byte(testGrid), "tiny.hcl", grid.ParseOptions{})
	must(t, err)
	sw := f.Sweeps[0]
	st, err := store.Open(dir, store.Options{NoSync: true})
	must(t, err)
	defer st.Close()
	id := sw.Hash()
	must(t, st.PutSweep(storeconv.New(sw, time.Now()).StoreRecord()))
	recs := []store.Record{{SweepID: id, Job: 1, Failure: "fit: singular"}}
	for job := range sw.Jobs() {
		if job == 1 {
			continue
		}
		si, rep := sw.Job(job)
		r := store.Record{SweepID: id, Job: job, Draw: storeconv.DrawKey(sw.Seed, sw.Scenarios[si]), Rep: rep}
		for _, p := range sw.Pipelines {
			r.Pipes = append(r.Pipes, storeconv.PipeKey(p))
			r.Results = append(r.Results, store.Result{R2: 0.5, MSE: 1})
		}
		recs = append(recs, r)
	}
	must(t, st.Commit(recs))
	return id
}

// TestRetryCommand: `coordinator retry SWEEP` (by name) puts the failed
// job of a complete sweep back, says how many, and prints the sweep
// running again with no failure; an unknown sweep is an error.
func TestRetryCommand(t *testing.T) {
	dir := t.TempDir()
	id := writeFailedStore(t, dir)
	coord, err := server.Open(context.Background(), dir, server.Options{})
	must(t, err)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	ctx, stop := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- coord.Serve(ctx, lis) }()
	defer func() { stop(); must(t, <-served); must(t, coord.Close()) }()
	if st, _ := coord.Status(id); st.Failed != 1 || !st.Closed {
		t.Fatalf("before: %+v, want complete with one failed job", st)
	}
	var out bytes.Buffer
	must(t, retryTo(&out, []string{"tiny", "--addr", lis.Addr().String()}))
	if !strings.Contains(out.String(), "1 failed jobs put back to run again") ||
		!strings.Contains(out.String(), id[:12]+"  tiny  running  4     3     0") {
		t.Fatalf("output:\n%s", &out)
	}
	if st, _ := coord.Status(id); st.Failed != 0 || st.Closed {
		t.Fatalf("after: %+v, want the job pending again", st)
	}
	if err := retryTo(&out, []string{"nosuch", "--addr", lis.Addr().String()}); err == nil || !strings.Contains(err.Error(), "NotFound") {
		t.Fatalf("unknown sweep: %v, want NotFound", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
