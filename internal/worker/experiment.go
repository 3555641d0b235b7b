package worker

import (
	"context"
	"fmt"

	"github.com/misslab/misslab/internal/experiment"
	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/learn"
)

func init() {
	Register("experiment", func() Executor { return Experiment{Threads: 1} })
}

// Experiment runs jobs for real through experiment.Run: it draws the data
// once and fits and scores every pipeline, each learner using Threads
// threads (the worker's parallelism comes from running jobs side by side).
type Experiment struct {
	Threads int
}

// Execute implements Executor. A pipeline cut short by ctx makes the whole
// job an error, so that a cancelled run is never stored as a score.
func (e Experiment) Execute(ctx context.Context, sw *grid.Sweep, scenario, rep int, pipelines []int) ([]Result, error) {
	job := experiment.Job{Seed: sw.Seed, Scenario: sw.Scenarios[scenario], Rep: rep}
	for _, p := range pipelines {
		job.Pipelines = append(job.Pipelines, sw.Pipelines[p])
	}
	rs := experiment.Run(ctx, job, learn.Env{Threads: e.Threads})
	if len(rs) != len(pipelines) {
		return nil, fmt.Errorf("experiment returned %d results for %d pipelines", len(rs), len(pipelines))
	}
	out := make([]Result, len(rs))
	for i, r := range rs {
		if r.ErrKind == experiment.KindCanceled {
			return nil, fmt.Errorf("job cancelled: %s", r.ErrMsg)
		}
		out[i] = Result{Pipeline: pipelines[i], R2: r.R2, MSE: r.MSE, FitSeconds: r.FitSeconds,
			PredictSeconds: r.PredictSeconds, ErrKind: r.ErrKind, ErrMsg: r.ErrMsg,
			Root: r.Root, RootThreshold: r.RootThreshold}
	}
	return out, nil
}
