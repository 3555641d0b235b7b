package worker

import (
	"context"
	"fmt"
	"sync"

	"github.com/misslab/misslab/internal/experiment"
	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/methodid"
	"github.com/misslab/misslab/internal/sim"
)

func init() {
	Register("experiment", func() Executor { return NewExperiment(1, nil) })
}

// TablePaths finds the local, verified copy of a table by its hex
// SHA-256 (a *TableStore does).
type TablePaths interface {
	Path(sha256 string) (string, bool)
}

// Experiment runs jobs for real through experiment.Run: it draws the data
// once and fits and scores every pipeline, each learner using Threads
// threads (the worker's parallelism comes from running jobs side by side).
// A table sweep's table is read from Tables (the worker fetches it
// before the sweep's jobs run) once per sweep and shared by its jobs.
//
// Pipelines with external methods run through Methods, scoped to the
// job's sweep so that a method process never serves two sweeps.
type Experiment struct {
	Threads int
	Tables  TablePaths
	Methods SweepMethods // nil: pipelines with external methods fail here
	designs *designCache // nil: read the table for every job
	ids     *sweepIDs    // nil: hash the sweep for every job
}

// SweepMethods runs external methods for one sweep at a time (a
// *methods.Runner does).
type SweepMethods interface {
	ForSweep(sweepID string) learn.MethodRunner
	// Offers reports whether m (name, kind and identity) is one of the
	// methods this worker runs.
	Offers(m methodid.Method) bool
}

// NewExperiment returns an Experiment that reads each table once.
func NewExperiment(threads int, tables TablePaths) Experiment {
	return Experiment{Threads: threads, Tables: tables, designs: newDesignCache(), ids: &sweepIDs{m: map[*grid.Sweep]string{}}}
}

// Execute implements Executor. A pipeline cut short by ctx makes the whole
// job an error, so that a cancelled run is never stored as a score. A
// table that cannot be read is an error of the whole job too (another
// worker may hold a good copy).
func (e Experiment) Execute(ctx context.Context, sw *grid.Sweep, scenario, unit int, pipelines []int) ([]Result, error) {
	rep, fold := sw.Fold(unit)
	job := experiment.Job{Seed: sw.Seed, Scenario: sw.Scenarios[scenario], Rep: rep, Fold: fold}
	for _, p := range pipelines {
		job.Pipelines = append(job.Pipelines, sw.Pipelines[p])
	}
	if ref := job.Scenario.Table; ref != nil {
		d, err := e.design(ctx, ref, sim.IsClassification(job.Scenario.Task))
		if err != nil {
			return nil, err
		}
		job.Design = d
	}
	env := learn.Env{Threads: e.Threads}
	if err := e.canRun(job.Pipelines); err != nil {
		return nil, err
	}
	if e.Methods != nil && len(sw.Methods()) > 0 {
		env.Methods = e.Methods.ForSweep(e.ids.of(sw))
	}
	rs := experiment.Run(ctx, job, env)
	if len(rs) != len(pipelines) {
		return nil, fmt.Errorf("experiment returned %d results for %d pipelines", len(rs), len(pipelines))
	}
	out := make([]Result, len(rs))
	for i, r := range rs {
		if r.ErrKind == experiment.KindCanceled {
			return nil, fmt.Errorf("job cancelled: %s", r.ErrMsg)
		}
		out[i] = Result{Pipeline: pipelines[i], R2: r.R2, MSE: r.MSE, MAE: r.MAE, FitSeconds: r.FitSeconds,
			PredictSeconds: r.PredictSeconds, ErrKind: r.ErrKind, ErrMsg: r.ErrMsg,
			Root: r.Root, RootThreshold: r.RootThreshold,
			ImputeRMSETrain: r.ImputeRMSETrain, ImputeRMSETest: r.ImputeRMSETest, Class: r.Class}
	}
	return out, nil
}

// canRun refuses, as an error of the whole job (so that it goes to
// another worker rather than being stored as failed pipelines), a job
// naming an external method this worker does not run with that identity.
// The coordinator leases such jobs only to workers offering them, so
// this guards against a mismatch, such as a methods file edited under a
// running worker's feet.
func (e Experiment) canRun(ps []grid.Pipeline) error {
	for _, p := range ps {
		for _, m := range p.Methods() {
			if e.Methods == nil || !e.Methods.Offers(m) {
				return fmt.Errorf("this worker does not run method %q with identity %.16s (worker --methods)", m.Name, m.ID)
			}
		}
	}
	return nil
}

// WithMethods returns e running external methods with m when e is an
// Experiment (or a Slow around one); other executors are returned
// unchanged.
func WithMethods(e Executor, m SweepMethods) Executor {
	switch x := e.(type) {
	case Experiment:
		x.Methods = m
		return x
	case Slow:
		x.Executor = WithMethods(x.Executor, m)
		return x
	}
	return e
}

// sweepIDs remembers the content hash of the sweeps a worker runs (a
// worker keeps one *grid.Sweep per sweep it has the spec of).
type sweepIDs struct {
	mu sync.Mutex
	m  map[*grid.Sweep]string
}

// of returns sw's id, sw.Hash(), computed once per sweep.
func (s *sweepIDs) of(sw *grid.Sweep) string {
	if s == nil {
		return sw.Hash()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.m[sw]
	if !ok {
		id = sw.Hash()
		s.m[sw] = id
	}
	return id
}

// WithTables returns e reading tables from t when e is an Experiment
// (or a Slow around one) without a table store; other executors are
// returned unchanged.
func WithTables(e Executor, t *TableStore) Executor {
	switch x := e.(type) {
	case Experiment:
		if x.Tables == nil && t != nil {
			x.Tables = t
		}
		return x
	case Slow:
		x.Executor = WithTables(x.Executor, t)
		return x
	}
	return e
}
