package experiment

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/sim"
)

func scenario(t *testing.T, model string, mutate func(*sim.Scenario)) sim.Scenario {
	t.Helper()
	s, err := sim.Defaults(model)
	if err != nil {
		t.Fatal(err)
	}
	if mutate != nil {
		mutate(&s)
	}
	return s
}

func pipelines(names ...string) []grid.Pipeline {
	out := make([]grid.Pipeline, len(names))
	for i, n := range names {
		out[i] = grid.MustPipeline(n, nil)
	}
	return out
}

// byName indexes results by pipeline and fails on any error.
func byName(t *testing.T, rs []Result) map[string]Result {
	t.Helper()
	m := map[string]Result{}
	for _, r := range rs {
		if r.Failed() {
			t.Fatalf("%s failed: %s: %s", r.Pipeline, r.ErrKind, r.ErrMsg)
		}
		m[r.Pipeline] = r
	}
	return m
}

// TestScoresIndependentOfPipelineOrder checks the reproducibility contract:
// a pipeline's score depends on (seed, scenario, rep, pipeline) only, not
// on which other pipelines share the job or in which order they run.
func TestScoresIndependentOfPipelineOrder(t *testing.T) {
	s := scenario(t, sim.Linear, func(s *sim.Scenario) { s.NTrain, s.NTest = 300, 300 })
	names := []string{"linear/mean", "linear/gaussian+mask", "linear/oor", learn.Bayes + "/" + learn.Oracle}
	a := byName(t, Run(context.Background(), Job{Seed: 7, Scenario: s, Rep: 3, Pipelines: pipelines(names...)}, learn.Env{}))
	rev := slices.Clone(names)
	slices.Reverse(rev)
	b := byName(t, Run(context.Background(), Job{Seed: 7, Scenario: s, Rep: 3, Pipelines: pipelines(rev[:2]...)}, learn.Env{Threads: 4}))
	for name, rb := range b {
		ra := a[name]
		if math.Float64bits(ra.R2) != math.Float64bits(rb.R2) || math.Float64bits(ra.MSE) != math.Float64bits(rb.MSE) {
			t.Errorf("%s: R² %v vs %v, MSE %v vs %v", name, ra.R2, rb.R2, ra.MSE, rb.MSE)
		}
	}
	c := byName(t, Run(context.Background(), Job{Seed: 8, Scenario: s, Rep: 3, Pipelines: pipelines(names[0])}, learn.Env{}))
	if c[names[0]].R2 == a[names[0]].R2 {
		t.Errorf("seed 8 and seed 7 gave the same R² %v: the seed does not reach the data", c[names[0]].R2)
	}
}

// TestOracleMatchesClosedFormBayesR2 checks the scoring path against the
// closed-form Bayes risk of the linear model: the mean test R² of the
// oracle over repetitions must agree with 1 − risk/Var(Y) within four
// standard errors of that mean.
func TestOracleMatchesClosedFormBayesR2(t *testing.T) {
	s := scenario(t, sim.Linear, func(s *sim.Scenario) { s.NTrain, s.NTest, s.Rate = 10, 4000, 0.4 })
	want, se, err := sim.BayesR2(s)
	if err != nil || se != 0 {
		t.Fatalf("BayesR2 = %v ± %v, %v; want an exact value", want, se, err)
	}
	const reps = 40
	r2 := make([]float64, reps)
	for rep := range reps {
		res := byName(t, Run(context.Background(), Job{Seed: 1, Scenario: s, Rep: rep, Pipelines: pipelines("bayes/oracle")}, learn.Env{}))
		r2[rep] = res["bayes/oracle"].R2
	}
	mean, sd := meanSD(r2)
	if d := math.Abs(mean - want); d > 4*sd/math.Sqrt(reps) {
		t.Errorf("mean oracle R² %.5f, closed form %.5f: |diff| %.2g > 4·SE %.2g", mean, want, d, 4*sd/math.Sqrt(reps))
	}
}

func meanSD(x []float64) (mean, sd float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for _, v := range x {
		sd += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(sd / float64(len(x)-1))
}

func TestFailuresAreTypedResults(t *testing.T) {
	good := scenario(t, sim.Quadratic, func(s *sim.Scenario) { s.NTrain, s.NTest = 50, 50 })
	bad := good
	bad.Rate = 1.5
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name     string
		ctx      context.Context
		s        sim.Scenario
		pipeline grid.Pipeline
		kind     string
		msg      string
	}{
		{"bad scenario", context.Background(), bad, grid.MustPipeline("linear/mean", nil), KindData, "rate"},
		{"canceled", canceled, good, grid.MustPipeline("linear/mean", nil), KindCanceled, "canceled"},
		{"no bayes for friedman under censoring", context.Background(), scenario(t, sim.Friedman, func(s *sim.Scenario) {
			s.NTrain, s.NTest, s.Mechanism = 50, 50, sim.MNAR
		}), grid.MustPipeline("bayes/oracle", nil), KindUnavailable, "mnar"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := Run(tt.ctx, Job{Seed: 1, Scenario: tt.s, Pipelines: []grid.Pipeline{tt.pipeline}}, learn.Env{})
			if len(rs) != 1 {
				t.Fatalf("%d results, want 1", len(rs))
			}
			r := rs[0]
			if r.ErrKind != tt.kind || !strings.Contains(r.ErrMsg, tt.msg) {
				t.Errorf("got %q %q, want kind %q with %q", r.ErrKind, r.ErrMsg, tt.kind, tt.msg)
			}
			if r.Pipeline != tt.pipeline.Canonical() || r.R2 != 0 || r.MSE != 0 {
				t.Errorf("failed result carries %+v", r)
			}
		})
	}
}

func TestMSE(t *testing.T) {
	if got := MSE([]float64{1, 2, 3}, []float64{1, 4, 0}); got != 13.0/3 {
		t.Errorf("MSE = %v, want 13/3", got)
	}
	if got := MSE([]float64{1}, []float64{1, 2}); !math.IsNaN(got) {
		t.Errorf("MSE of mismatched lengths = %v, want NaN", got)
	}
}

// TestRootSplitReported checks that a tree pipeline's first split reaches
// the result: on Proposition 1 (Y = X1 ~ U(0,1)) with no missing values a
// stump splits X1 at 1/2.
func TestRootSplitReported(t *testing.T) {
	s := scenario(t, sim.Prop1, func(s *sim.Scenario) {
		s.Mechanism, s.Rate, s.NTrain, s.NTest = sim.None, 0, 20000, 10
	})
	p := grid.MustPipeline("tree/mia", map[string]float64{"maxdepth": 1})
	res := byName(t, Run(context.Background(), Job{Seed: 3, Scenario: s, Pipelines: []grid.Pipeline{p, grid.MustPipeline("linear/mean", nil)}}, learn.Env{}))
	if r := res[p.Canonical()]; r.Root != "X1" || math.Abs(r.RootThreshold-0.5) > 0.02 {
		t.Errorf("root split %q at %v, want X1 at ≈ 0.5", r.Root, r.RootThreshold)
	}
	if r := res["linear/mean"]; r.Root != "" {
		t.Errorf("linear model reports root split %q", r.Root)
	}
}
