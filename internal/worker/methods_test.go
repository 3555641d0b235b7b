package worker

import (
	"context"
	"strings"
	"testing"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/methodid"
	"github.com/misslab/misslab/internal/sim"
)

// offering is a SweepMethods that offers one method and runs nothing.
type offering struct{ m methodid.Method }

func (o offering) ForSweep(string) learn.MethodRunner { return nil }
func (o offering) Offers(m methodid.Method) bool      { return m == o.m }

// TestJobWithUnofferedMethodIsAJobError: a job naming a method this
// worker does not run, or runs with another identity, fails as a whole
// (the coordinator gives it to another worker) instead of storing failed
// pipelines.
func TestJobWithUnofferedMethodIsAJobError(t *testing.T) {
	hgb := methodid.Method{Name: "hgb", Kind: methodid.Learner, AcceptsMissing: true, ID: strings.Repeat("a", 64)}
	other := hgb
	other.ID = strings.Repeat("b", 64)
	p, err := grid.NewPipelineWith("hgb/native", nil, []methodid.Method{hgb})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := sim.Defaults(sim.Quadratic)
	if err != nil {
		t.Fatal(err)
	}
	sw := &grid.Sweep{Seed: 1, Repetitions: 1, Scenarios: []sim.Scenario{sc}, Pipelines: []grid.Pipeline{p}}
	for _, tc := range []struct {
		name string
		m    SweepMethods
	}{{"no methods", nil}, {"another identity", offering{other}}} {
		e := NewExperiment(1, nil)
		e.Methods = tc.m
		rs, err := e.Execute(context.Background(), sw, 0, 0, []int{0})
		if err == nil || !strings.Contains(err.Error(), `does not run method "hgb"`) {
			t.Errorf("%s: results %v, error %v; want a job error naming hgb", tc.name, rs, err)
		}
	}
}
