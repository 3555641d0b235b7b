package verify

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/misslab/misslab/internal/experiment"
	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/store"
	"github.com/misslab/misslab/internal/storeconv"
)

// ErrDiffer is wrapped by Stored's error when a recomputed score is not
// the stored one.
var ErrDiffer = errors.New("verify: a recomputed score differs from the stored one")

// ErrNothing is wrapped by Stored's error when the store holds no result
// it can recompute.
var ErrNothing = errors.New("verify: no stored result to recompute")

// sample is one stored job chosen for recomputation.
type sample struct {
	sweep     *grid.Sweep
	scenario  int
	rep       int
	pipelines []int
	stored    []store.Result
}

// Stored recomputes, under the running build with one thread, up to jobs
// stored jobs (each from a different scenario: the first stored
// repetition of the simulated sweeps' scenarios, fewest training rows
// first) and
// compares every successful stored score of their internal pipelines
// with the recomputed one, bit for bit: R², MSE, MAE, the imputation
// RMSEs, the root split and its threshold. Table sweeps and pipelines
// with external methods are skipped: their inputs are not all in the
// store. It returns the number of scores compared. Errors wrap ErrDiffer
// (naming the sweep, scenario, repetition, pipeline and field),
// ErrNothing, the store's errors, or are the context's.
func Stored(ctx context.Context, st *store.Store, jobs int) (int, error) {
	samples, err := choose(st, jobs)
	if err != nil {
		return 0, err
	}
	if len(samples) == 0 {
		return 0, ErrNothing
	}
	compared := 0
	for _, s := range samples {
		n, err := recompute(ctx, s)
		compared += n
		if err != nil {
			return compared, err
		}
	}
	return compared, nil
}

// choose picks the samples: of every simulated sweep's scenarios, the
// first stored repetition, the jobs with the fewest training rows first
// (then in store and grid order), so that verifying stays quick.
func choose(st *store.Store, jobs int) ([]sample, error) {
	recs, err := storeconv.Sweeps(st)
	if err != nil {
		return nil, err
	}
	var out []sample
	for _, rec := range recs {
		sw := rec.Spec
		if sw.IsTable() {
			continue
		}
		err := st.SweepResults(rec.Stored, func(job, si, rep, pi int, r store.Result) error {
			n := len(out)
			if n == 0 || out[n-1].sweep != sw || out[n-1].scenario != si {
				out, n = append(out, sample{sweep: sw, scenario: si, rep: rep}), n+1
			}
			if out[n-1].rep == rep {
				out[n-1].add(pi, r)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(out, func(a, b sample) int {
		return cmp.Compare(a.sweep.Scenarios[a.scenario].NTrain, b.sweep.Scenarios[b.scenario].NTrain)
	})
	return out[:min(jobs, len(out))], nil
}

// add keeps pipeline pi's stored result if it can be compared: a success
// of a pipeline without external methods.
func (s *sample) add(pi int, r store.Result) {
	if r.ErrKind != "" || len(s.sweep.Pipelines[pi].Methods()) > 0 {
		return
	}
	s.pipelines, s.stored = append(s.pipelines, pi), append(s.stored, r)
}

// recompute runs s's pipelines again and compares their scores with the
// stored ones, returning how many results it compared.
func recompute(ctx context.Context, s sample) (int, error) {
	if len(s.pipelines) == 0 {
		return 0, nil
	}
	job := experiment.Job{Seed: s.sweep.Seed, Scenario: s.sweep.Scenarios[s.scenario], Rep: s.rep}
	for _, pi := range s.pipelines {
		job.Pipelines = append(job.Pipelines, s.sweep.Pipelines[pi])
	}
	for i, r := range experiment.Run(ctx, job, learn.Env{Threads: 1}) {
		if err := ctx.Err(); err != nil {
			return i, err
		}
		if field, ok := same(s.stored[i], r); !ok {
			return i + 1, fmt.Errorf("%w: sweep %q, scenario %d, repetition %d, %s: %s",
				ErrDiffer, s.sweep.Name, s.scenario, s.rep, r.Pipeline, field)
		}
	}
	return len(s.pipelines), nil
}

// same compares a stored success with its recomputation; when they
// differ it names the first field that does.
func same(st store.Result, r experiment.Result) (string, bool) {
	if r.ErrKind != "" {
		return fmt.Sprintf("stored a score, recomputed %s: %s", r.ErrKind, r.ErrMsg), false
	}
	fields := []struct {
		name        string
		stored, now float64
	}{
		{"R²", st.R2, r.R2}, {"MSE", st.MSE, r.MSE}, {"MAE", st.MAE, r.MAE},
		{"imputation RMSE (train)", st.ImputeRMSETrain, r.ImputeRMSETrain},
		{"imputation RMSE (test)", st.ImputeRMSETest, r.ImputeRMSETest},
		{"root threshold", st.RootThreshold, r.RootThreshold},
	}
	for _, f := range fields {
		if math.Float64bits(f.stored) != math.Float64bits(f.now) && !(math.IsNaN(f.stored) && math.IsNaN(f.now)) {
			return fmt.Sprintf("%s stored %v (%#x), recomputed %v (%#x)", f.name, f.stored,
				math.Float64bits(f.stored), f.now, math.Float64bits(f.now)), false
		}
	}
	if st.Root != r.Root {
		return fmt.Sprintf("root split stored %q, recomputed %q", st.Root, r.Root), false
	}
	return "", true
}
