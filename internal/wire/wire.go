package wire

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/methodid"
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
	tables := map[*sim.TableRef]*pb.TableSource{}
	for _, sc := range sw.Scenarios {
		cols := make([]int32, len(sc.Columns))
		for i, c := range sc.Columns {
			cols[i] = int32(c)
		}
		ps := &pb.Scenario{Model: sc.Model, D: int32(sc.D), Rho: sc.Rho,
			Noise: sc.Noise, NTrain: int32(sc.NTrain), NTest: int32(sc.NTest), Mechanism: sc.Mechanism,
			Rate: sc.Rate, Columns: cols, Eta: sc.Eta, Task: sc.Task, Scale: sc.Scale, Threshold: sc.Threshold}
		if sc.Table != nil {
			if tables[sc.Table] == nil {
				tables[sc.Table] = tableToProto(sc.Table)
			}
			ps.Table = tables[sc.Table]
		}
		out.Scenarios = append(out.Scenarios, ps)
	}
	for _, p := range sw.Pipelines {
		out.Pipelines = append(out.Pipelines, &pb.Pipeline{Name: p.Name(), Settings: p.Overrides(), Methods: MethodsToProto(p.Methods())})
	}
	return out
}

// MethodsToProto converts external methods' identities.
func MethodsToProto(ms []methodid.Method) []*pb.MethodRef {
	var out []*pb.MethodRef
	for _, m := range ms {
		out = append(out, &pb.MethodRef{Name: m.Name, Kind: string(m.Kind), AcceptsMissing: m.AcceptsMissing, Id: m.ID,
			Tasks: string(m.Tasks)})
	}
	return out
}

// MethodsFromProto converts external methods' identities, refusing a
// malformed one (a name no grid may give a method, grid.CheckMethodName;
// an unknown kind; an ID that is not 64 lowercase hex digits; tasks that
// are not a canonical methodid.Tasks, or any on an imputer). Errors wrap
// ErrInvalidSpec and name field.
func MethodsFromProto(field string, refs []*pb.MethodRef) ([]methodid.Method, error) {
	out := make([]methodid.Method, 0, len(refs))
	for i, r := range refs {
		f := fmt.Sprintf("%s.methods[%d]", field, i)
		m := methodid.Method{Name: r.GetName(), Kind: methodid.Kind(r.GetKind()), AcceptsMissing: r.GetAcceptsMissing(),
			Tasks: methodid.Tasks(r.GetTasks()), ID: r.GetId()}
		if err := grid.CheckMethodName(m.Name); err != nil {
			return nil, invalid(f, "%w", err)
		}
		if m.Kind != methodid.Learner && m.Kind != methodid.Imputer && m.Kind != "" {
			return nil, invalid(f, "kind %q: want learner or imputer", m.Kind)
		}
		if m.ID != "" && !isHexID(m.ID) {
			return nil, invalid(f, "id %q: want 64 lowercase hex digits", m.ID)
		}
		if err := m.Tasks.Check(); err != nil {
			return nil, invalid(f, "%v", err)
		}
		if m.Kind == methodid.Imputer && m.Tasks != methodid.TasksRegression {
			return nil, invalid(f, "tasks %q on an imputer (only learners declare tasks)", m.Tasks)
		}
		out = append(out, m)
	}
	return out, nil
}

// isHexID reports whether id is a lowercase hex SHA-256.
func isHexID(id string) bool {
	return len(id) == 64 && strings.Trim(id, "0123456789abcdef") == ""
}

// SpecFromProto converts and validates a wire sweep with every check a
// grid file gets: its name and the limits on repetitions, scenarios,
// pipelines and jobs (checked on the counts, before anything is built), every pipeline
// name and setting by the learn package (through grid.NewPipeline), then
// grid.Sweep.Check (scenarios valid, nothing twice). Errors wrap
// ErrInvalidSpec and the underlying grid, sim or learn error, and name
// the field, e.g. "pipelines[2]".
func SpecFromProto(p *pb.SweepSpec) (*grid.Sweep, error) {
	if p == nil {
		return nil, invalid("spec", "no spec")
	}
	if err := grid.CheckName(p.GetName()); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidSpec, err)
	}
	units := int64(1)
	if sc := p.GetScenarios(); len(sc) > 0 && sc[0].GetTable().GetFolds() >= 2 {
		units = int64(sc[0].GetTable().GetFolds())
	}
	err := grid.CheckSizes(int64(p.GetRepetitions()), units, int64(len(p.GetScenarios())), int64(len(p.GetPipelines())))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidSpec, err)
	}
	sw := &grid.Sweep{Name: p.GetName(), Seed: p.GetSeed(), Repetitions: int(p.GetRepetitions()),
		Scenarios: make([]sim.Scenario, 0, len(p.GetScenarios())), Pipelines: make([]grid.Pipeline, 0, len(p.GetPipelines()))}
	var last *pb.TableSource
	var ref *sim.TableRef
	for _, s := range p.GetScenarios() {
		sc := scenarioFromProto(s)
		if t := s.GetTable(); t != nil {
			// Scenarios of a sweep share one table: decode it once.
			if last == nil || !proto.Equal(last, t) {
				last, ref = t, tableFromProto(t)
			}
			sc.Table = ref
		}
		sw.Scenarios = append(sw.Scenarios, sc)
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
	ms, err := MethodsFromProto(field, pp.GetMethods())
	if err != nil {
		return grid.Pipeline{}, err
	}
	gp, err := grid.NewPipelineWith(pp.GetName(), pp.GetSettings(), ms)
	if err != nil {
		return grid.Pipeline{}, invalid(field, "%q: %w", pp.GetName(), err)
	}
	if len(gp.Methods()) != len(ms) {
		return grid.Pipeline{}, invalid(field+".methods", "%q uses %d external methods, the message lists %d", pp.GetName(), len(gp.Methods()), len(ms))
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
		Eta: s.GetEta(), Task: s.GetTask(), Scale: s.GetScale(), Threshold: s.GetThreshold()}
	for _, c := range s.GetColumns() {
		sc.Columns = append(sc.Columns, int(c))
	}
	return sc
}

// tableToProto converts a table reference to its wire form.
func tableToProto(t *sim.TableRef) *pb.TableSource {
	return &pb.TableSource{Sha256: t.SHA256, Format: t.Format, Name: t.Name, Target: t.Target,
		Drop: t.Drop, Categorical: t.Categorical, Na: t.NA, Folds: int32(t.Folds),
		TestFraction: t.TestFraction, Features: t.Features}
}

// tableFromProto converts a wire table reference; Sweep.Check validates it.
func tableFromProto(t *pb.TableSource) *sim.TableRef {
	return &sim.TableRef{SHA256: t.GetSha256(), Format: t.GetFormat(), Name: t.GetName(), Target: t.GetTarget(),
		Drop: t.GetDrop(), Categorical: t.GetCategorical(), NA: t.GetNa(), Folds: int(t.GetFolds()),
		TestFraction: t.GetTestFraction(), Features: t.GetFeatures()}
}

// MaxWorkerIDBytes bounds a worker's id (worker --id), which the
// coordinator copies into its logs and job errors: 128 bytes.
const MaxWorkerIDBytes = 128

// CheckWorkerID checks a worker's id: at most MaxWorkerIDBytes bytes of
// UTF-8 text without control characters (empty: unnamed). Errors wrap
// ErrInvalidSpec and say what is wrong; both the worker (at start) and
// the coordinator (at Hello) apply it.
func CheckWorkerID(id string) error {
	switch {
	case len(id) > MaxWorkerIDBytes:
		return fmt.Errorf("%w: a worker id of %d bytes, longer than the %d allowed", ErrInvalidSpec, len(id), MaxWorkerIDBytes)
	case !utf8.ValidString(id):
		return fmt.Errorf("%w: the worker id %.40q is not UTF-8 text", ErrInvalidSpec, id)
	case strings.IndexFunc(id, unicode.IsControl) >= 0:
		return fmt.Errorf("%w: the worker id %q holds a control character", ErrInvalidSpec, id)
	}
	return nil
}
