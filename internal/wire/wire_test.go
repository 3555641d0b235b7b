package wire

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/methodid"
	"github.com/misslab/misslab/internal/sim"
	pb "github.com/misslab/misslab/proto/misslab/v1"
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
		Pipelines: []grid.Pipeline{grid.MustPipeline("tree/mia", map[string]float64{"cp": 0.001, "minbucket": 7}), grid.MustPipeline("svm/mean+mask", nil)}}
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
	if back.Pipelines[1].Overrides() != nil {
		t.Errorf("a pipeline without settings came back with %v", back.Pipelines[1].Overrides())
	}
	q, _ := sim.Defaults(sim.Quadratic)
	q.Task, q.Scale, q.Threshold, q.Noise = sim.Binary, 0.782, 4.2, 0
	bin := &grid.Sweep{Name: "b", Seed: 2, Repetitions: 1, Scenarios: []sim.Scenario{q}, Pipelines: []grid.Pipeline{grid.MustPipeline("bayes/oracle", nil)}}
	if back, err := SpecFromProto(SpecToProto(bin)); err != nil || back.Hash() != bin.Hash() || back.Scenarios[0].Task != sim.Binary {
		t.Errorf("a binary sweep's round trip: %v, %v", back, err)
	}
}

// TestInvalidSpecs: whatever a client sends, SpecFromProto applies the
// checks of a grid file and names the field in its error.
func TestInvalidSpecs(t *testing.T) {
	pipe := func(name string, settings map[string]float64) func(*pb.SweepSpec) {
		return func(s *pb.SweepSpec) { s.Pipelines[0] = &pb.Pipeline{Name: name, Settings: settings} }
	}
	for _, tc := range []struct {
		name  string
		edit  func(*pb.SweepSpec)
		also  error
		field string
	}{
		{"zero repetitions", func(s *pb.SweepSpec) { s.Repetitions = 0 }, nil, "repetitions: 0 outside"},
		{"no pipelines", func(s *pb.SweepSpec) { s.Pipelines = nil }, nil, "pipelines: the sweep has no pipeline"},
		{"bad scenario", func(s *pb.SweepSpec) { s.Scenarios[0].Rho = 1 }, sim.ErrInvalid, "scenarios[0]: "},
		{"unknown pipeline", pipe("svm/mia", nil), learn.ErrUnknownPipeline, `pipelines[0]: "svm/mia": `},
		{"setting out of range", pipe("tree/mia", map[string]float64{"cp": 7}), learn.ErrBadSetting, `pipelines[0]: "tree/mia": `},
		{"unknown setting", pipe("tree/mia", map[string]float64{"wibble": 1, "minbucket": -5}), learn.ErrBadSetting, "wibble"},
		{"non-finite setting", pipe("tree/mia", map[string]float64{"cp": math.NaN()}), nil, "pipelines[0].settings.cp: NaN"},
		{"bayes with settings", pipe("bayes/oracle", map[string]float64{"cp": 1}), learn.ErrBadSetting, "pipelines[0]"},
		{"duplicate scenario", func(s *pb.SweepSpec) { s.Scenarios[1] = s.Scenarios[0] }, nil, "scenarios[1]: same as scenarios[0]"},
		{"duplicate pipeline", func(s *pb.SweepSpec) { s.Pipelines[1] = s.Pipelines[0] }, nil, "pipelines[1]: same as pipelines[0]"},
		{"too many jobs", func(s *pb.SweepSpec) {
			s.Repetitions, s.Scenarios = grid.MaxRepetitions, make([]*pb.Scenario, 11)
		}, nil, "jobs exceed the limit of 100000000"},
		{"too many scenarios", func(s *pb.SweepSpec) {
			s.Scenarios = make([]*pb.Scenario, grid.MaxScenarios+1) // nil entries: refused before they are read
		}, nil, "scenarios: 100001 scenarios exceed the limit of 100000"},
		{"too many pipelines", func(s *pb.SweepSpec) { s.Pipelines = make([]*pb.Pipeline, grid.MaxPipelines+1) }, nil,
			"pipelines: 257 pipelines exceed the limit of 256"},
	} {
		spec := SpecToProto(sweep(t))
		tc.edit(spec)
		_, err := SpecFromProto(spec)
		if !errors.Is(err, ErrInvalidSpec) || (tc.also != nil && !errors.Is(err, tc.also)) {
			t.Errorf("%s: %v, want ErrInvalidSpec wrapping %v", tc.name, err, tc.also)
			continue
		}
		if !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: %v does not name %q", tc.name, err, tc.field)
		}
	}
	if _, err := SpecFromProto(nil); !errors.Is(err, ErrInvalidSpec) {
		t.Errorf("nil: %v", err)
	}
}

// TestMethodsRoundTrip: a pipeline's bound external methods cross the
// wire unchanged (the sweep's hash with them), and malformed method
// references are refused naming the field.
func TestMethodsRoundTrip(t *testing.T) {
	hgb := methodid.Method{Name: "hgb", Kind: methodid.Learner, AcceptsMissing: true, ID: strings.Repeat("0f", 32)}
	it := methodid.Method{Name: "sk_iterative", Kind: methodid.Imputer, ID: strings.Repeat("a1", 32)}
	sw := sweep(t)
	p, err := grid.NewPipelineWith("hgb/sk_iterative+mask", map[string]float64{"max_iter": 5, "sk_iterative.tol": 0.01}, []methodid.Method{hgb, it})
	if err != nil {
		t.Fatal(err)
	}
	sw.Pipelines = append(sw.Pipelines, p)
	back, err := SpecFromProto(SpecToProto(sw))
	if err != nil {
		t.Fatal(err)
	}
	if back.Hash() != sw.Hash() || back.Pipelines[2].Canonical() != p.Canonical() {
		t.Fatalf("round trip: %s → %s", p.Canonical(), back.Pipelines[2].Canonical())
	}
	for _, tc := range []struct {
		name string
		edit func(*pb.Pipeline)
		want string
	}{
		{"no methods", func(pp *pb.Pipeline) { pp.Methods = nil }, `learner "hgb" in "hgb/sk_iterative+mask" is unknown`},
		{"bad id", func(pp *pb.Pipeline) { pp.Methods[0].Id = "XYZ" }, "pipelines[2].methods[0]: id \"XYZ\""},
		{"bad kind", func(pp *pb.Pipeline) { pp.Methods[1].Kind = "trainer" }, "pipelines[2].methods[1]: kind \"trainer\""},
		{"built-in name", func(pp *pb.Pipeline) { pp.Methods[0].Name = "forest" }, "pipelines[2].methods[0]"},
		{"bad tasks", func(pp *pb.Pipeline) { pp.Methods[0].Tasks = "classification,regression" }, `pipelines[2].methods[0]: tasks "classification,regression"`},
		{"imputer tasks", func(pp *pb.Pipeline) { pp.Methods[1].Tasks = "classification" }, `pipelines[2].methods[1]: tasks "classification" on an imputer`},
		{"extra method", func(pp *pb.Pipeline) {
			pp.Methods = append(pp.Methods, &pb.MethodRef{Name: "knn_impute", Kind: "imputer"})
		}, "uses 2 external methods, the message lists 3"},
	} {
		msg := SpecToProto(sw)
		tc.edit(msg.Pipelines[2])
		if _, err := SpecFromProto(msg); !errors.Is(err, ErrInvalidSpec) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrInvalidSpec with %q", tc.name, err, tc.want)
		}
	}
}

// TestEveryMethodFieldCrossesTheWire sets each field of a method's
// identity on its own and sends it: a field added to methodid.Method
// without a place in MethodRef fails here, naming it (a worker would then
// be asked for a method it cannot be seen to offer).
func TestEveryMethodFieldCrossesTheWire(t *testing.T) {
	typ := reflect.TypeOf(methodid.Method{})
	for i := range typ.NumField() {
		f := typ.Field(i)
		m := methodid.Method{Name: "logit", Kind: methodid.Learner}
		v := reflect.ValueOf(&m).Elem().Field(i)
		switch f.Name {
		case "Name", "Kind":
			continue // always set
		case "ID":
			m.ID = strings.Repeat("c3", 32)
		case "Tasks":
			m.Tasks = methodid.TasksBoth
		default:
			if v.Kind() != reflect.Bool {
				t.Fatalf("methodid.Method.%s: the test cannot set a %s", f.Name, f.Type)
			}
			v.SetBool(true)
		}
		got, err := MethodsFromProto("m", MethodsToProto([]methodid.Method{m}))
		if err != nil || len(got) != 1 || got[0] != m {
			t.Errorf("methodid.Method.%s is lost on the wire: %+v (%v), want %+v", f.Name, got, err, m)
		}
	}
}

// TestEveryScenarioFieldCrossesTheWire sets each field of a scenario on
// its own, sends it and reads it back: a field added to sim.Scenario
// without a place on the wire fails here, naming it, instead of reaching
// workers as zero (a worker would draw other data than the coordinator
// keyed).
func TestEveryScenarioFieldCrossesTheWire(t *testing.T) {
	typ := reflect.TypeOf(sim.Scenario{})
	for i := range typ.NumField() {
		f := typ.Field(i)
		var sc sim.Scenario
		v := reflect.ValueOf(&sc).Elem().Field(i)
		switch v.Kind() {
		case reflect.String:
			v.SetString("x")
		case reflect.Int:
			v.SetInt(7)
		case reflect.Float64:
			v.SetFloat(0.375)
		case reflect.Slice:
			v.Set(reflect.ValueOf([]int{3}))
		case reflect.Pointer:
			sc.Table = &sim.TableRef{SHA256: "ab", Format: "csv", Name: "t.csv", Target: "y", Drop: []string{"d"},
				Categorical: []string{"c"}, NA: []string{"NA"}, Folds: 3, TestFraction: 0.25, Features: []string{"a"}}
		default:
			t.Fatalf("sim.Scenario.%s: the test cannot set a %s", f.Name, f.Type)
		}
		ps := SpecToProto(&grid.Sweep{Scenarios: []sim.Scenario{sc}}).GetScenarios()[0]
		got := scenarioFromProto(ps)
		if ps.GetTable() != nil {
			got.Table = tableFromProto(ps.GetTable())
		}
		if !reflect.DeepEqual(got, sc) {
			t.Errorf("sim.Scenario.%s is lost on the wire: %+v, want %+v", f.Name, got, sc)
		}
	}
}
