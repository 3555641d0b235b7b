package wire

import (
	"errors"
	"fmt"
	"math"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/sim"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// ErrInvalidSpec is wrapped by every error about a malformed sweep spec.
// The message names the offending field as a path into the SweepSpec
// message, e.g. "pipelines[2].settings.cp".
var ErrInvalidSpec = errors.New("wire: invalid sweep spec")

// MaxMessageBytes bounds one gRPC message either way, on the coordinator
// and on workers and clients: enough for the spec of a sweep of
// grid.MaxScenarios scenarios (about 100 bytes each) with room to spare.
const MaxMessageBytes = 64 << 20

// SpecToProto converts a sweep to its wire form.
func SpecToProto(sw *grid.Sweep) *pb.SweepSpec {
	out := &pb.SweepSpec{Name: sw.Name, Seed: sw.Seed, Repetitions: int32(sw.Repetitions),
		Scenarios: make([]*pb.Scenario, 0, len(sw.Scenarios)), Pipelines: make([]*pb.Pipeline, 0, len(sw.Pipelines))}
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
		out.Pipelines = append(out.Pipelines, &pb.Pipeline{Name: p.Name(), Settings: p.Overrides()})
	}
	return out
}

// SpecFromProto converts and validates a wire sweep with every check a
// grid file gets: the limits on repetitions, scenarios, pipelines and
// jobs (checked on the counts, before anything is built), every pipeline
// name and setting by the learn package (through grid.NewPipeline), then
// grid.Sweep.Check (scenarios valid, nothing twice). Errors wrap
// ErrInvalidSpec and the underlying grid, sim or learn error, and name
// the field, e.g. "pipelines[2]".
func SpecFromProto(p *pb.SweepSpec) (*grid.Sweep, error) {
	if p == nil {
		return nil, invalid("spec", "no spec")
	}
	err := grid.CheckSizes(int64(p.GetRepetitions()), int64(len(p.GetScenarios())), int64(len(p.GetPipelines())))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidSpec, err)
	}
	sw := &grid.Sweep{Name: p.GetName(), Seed: p.GetSeed(), Repetitions: int(p.GetRepetitions()),
		Scenarios: make([]sim.Scenario, 0, len(p.GetScenarios())), Pipelines: make([]grid.Pipeline, 0, len(p.GetPipelines()))}
	for _, s := range p.GetScenarios() {
		sw.Scenarios = append(sw.Scenarios, scenarioFromProto(s))
	}
	for i, pp := range p.GetPipelines() {
		gp, err := pipelineFromProto(i, pp)
		if err != nil {
			return nil, err
		}
		sw.Pipelines = append(sw.Pipelines, gp)
	}
	if err := sw.Check(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidSpec, err)
	}
	return sw, nil
}

// pipelineFromProto parses and validates pipeline i.
func pipelineFromProto(i int, pp *pb.Pipeline) (grid.Pipeline, error) {
	field := fmt.Sprintf("pipelines[%d]", i)
	for k, v := range pp.GetSettings() {
		if k == "" || math.IsNaN(v) || math.IsInf(v, 0) {
			return grid.Pipeline{}, invalid(field+".settings."+k, "%v: a setting must be a named finite number", v)
		}
	}
	gp, err := grid.NewPipeline(pp.GetName(), pp.GetSettings())
	if err != nil {
		return grid.Pipeline{}, invalid(field, "%q: %w", pp.GetName(), err)
	}
	return gp, nil
}

// invalid formats an ErrInvalidSpec error about field.
func invalid(field, format string, a ...any) error {
	return fmt.Errorf("%w: %s: "+format, append([]any{ErrInvalidSpec, field}, a...)...)
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
