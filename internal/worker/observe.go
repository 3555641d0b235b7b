package worker

import (
	"context"
	"time"

	"github.com/misslab/misslab/internal/grid"
)

// Observer hears the jobs an executor runs, for metrics (package metrics
// implements it with Prometheus collectors). Its methods are called from
// the goroutines that run jobs, several at once: they must be safe for
// concurrent use, fast, and must not block.
type Observer interface {
	// JobStarted is called as a job starts, before the executor runs it.
	JobStarted()
	// JobRan is called when the executor returns, with its error: nil
	// when the job ran (its pipelines may still have failed), non-nil
	// when it failed as a whole.
	JobRan(err error)
	// PipelineRan is called after JobRan(nil), once per result in order,
	// with the result's pipeline name (grid.Pipeline.Name, e.g.
	// "forest/mia"), its fit time in wall-clock seconds and whether the
	// pipeline failed (ErrKind set). A result whose index names no
	// pipeline of the sweep is skipped (the worker rejects it itself).
	PipelineRan(pipeline string, fitSeconds float64, failed bool)
	// JobEnded is called last, with the job's wall-clock time, even
	// when the executor panics.
	JobEnded(took time.Duration)
}

// Observe returns exec reporting each job it runs to obs.
func Observe(exec Executor, obs Observer) Executor {
	return &observed{Executor: exec, obs: obs}
}

type observed struct {
	Executor
	obs Observer
}

// Execute implements Executor.
func (o *observed) Execute(ctx context.Context, sw *grid.Sweep, scenario, rep int, pipelines []int) ([]Result, error) {
	o.obs.JobStarted()
	start := time.Now()
	defer func() { o.obs.JobEnded(time.Since(start)) }()
	out, err := o.Executor.Execute(ctx, sw, scenario, rep, pipelines)
	o.obs.JobRan(err)
	if err != nil {
		return out, err
	}
	for _, r := range out {
		if r.Pipeline < 0 || r.Pipeline >= len(sw.Pipelines) {
			continue
		}
		o.obs.PipelineRan(sw.Pipelines[r.Pipeline].Name(), r.FitSeconds, r.ErrKind != "")
	}
	return out, nil
}
