package verify

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/misslab/misslab/internal/experiment"
	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/sim"
	"github.com/misslab/misslab/internal/store"
	"github.com/misslab/misslab/internal/storeconv"
)

// testSweep is two small quadratic scenarios (160 and 120 training
// rows) × 2 repetitions of a tree,
// a forest of 50 trees under MIA, KNN after Gaussian imputation and the
// Bayes oracle.
func testSweep(t *testing.T) *grid.Sweep {
	t.Helper()
	sw := &grid.Sweep{Name: "verify", Seed: 5, Repetitions: 2}
	for i, rate := range []float64{0.1, 0.3} {
		sc, err := sim.Defaults(sim.Quadratic)
		if err != nil {
			t.Fatal(err)
		}
		sc.NTrain, sc.NTest, sc.Rate = 160-40*i, 60, rate // the second scenario is the smaller
		sw.Scenarios = append(sw.Scenarios, sc)
	}
	sw.Pipelines = []grid.Pipeline{grid.MustPipeline("tree/mean", nil),
		grid.MustPipeline("forest/mia", map[string]float64{"trees": 50}),
		grid.MustPipeline("knn/gaussian", nil), grid.MustPipeline("bayes/oracle", nil)}
	return sw
}

// stored opens a store holding sw's results as a worker computes them,
// with the result of (scenario 0, repetition 0, pipeline 1) passed
// through edit before it is stored.
func stored(t *testing.T, sw *grid.Sweep, edit func(*store.Result)) *store.Store {
	t.Helper()
	st, err := store.Open(t.TempDir(), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	id := sw.Hash()
	if err := st.PutSweep(storeconv.New(sw, time.Now()).StoreRecord()); err != nil {
		t.Fatal(err)
	}
	var recs []store.Record
	for job := range sw.Jobs() {
		si, rep := sw.Job(job)
		rec := store.Record{SweepID: id, Job: job, Draw: storeconv.DrawKey(sw.Seed, sw.Scenarios[si]), Rep: rep}
		ej := experiment.Job{Seed: sw.Seed, Scenario: sw.Scenarios[si], Rep: rep, Pipelines: sw.Pipelines}
		for pi, r := range experiment.Run(context.Background(), ej, learn.Env{Threads: 2}) {
			res := store.Result{R2: r.R2, MSE: r.MSE, MAE: r.MAE, ErrKind: r.ErrKind, ErrMsg: r.ErrMsg, Root: r.Root,
				RootThreshold: r.RootThreshold, ImputeRMSETrain: r.ImputeRMSETrain, ImputeRMSETest: r.ImputeRMSETest,
				FitSeconds: r.FitSeconds, PredictSeconds: r.PredictSeconds}
			if si == 0 && rep == 0 && pi == 1 && edit != nil {
				edit(&res)
			}
			rec.Pipes, rec.Results = append(rec.Pipes, storeconv.PipeKey(sw.Pipelines[pi])), append(rec.Results, res)
		}
		recs = append(recs, rec)
	}
	if err := st.Commit(recs); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestStoredAgreesWithItsOwnResults recomputes results this build stored
// (with 2 threads, recomputed with one): every score agrees, one job per
// scenario up to the limit.
func TestStoredAgreesWithItsOwnResults(t *testing.T) {
	st := stored(t, testSweep(t), nil)
	for _, c := range []struct{ jobs, want int }{{1, 4}, {3, 8}} {
		n, err := Stored(context.Background(), st, c.jobs)
		if err != nil || n != c.want {
			t.Fatalf("Stored(%d jobs) = %d, %v; want %d scores compared, nil", c.jobs, n, err, c.want)
		}
	}
}

// TestStoredFindsADifferentBit changes the last bit of one stored score,
// or its root, or stores a failure where a score was: the first two are
// reported naming the pipeline and field, the failure is skipped.
func TestStoredFindsADifferentBit(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(*store.Result)
		field string // "" when the edit must pass
	}{
		{"R²", func(r *store.Result) { r.R2 = math.Nextafter(r.R2, 2) }, "R²"},
		{"MAE", func(r *store.Result) { r.MAE = math.Nextafter(r.MAE, 0) }, "MAE"},
		{"imputation", func(r *store.Result) { r.ImputeRMSETrain = 0.5 }, "imputation RMSE (train)"}, // MIA's is NaN
		{"a stored failure", func(r *store.Result) { *r = store.Result{ErrKind: "fit", ErrMsg: "boom"} }, ""},
	}
	for _, c := range cases {
		st := stored(t, testSweep(t), c.edit)
		n, err := Stored(context.Background(), st, 3)
		if c.field == "" {
			if err != nil || n != 7 {
				t.Errorf("%s: %d, %v; want 7 scores compared, nil", c.name, n, err)
			}
			continue
		}
		if !errors.Is(err, ErrDiffer) || !strings.Contains(err.Error(), "forest/mia") || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: %v; want ErrDiffer naming forest/mia and %s", c.name, err, c.field)
		}
	}
}

func TestStoredNeedsAResult(t *testing.T) {
	st, err := store.Open(t.TempDir(), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := Stored(context.Background(), st, 3); !errors.Is(err, ErrNothing) {
		t.Fatalf("Stored on an empty store: %v, want ErrNothing", err)
	}
}

// TestStoredStartsWithTheSmallestScenario changes a score of the larger
// scenario: a one-job check recomputes only the smaller one and passes,
// a two-job check finds the change.
func TestStoredStartsWithTheSmallestScenario(t *testing.T) {
	st := stored(t, testSweep(t), func(r *store.Result) { r.R2 = math.Nextafter(r.R2, 2) })
	if n, err := Stored(context.Background(), st, 1); err != nil || n != 4 {
		t.Fatalf("Stored(1 job) = %d, %v; want the 4 scores of the smaller scenario, nil", n, err)
	}
	if _, err := Stored(context.Background(), st, 2); !errors.Is(err, ErrDiffer) {
		t.Fatalf("Stored(2 jobs) = %v, want ErrDiffer from the larger scenario", err)
	}
}
