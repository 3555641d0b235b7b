package worker

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/misslab/misslab/internal/experiment"
	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/sim"
)

func smallSweep(t *testing.T, pipes ...string) *grid.Sweep {
	t.Helper()
	sc, err := sim.Defaults(sim.Quadratic)
	if err != nil {
		t.Fatal(err)
	}
	sc.NTrain, sc.NTest = 100, 100
	sw := &grid.Sweep{Seed: 3, Repetitions: 2, Scenarios: []sim.Scenario{sc}}
	for _, p := range pipes {
		sw.Pipelines = append(sw.Pipelines, grid.MustPipeline(p, nil))
	}
	return sw
}

// TestDeterministicDependsOnIdentityOnly: a pipeline's fake scores do not
// depend on which other pipelines run with it or in which order, and do
// depend on the repetition.
func TestDeterministicDependsOnIdentityOnly(t *testing.T) {
	sw := smallSweep(t, "tree/mia", "tree/mean", "svm/mean")
	all, err := Deterministic{}.Execute(context.Background(), sw, 0, 1, []int{0, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	one, _ := Deterministic{}.Execute(context.Background(), sw, 0, 1, []int{2})
	other, _ := Deterministic{}.Execute(context.Background(), sw, 0, 0, []int{2})
	if one[0].R2 != all[2].R2 || one[0].MSE != all[2].MSE || one[0].Pipeline != 2 || all[2].Pipeline != 2 {
		t.Fatalf("alone %+v, with others %+v", one[0], all[2])
	}
	if other[0].R2 == one[0].R2 {
		t.Fatal("repetitions 0 and 1 share a score")
	}
	for _, r := range all {
		if !(r.R2 >= 0 && r.R2 < 1 && r.MSE >= 0 && r.MSE < 1) {
			t.Fatalf("score outside [0, 1): %+v", r)
		}
	}
}

func TestSlowHonoursCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	_, err := Slow{Executor: Noop{}, Delay: time.Hour}.Execute(ctx, smallSweep(t, "tree/mia"), 0, 0, []int{0})
	if err == nil || time.Since(start) > time.Second {
		t.Fatalf("err %v after %v", err, time.Since(start))
	}
	if _, err := NewExecutor("nope"); err == nil {
		t.Fatal("unknown executor accepted")
	}
	for _, name := range []string{"noop", "deterministic", "experiment"} {
		if _, err := NewExecutor(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestExperimentAdapterIsFaithful: the adapter returns exactly what
// experiment.Run computes, pipeline by pipeline, for a subset of the
// sweep's pipelines; a cancelled job is an error, never a stored score.
func TestExperimentAdapterIsFaithful(t *testing.T) {
	sw := smallSweep(t, "linear/mean", "linear/median")
	got, err := Experiment{Threads: 1}.Execute(context.Background(), sw, 0, 1, []int{1})
	if err != nil {
		t.Fatal(err)
	}
	want := experiment.Run(context.Background(), experiment.Job{Seed: sw.Seed, Scenario: sw.Scenarios[0], Rep: 1,
		Pipelines: sw.Pipelines[1:]}, learn.Env{Threads: 1})
	if len(got) != 1 || got[0].Pipeline != 1 || math.Float64bits(got[0].R2) != math.Float64bits(want[0].R2) ||
		math.Float64bits(got[0].MSE) != math.Float64bits(want[0].MSE) || got[0].ErrKind != want[0].ErrKind {
		t.Fatalf("adapter %+v, experiment %+v", got, want)
	}
	if got[0].ErrKind != "" || !(got[0].R2 < 1) || !(got[0].MSE > 0) {
		t.Fatalf("implausible score %+v", got[0])
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (Experiment{}).Execute(ctx, sw, 0, 0, []int{0}); err == nil {
		t.Fatal("a cancelled job returned scores")
	}
}
