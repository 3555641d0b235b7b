package worker

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/stats"
)

// Result is the outcome of one pipeline on one job. ErrKind is empty on
// success; otherwise the numbers are zero and ErrMsg says why.
type Result struct {
	Pipeline     int // index into the sweep's pipelines
	R2, MSE, MAE float64
	// ImputeRMSETrain and ImputeRMSETest: see experiment.Result; NaN
	// where they do not apply.
	ImputeRMSETrain, ImputeRMSETest float64
	FitSeconds, PredictSeconds      float64 // wall-clock seconds
	ErrKind, ErrMsg                 string
	Root                            string  // a tree's first split variable, or empty
	RootThreshold                   float64 // its threshold
	// Class holds a classification task's scores (R2, MSE and MAE are
	// then NaN); nil for regression.
	Class *stats.ClassScores
}

// Executor runs jobs.
type Executor interface {
	// Execute draws unit `rep` (a repetition, or a fold of a table
	// sweep's repetition: see grid.Sweep.Fold) of scenario number
	// scenario of sw once and runs the listed pipelines (indices into sw.Pipelines) on it,
	// returning one Result per listed pipeline, in order. A pipeline's own
	// failure is a Result with ErrKind set; an error means the job failed
	// as a whole and will be retried elsewhere up to the delivery limit.
	Execute(ctx context.Context, sw *grid.Sweep, scenario, rep int, pipelines []int) ([]Result, error)
}

var (
	registryMu sync.Mutex
	registry   = map[string]func() Executor{}
)

// Register makes an executor available by name to NewExecutor.
func Register(name string, f func() Executor) {
	registryMu.Lock()
	defer registryMu.Unlock()
	registry[name] = f
}

// NewExecutor returns the executor registered under name: "noop",
// "deterministic" and, when built in, "experiment".
func NewExecutor(name string) (Executor, error) {
	registryMu.Lock()
	defer registryMu.Unlock()
	f := registry[name]
	if f == nil {
		names := make([]string, 0, len(registry))
		for n := range registry {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("worker: unknown executor %q (have %v)", name, names)
	}
	return f(), nil
}

func init() {
	Register("noop", func() Executor { return Noop{} })
	Register("deterministic", func() Executor { return Deterministic{} })
}

// Noop returns zero scores at once; it measures the machinery's overhead.
type Noop struct{}

// Execute implements Executor.
func (Noop) Execute(_ context.Context, _ *grid.Sweep, _, _ int, pipelines []int) ([]Result, error) {
	out := make([]Result, len(pipelines))
	for i, p := range pipelines {
		out[i] = Result{Pipeline: p, ImputeRMSETrain: math.NaN(), ImputeRMSETest: math.NaN()}
	}
	return out, nil
}

// Slow wraps an executor and waits Delay before each job (honouring ctx),
// so that tests can interrupt a cluster mid-sweep.
type Slow struct {
	Executor
	Delay time.Duration
}

// Execute implements Executor.
func (s Slow) Execute(ctx context.Context, sw *grid.Sweep, scenario, rep int, pipelines []int) ([]Result, error) {
	if err := sleep(ctx, s.Delay); err != nil {
		return nil, err
	}
	return s.Executor.Execute(ctx, sw, scenario, rep, pipelines)
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Deterministic is a stand-in for the real experiment in tests: each
// pipeline's R² and MSE are pseudo-random numbers drawn from SHA-256 of
// (seed, scenario canonical encoding, repetition, pipeline canonical name)
// and nothing else, so scores are bit-identical wherever and however
// often a job runs.
type Deterministic struct{}

// Execute implements Executor.
func (Deterministic) Execute(_ context.Context, sw *grid.Sweep, scenario, rep int, pipelines []int) ([]Result, error) {
	out := make([]Result, len(pipelines))
	for i, p := range pipelines {
		out[i] = Result{Pipeline: p, ImputeRMSETrain: math.NaN(), ImputeRMSETest: math.NaN()}
		out[i].R2, out[i].MSE = DeterministicScores(sw.Seed, sw.Scenarios[scenario].Canonical(), rep, sw.Pipelines[p].Canonical())
	}
	return out, nil
}

// DeterministicScores returns the (R², MSE) that Deterministic reports:
// R² uniform in [0, 1) and MSE uniform in [0, 1), from the job identity.
func DeterministicScores(seed uint64, scenario string, rep int, pipeline string) (r2, mse float64) {
	h := sha256.Sum256([]byte(strconv.FormatUint(seed, 10) + "\x00" + scenario + "\x00" + strconv.Itoa(rep) + "\x00" + pipeline))
	u := func(b []byte) float64 { return float64(binary.BigEndian.Uint64(b)>>11) * math.Ldexp(1, -53) }
	return u(h[:8]), u(h[8:16])
}
