package reportgen

import (
	"testing"
	"time"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/store"
	"github.com/misslab/misslab/internal/storeconv"
)

// parseSweep parses a grid file holding one sweep.
func parseSweep(t *testing.T, src string) *grid.Sweep {
	t.Helper()
	f, err := grid.Parse([]byte(src), "test.hcl", grid.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return f.Sweeps[0]
}

// resultFunc gives the stored outcome of one (scenario, rep, pipeline):
// ok false stores nothing; a non-empty failure fails the whole job.
type resultFunc func(si, rep, pi int) (r store.Result, ok bool, failure string)

// fill stores sw in a new store and commits the results fn gives.
func fill(t *testing.T, sw *grid.Sweep, fn resultFunc) (*store.Store, storeconv.Record) {
	t.Helper()
	st := newStore(t)
	return st, fillInto(t, st, sw, fn)
}

// newStore opens an empty store, closed when the test ends.
func newStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(t.TempDir(), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// fillInto stores sw in st and commits the results fn gives.
func fillInto(t *testing.T, st *store.Store, sw *grid.Sweep, fn resultFunc) storeconv.Record {
	t.Helper()
	rec := storeconv.New(sw, time.Now())
	if err := st.PutSweep(rec.StoreRecord()); err != nil {
		t.Fatal(err)
	}
	var recs []store.Record
	for job := range sw.Jobs() {
		si, rep := sw.Job(job)
		r := store.Record{SweepID: rec.ID, Job: job, Draw: storeconv.DrawKey(sw.Seed, sw.Scenarios[si]), Rep: rep}
		for pi, p := range sw.Pipelines {
			res, ok, failure := fn(si, rep, pi)
			if failure != "" {
				r = store.Record{SweepID: rec.ID, Job: job, Failure: failure}
				break
			}
			if ok {
				r.Pipes = append(r.Pipes, storeconv.PipeKey(p))
				r.Results = append(r.Results, res)
			}
		}
		if r.Failure != "" || len(r.Pipes) > 0 {
			recs = append(recs, r)
		}
	}
	if err := st.Commit(recs); err != nil {
		t.Fatal(err)
	}
	return rec
}

func score(v float64) store.Result {
	return store.Result{R2: v, MSE: 1 - v, FitSeconds: 0.01, PredictSeconds: 0.001}
}
