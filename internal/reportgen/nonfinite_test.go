package reportgen

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/misslab/misslab/internal/report"
	"github.com/misslab/misslab/internal/store"
)

// TestNonFiniteStoredResultsAreFailures: a store written before results
// were checked at the RPC boundary may hold NaN or ±Inf scores and
// negative times. Each such result becomes a failed pipeline run naming
// the field and value; the rest of the sweep reports as usual, figures
// included.
func TestNonFiniteStoredResultsAreFailures(t *testing.T) {
	sw := parseSweep(t, curveGrid)
	bad := map[int]func(*store.Result){ // job → how its first pipeline's result is broken
		0: func(r *store.Result) { r.R2 = math.NaN() },
		1: func(r *store.Result) { r.MSE = math.Inf(1) },
		2: func(r *store.Result) { r.FitSeconds = math.Inf(-1) },
		3: func(r *store.Result) { r.PredictSeconds = -1 },
		4: func(r *store.Result) { r.RootThreshold = math.NaN() },
	}
	st, rec := fill(t, sw, func(si, rep, pi int) (store.Result, bool, string) {
		r := score(0.6 + 0.01*float64(rep) + 0.001*float64(pi))
		if f := bad[rep*len(sw.Scenarios)+si]; f != nil && pi == 0 {
			f(&r)
		}
		return r, true, ""
	})
	in, err := Build(context.Background(), st, rec)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	var msgs []string
	for _, f := range in.Failures {
		msgs = append(msgs, f.Message)
	}
	for _, want := range []string{"invalid-result: stored r2 is NaN", "invalid-result: stored mse is +Inf",
		"invalid-result: stored fit_seconds is -Inf", "invalid-result: stored predict_seconds is -1",
		"invalid-result: stored root_threshold is NaN"} {
		n := 0
		for _, m := range msgs {
			if strings.HasPrefix(m, want) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("failures %q: want one starting %q", msgs, want)
		}
	}
	failed := 0
	for _, r := range in.Records {
		if r.Failed {
			failed++
			continue
		}
		for _, v := range []float64{r.R2, r.MSE, r.FitSeconds, r.PredictSeconds} {
			if math.IsNaN(v) || math.IsInf(v, 0) || r.FitSeconds < 0 || r.PredictSeconds < 0 {
				t.Fatalf("record %+v kept a bad number", r)
			}
		}
	}
	if failed != len(bad) || len(in.Failures) != len(bad) {
		t.Errorf("%d failed records, %d failures; want %d of each", failed, len(in.Failures), len(bad))
	}
	if in.Jobs != (report.Jobs{Planned: 12, Done: 12}) {
		t.Errorf("jobs %+v", in.Jobs)
	}
	if _, err := report.Write(context.Background(), t.TempDir(), in); err != nil {
		t.Fatalf("report.Write: %v", err)
	}
}

// TestNonFiniteStoredResultsWrite: the whole report of a sweep with a
// stored NaN builds and renders (it failed before as a whole).
func TestNonFiniteStoredResultsWrite(t *testing.T) {
	sw := parseSweep(t, curveGrid)
	st, rec := fill(t, sw, func(si, rep, pi int) (store.Result, bool, string) {
		r := score(0.6 + 0.01*float64(rep))
		if si == 0 && rep == 0 && pi == 1 {
			r.R2, r.MSE = math.NaN(), math.NaN()
		}
		return r, true, ""
	})
	if _, err := Write(context.Background(), st, rec, t.TempDir()); err != nil {
		t.Fatalf("Write: %v", err)
	}
}
