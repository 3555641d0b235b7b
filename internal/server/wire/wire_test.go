package wire

import (
	"errors"
	"testing"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/sim"
)

func sweep(t *testing.T) *grid.Sweep {
	t.Helper()
	q, err := sim.Defaults(sim.Quadratic)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.Defaults(sim.Stump)
	if err != nil {
		t.Fatal(err)
	}
	s.Mechanism, s.Rate, s.Columns = sim.None, 0, nil
	return &grid.Sweep{Name: "w", Seed: 1<<64 - 1, Repetitions: 3, Scenarios: []sim.Scenario{q, s},
		Pipelines: []grid.Pipeline{{Name: "tree/mia", Settings: map[string]float64{"cp": 0.001, "minbucket": 7}}, {Name: "svm/mean+mask"}}}
}

// TestRoundTripKeepsIdentity: what a worker rebuilds from the wire has the
// sweep's hash, so every scenario and pipeline keeps its canonical identity
// (and so its result keys and random streams).
func TestRoundTripKeepsIdentity(t *testing.T) {
	sw := sweep(t)
	back, err := SpecFromProto(SpecToProto(sw))
	if err != nil {
		t.Fatal(err)
	}
	if back.Hash() != sw.Hash() || back.Name != sw.Name || back.Seed != sw.Seed {
		t.Fatalf("round trip changed the sweep: %+v", back)
	}
	for i := range sw.Scenarios {
		if back.Scenarios[i].Canonical() != sw.Scenarios[i].Canonical() {
			t.Errorf("scenario %d: %s, want %s", i, back.Scenarios[i].Canonical(), sw.Scenarios[i].Canonical())
		}
	}
	if back.Pipelines[1].Settings != nil {
		t.Errorf("a pipeline without settings came back with %v", back.Pipelines[1].Settings)
	}
}

func TestInvalidSpecs(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*grid.Sweep)
		also error
	}{
		{"zero repetitions", func(s *grid.Sweep) { s.Repetitions = 0 }, nil},
		{"no pipelines", func(s *grid.Sweep) { s.Pipelines = nil }, nil},
		{"bad scenario", func(s *grid.Sweep) { s.Scenarios[0].Rho = 1 }, sim.ErrInvalid},
		{"unknown pipeline", func(s *grid.Sweep) { s.Pipelines[1].Name = "svm/mia" }, learn.ErrUnknownPipeline},
		{"duplicate scenario", func(s *grid.Sweep) { s.Scenarios[1] = s.Scenarios[0] }, nil},
		{"too many jobs", func(s *grid.Sweep) { s.Repetitions = MaxJobs }, nil},
	} {
		sw := sweep(t)
		tc.edit(sw)
		_, err := SpecFromProto(SpecToProto(sw))
		if !errors.Is(err, ErrInvalidSpec) || (tc.also != nil && !errors.Is(err, tc.also)) {
			t.Errorf("%s: %v, want ErrInvalidSpec wrapping %v", tc.name, err, tc.also)
		}
	}
	if _, err := SpecFromProto(nil); !errors.Is(err, ErrInvalidSpec) {
		t.Errorf("nil: %v", err)
	}
}
