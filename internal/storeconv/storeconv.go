package storeconv

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/methodid"
	"github.com/misslab/misslab/internal/sim"
	"github.com/misslab/misslab/internal/store"
)

// Record is a stored sweep with its spec in both forms: the grid's, which
// the coordinator, the reports and the recomputation use, and the
// store's, which looks its results up.
type Record struct {
	ID        string      // the sweep id (grid.Sweep.Hash)
	Spec      *grid.Sweep // validated (grid.Sweep.Check)
	Stored    *store.Sweep
	Cancelled bool
	Submitted time.Time
}

// ToStore returns the store's form of a sweep. Scenarios that share a
// table share one store.Table. The local TableFile is not stored.
func ToStore(sw *grid.Sweep) *store.Sweep {
	out := &store.Sweep{Name: sw.Name, Seed: sw.Seed, Repetitions: sw.Repetitions}
	tables := map[*sim.TableRef]*store.Table{}
	for _, sc := range sw.Scenarios {
		s := scenarioToStore(sc)
		if sc.Table != nil {
			if t, ok := tables[sc.Table]; ok {
				s.Table = t
			} else {
				tables[sc.Table] = s.Table
			}
		}
		out.Scenarios = append(out.Scenarios, s)
	}
	for _, p := range sw.Pipelines {
		out.Pipelines = append(out.Pipelines, PipelineToStore(p))
	}
	return out
}

// New returns the Record of a sweep submitted at t (UTC), as Submit
// stores it.
func New(sw *grid.Sweep, submitted time.Time) Record {
	return Record{ID: sw.Hash(), Spec: sw, Stored: ToStore(sw), Submitted: submitted.UTC()}
}

// StoreRecord returns the record the store keeps.
func (r Record) StoreRecord() store.SweepRecord {
	return store.SweepRecord{ID: r.ID, Spec: r.Stored, Cancelled: r.Cancelled, Submitted: r.Submitted}
}

// DrawKey returns the store's key of the data of (seed, scenario).
func DrawKey(seed uint64, sc sim.Scenario) store.DrawKey {
	return store.NewDrawKey(seed, scenarioToStore(sc))
}

// PipeKey returns the store's key of a pipeline.
func PipeKey(p grid.Pipeline) store.PipeKey { return store.NewPipeKey(PipelineToStore(p)) }

// FromStore converts a stored sweep record and validates it as every
// sweep entering the coordinator is (grid.Sweep.Check: the limits, every
// scenario and pipeline). Errors wrap grid.ErrInvalid,
// learn.ErrUnknownPipeline or learn.ErrBadSetting and name the sweep.
func FromStore(rec store.SweepRecord) (Record, error) {
	sw, err := sweepFromStore(rec.Spec)
	if err == nil {
		err = sw.Check()
	}
	if err != nil {
		return Record{}, fmt.Errorf("stored sweep %q (%.12s): %w", rec.Spec.Name, rec.ID, err)
	}
	return Record{ID: rec.ID, Spec: sw, Stored: rec.Spec, Cancelled: rec.Cancelled, Submitted: rec.Submitted}, nil
}

// sweepFromStore converts without validating beyond what parsing the
// pipelines needs.
func sweepFromStore(s *store.Sweep) (*grid.Sweep, error) {
	sw := &grid.Sweep{Name: s.Name, Seed: s.Seed, Repetitions: s.Repetitions}
	tables := map[*store.Table]*sim.TableRef{}
	for _, sc := range s.Scenarios {
		g := scenarioFromStore(sc)
		if sc.Table != nil {
			if t, ok := tables[sc.Table]; ok {
				g.Table = t
			} else {
				tables[sc.Table] = g.Table
			}
		}
		sw.Scenarios = append(sw.Scenarios, g)
	}
	for i, p := range s.Pipelines {
		gp, err := PipelineFromStore(p)
		if err != nil {
			return nil, fmt.Errorf("pipelines[%d]: %w", i, err)
		}
		sw.Pipelines = append(sw.Pipelines, gp)
	}
	return sw, nil
}

// ScenarioToStore returns the store's form of a scenario.
func ScenarioToStore(sc sim.Scenario) store.Scenario { return scenarioToStore(sc) }

func scenarioToStore(sc sim.Scenario) store.Scenario {
	out := store.Scenario{Model: sc.Model, D: sc.D, Rho: sc.Rho, Noise: sc.Noise, NTrain: sc.NTrain, NTest: sc.NTest,
		Mechanism: sc.Mechanism, Rate: sc.Rate, Columns: sc.Columns, Eta: sc.Eta,
		Task: sc.Task, Scale: sc.Scale, Threshold: sc.Threshold}
	if t := sc.Table; t != nil {
		out.Table = &store.Table{SHA256: t.SHA256, Format: t.Format, Name: t.Name, Target: t.Target, Drop: t.Drop,
			Categorical: t.Categorical, NA: t.NA, Folds: t.Folds, TestFraction: t.TestFraction, Features: t.Features}
	}
	return out
}

func scenarioFromStore(sc store.Scenario) sim.Scenario {
	out := sim.Scenario{Model: sc.Model, D: sc.D, Rho: sc.Rho, Noise: sc.Noise, NTrain: sc.NTrain, NTest: sc.NTest,
		Mechanism: sc.Mechanism, Rate: sc.Rate, Columns: sc.Columns, Eta: sc.Eta,
		Task: sc.Task, Scale: sc.Scale, Threshold: sc.Threshold}
	if t := sc.Table; t != nil {
		out.Table = &sim.TableRef{SHA256: t.SHA256, Format: t.Format, Name: t.Name, Target: t.Target, Drop: t.Drop,
			Categorical: t.Categorical, NA: t.NA, Folds: t.Folds, TestFraction: t.TestFraction, Features: t.Features}
	}
	return out
}

// PipelineToStore returns the store's form of a pipeline: its name, its
// setting overrides sorted by key, and its external methods.
func PipelineToStore(p grid.Pipeline) store.Pipeline {
	out := store.Pipeline{Name: p.Name()}
	ov := p.Overrides()
	for _, k := range slices.Sorted(maps.Keys(ov)) {
		out.Settings = append(out.Settings, store.Setting{Key: k, Value: ov[k]})
	}
	for _, m := range p.Methods() {
		out.Methods = append(out.Methods, methodToStore(m))
	}
	return out
}

func methodToStore(m methodid.Method) store.Method {
	return store.Method{Name: m.Name, Kind: string(m.Kind), AcceptsMissing: m.AcceptsMissing, ID: m.ID, Tasks: string(m.Tasks)}
}

func methodFromStore(m store.Method) methodid.Method {
	return methodid.Method{Name: m.Name, Kind: methodid.Kind(m.Kind), AcceptsMissing: m.AcceptsMissing, ID: m.ID,
		Tasks: methodid.Tasks(m.Tasks)}
}

// PipelineFromStore parses a stored pipeline (grid.NewPipelineWith):
// errors wrap learn.ErrUnknownPipeline or learn.ErrBadSetting.
func PipelineFromStore(p store.Pipeline) (grid.Pipeline, error) {
	var ov map[string]float64
	if len(p.Settings) > 0 {
		ov = make(map[string]float64, len(p.Settings))
		for _, s := range p.Settings {
			ov[s.Key] = s.Value
		}
	}
	var ms []methodid.Method
	for _, m := range p.Methods {
		ms = append(ms, methodFromStore(m))
	}
	return grid.NewPipelineWith(p.Name, ov, ms)
}
