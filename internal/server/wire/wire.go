package wire

import (
	"errors"
	"fmt"
	"math"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/sim"
	"github.com/misslab/misslab/internal/store"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// ErrInvalidSpec is wrapped by every error about a malformed sweep spec.
var ErrInvalidSpec = errors.New("wire: invalid sweep spec")

// Limits on a submitted sweep; job indices must fit the scheduler's int32.
const (
	MaxJobs      = 100_000_000
	MaxPipelines = 256
)

// SpecToProto converts a sweep to its wire form.
func SpecToProto(sw *grid.Sweep) *pb.SweepSpec {
	out := &pb.SweepSpec{Name: sw.Name, Seed: sw.Seed, Repetitions: int32(sw.Repetitions)}
	for _, sc := range sw.Scenarios {
		cols := make([]int32, len(sc.Columns))
		for i, c := range sc.Columns {
			cols[i] = int32(c)
		}
		out.Scenarios = append(out.Scenarios, &pb.Scenario{Model: sc.Model, D: int32(sc.D), Rho: sc.Rho,
			Noise: sc.Noise, NTrain: int32(sc.NTrain), NTest: int32(sc.NTest), Mechanism: sc.Mechanism,
			Rate: sc.Rate, Columns: cols, Eta: sc.Eta})
	}
	for _, p := range sw.Pipelines {
		out.Pipelines = append(out.Pipelines, &pb.Pipeline{Name: p.Name, Settings: p.Settings})
	}
	return out
}

// SpecFromProto converts and validates a wire sweep: every scenario must
// pass sim's validation, every pipeline name must parse as a learn.Spec,
// scenarios and pipelines must be unique, and the job count bounded.
// Errors wrap ErrInvalidSpec and the underlying sim or learn error.
func SpecFromProto(p *pb.SweepSpec) (*grid.Sweep, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrInvalidSpec}, a...)...)
	}
	if p == nil {
		return nil, bad("no spec")
	}
	if p.Repetitions < 1 || len(p.Scenarios) == 0 || len(p.Pipelines) == 0 {
		return nil, bad("need ≥ 1 repetition, scenario and pipeline (got %d, %d, %d)", p.Repetitions, len(p.Scenarios), len(p.Pipelines))
	}
	if jobs := int64(p.Repetitions) * int64(len(p.Scenarios)); jobs > MaxJobs {
		return nil, bad("%d jobs exceed the limit of %d", jobs, MaxJobs)
	}
	if len(p.Pipelines) > MaxPipelines {
		return nil, bad("%d pipelines exceed the limit of %d", len(p.Pipelines), MaxPipelines)
	}
	sw := &grid.Sweep{Name: p.Name, Seed: p.Seed, Repetitions: int(p.Repetitions)}
	seen := make(map[store.DrawKey]int, len(p.Scenarios))
	for i, s := range p.Scenarios {
		sc := scenarioFromProto(s)
		if err := sc.Validate(); err != nil {
			return nil, bad("scenario %d: %w", i, err)
		}
		k := store.NewDrawKey(0, sc)
		if j, dup := seen[k]; dup {
			return nil, bad("scenarios %d and %d are the same (%s)", j, i, sc.Canonical())
		}
		seen[k] = i
		sw.Scenarios = append(sw.Scenarios, sc)
	}
	names := map[string]int{}
	for i, pp := range p.GetPipelines() {
		if _, err := learn.ParseSpec(pp.GetName()); err != nil {
			return nil, bad("pipeline %d: %w", i, err)
		}
		for k, v := range pp.GetSettings() {
			if math.IsNaN(v) || math.IsInf(v, 0) || k == "" {
				return nil, bad("pipeline %d (%s): setting %q = %v must be a named finite number", i, pp.GetName(), k, v)
			}
		}
		gp := grid.Pipeline{Name: pp.GetName(), Settings: pp.GetSettings()}
		if len(gp.Settings) == 0 {
			gp.Settings = nil
		}
		if j, dup := names[gp.Canonical()]; dup {
			return nil, bad("pipelines %d and %d are the same (%s)", j, i, gp.Canonical())
		}
		names[gp.Canonical()] = i
		sw.Pipelines = append(sw.Pipelines, gp)
	}
	return sw, nil
}

func scenarioFromProto(s *pb.Scenario) sim.Scenario {
	sc := sim.Scenario{Model: s.GetModel(), D: int(s.GetD()), Rho: s.GetRho(), Noise: s.GetNoise(),
		NTrain: int(s.GetNTrain()), NTest: int(s.GetNTest()), Mechanism: s.GetMechanism(), Rate: s.GetRate(),
		Eta: s.GetEta()}
	for _, c := range s.GetColumns() {
		sc.Columns = append(sc.Columns, int(c))
	}
	return sc
}
