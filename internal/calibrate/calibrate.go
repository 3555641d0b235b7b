package calibrate

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/misslab/misslab/internal/experiment"
	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/plan"
	"github.com/misslab/misslab/internal/sim"
	"github.com/misslab/misslab/internal/stats"
)

// Factor is one learner family's calibration: the mean over its
// pipelines of the median measured seconds of one fit + prediction, and
// of the model's estimate for the same fits without the imputer's cost
// (the levels were set that way: plan's TestDefaultCostModelFigure3).
type Factor struct {
	Learner            string
	Measured, Modelled float64 // seconds
}

// Ratio is Measured / Modelled: how much slower (> 1) this machine is
// than the model's machine for the family.
func (f Factor) Ratio() float64 { return f.Measured / f.Modelled }

// Model times reps repetitions (at least 1; each takes about 1.5 s) of
// experiment.Figure3Pipelines, the mix plan.DefaultCostModel's levels
// were set on, on Figure 3's MCAR scenario (quadratic model, d = 9, 20%
// MCAR on X1..X3, n_train = n_test = 1000, one thread) and returns base
// with each family's level (PowerLaw.Seconds) scaled by its Factor's
// ratio, with the factors by family in the pipelines' order. Growth
// exponents, bends, width and missing scalings, imputers and the per-job
// cost are kept: they are ratios, which machines share far better than
// levels. base is not modified. Errors are the context's, or a
// pipeline's failure (a bug).
func Model(ctx context.Context, base plan.CostModel, reps int) (plan.CostModel, []Factor, error) {
	sc, err := sim.Defaults(sim.Quadratic)
	if err != nil {
		return base, nil, err
	}
	job := experiment.Job{Seed: 1, Scenario: sc, Pipelines: experiment.Figure3Pipelines()}
	times, err := measure(ctx, job, max(reps, 1))
	if err != nil {
		return base, nil, err
	}
	factors := familyMeans(base, job, times)
	out := base
	out.Learners = maps.Clone(base.Learners)
	for _, f := range factors {
		law, ok := out.Learners[f.Learner]
		if !ok || !(f.Modelled > 0 && f.Measured > 0) {
			return base, nil, fmt.Errorf("calibrate: %s: no positive time to scale (modelled %g s, measured %g s)", f.Learner, f.Modelled, f.Measured)
		}
		law.Seconds *= f.Ratio()
		out.Learners[f.Learner] = law
	}
	return out, factors, nil
}

// familyMeans returns, per learner family of job's pipelines in order,
// the mean over its pipelines of their median measured seconds and of
// base's estimate for the same fit without the imputer's cost.
func familyMeans(base plan.CostModel, job experiment.Job, times [][]float64) []Factor {
	var out []Factor
	var count []float64
	for i, p := range job.Pipelines {
		if len(out) == 0 || out[len(out)-1].Learner != p.Learner() {
			out, count = append(out, Factor{Learner: p.Learner()}), append(count, 0)
		}
		f := &out[len(out)-1]
		count[len(out)-1]++
		f.Measured += stats.Quantile(slices.Sorted(slices.Values(times[i])), 0.5)
		f.Modelled += base.FitSeconds(p, plan.FitShape(job.Scenario, p)) - base.Strategies[p.Spec().Strategy].At(job.Scenario.NTrain)
	}
	for i := range out {
		out[i].Measured /= count[i]
		out[i].Modelled /= count[i]
	}
	return out
}

// measure runs job reps times (repetitions 0, 1, …) and returns each
// pipeline's fit + predict seconds per run.
func measure(ctx context.Context, job experiment.Job, reps int) ([][]float64, error) {
	times := make([][]float64, len(job.Pipelines))
	for rep := range reps {
		job.Rep = rep
		for i, r := range experiment.Run(ctx, job, learn.Env{Threads: 1}) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if r.Failed() {
				return nil, fmt.Errorf("calibrate: %s failed: %s: %s", r.Pipeline, r.ErrKind, r.ErrMsg)
			}
			times[i] = append(times[i], r.FitSeconds+r.PredictSeconds)
		}
	}
	return times, nil
}
