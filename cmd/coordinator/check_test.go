package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/store"
	"github.com/misslab/misslab/internal/storeconv"
)

// writeTestStore stores the sweep of testGrid in a new store in dir,
// with the result res(job, pipeline) for every job and pipeline, and
// returns the sweep's id.
func writeTestStore(t *testing.T, dir string, res func(job, pipeline int) store.Result) string {
	t.Helper()
	f, err := grid.Parse([]byte(testGrid), "tiny.hcl", grid.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sw := f.Sweeps[0]
	st, err := store.Open(dir, store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	id := sw.Hash()
	if err := st.PutSweep(storeconv.New(sw, time.Now()).StoreRecord()); err != nil {
		t.Fatal(err)
	}
	var recs []store.Record
	for job := range sw.Jobs() {
		si, rep := sw.Job(job)
		r := store.Record{SweepID: id, Job: job, Draw: storeconv.DrawKey(sw.Seed, sw.Scenarios[si]), Rep: rep}
		for pi, p := range sw.Pipelines {
			r.Pipes = append(r.Pipes, storeconv.PipeKey(p))
			r.Results = append(r.Results, res(job, pi))
		}
		recs = append(recs, r)
	}
	if err := st.Commit(recs); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestCheckCommand: a healthy store is reported with its contents and
// passes; a damaged meta page and an empty file fail (main then exits
// non-zero) with the problem listed; --data is required.
func TestCheckCommand(t *testing.T) {
	dir := t.TempDir()
	writeTestStore(t, dir, func(int, int) store.Result { return store.Result{R2: 0.5, MSE: 1} })
	var out bytes.Buffer
	if err := checkTo(&out, []string{"--data", dir}); err != nil {
		t.Fatalf("healthy store: %v\n%s", err, &out)
	}
	for _, want := range []string{filepath.Join(dir, store.FileName), "schema " + store.SchemaVersion,
		"1 sweeps, 2 draws, 2 pipelines, 8 results", "ok: no damage found"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("healthy store: output lacks %q:\n%s", want, &out)
		}
	}

	path := filepath.Join(dir, store.FileName)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(bytes.Repeat([]byte{0xA5}, 32), 16); err != nil { // meta page 0
		t.Fatal(err)
	}
	f.Close()
	out.Reset()
	err = checkTo(&out, []string{"--data", dir})
	if !errors.Is(err, store.ErrCorrupt) || !strings.Contains(out.String(), "DAMAGED: 1 problems") ||
		!strings.Contains(out.String(), "meta page 0") {
		t.Errorf("damaged meta page: %v\n%s", err, &out)
	}

	empty := t.TempDir()
	if err := os.WriteFile(filepath.Join(empty, store.FileName), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := checkTo(&out, []string{"--data", empty}); !errors.Is(err, store.ErrCorrupt) || !strings.Contains(out.String(), "empty") {
		t.Errorf("empty file: %v\n%s", err, &out)
	}

	if err := runCheck(nil); err == nil || !strings.Contains(err.Error(), "--data") {
		t.Errorf("without --data: %v", err)
	}
}
