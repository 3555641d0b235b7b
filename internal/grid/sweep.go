package grid

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"
	"strconv"

	"github.com/misslab/misslab/internal/sim"
)

// File is a parsed grid file.
type File struct {
	Path   string   // as given to the parser, used in error messages
	Sweeps []*Sweep // in file order
}

// Sweep is one expanded sweep of a grid file. A job is one (scenario,
// unit) pair, where a unit is a repetition of simulated data or one
// fold of a repetition's split of a table; a job runs every pipeline of
// the sweep on the same data.
type Sweep struct {
	Name        string         // label from the file; not part of any identity
	Seed        uint64         // grid seed from which every random stream derives
	Repetitions int            // ≥ 1; repetitions are numbered 0..Repetitions-1
	Scenarios   []sim.Scenario // the cross product, validated, in a stable order
	Pipelines   []Pipeline     // unique, in a stable order
	// TableFile is the local file of a table sweep as the grid parser
	// read it (nil for simulated data, and for a sweep that arrived by
	// Submit): what plan prints and submit uploads.
	TableFile *TableFile
}

// Units returns the jobs of one scenario and repetition: the folds of a
// table sweep's K-fold split, else 1. Every scenario of a sweep has the
// same (Check enforces it).
func (s *Sweep) Units() int {
	if len(s.Scenarios) == 0 {
		return 1
	}
	return s.Scenarios[0].Units()
}

// UnitCount returns the units of the whole sweep per scenario:
// repetitions × Units().
func (s *Sweep) UnitCount() int { return s.Repetitions * s.Units() }

// Jobs returns the number of jobs of the sweep: scenarios × repetitions
// × units.
func (s *Sweep) Jobs() int { return len(s.Scenarios) * s.UnitCount() }

// Job returns the scenario index and unit of job number i in [0,
// Jobs()): jobs are ordered unit-major so that an interrupted sweep has
// early repetitions of every scenario. For simulated data the unit is
// the repetition; see Fold for a table sweep's.
func (s *Sweep) Job(i int) (scenario, unit int) {
	return i % len(s.Scenarios), i / len(s.Scenarios)
}

// Fold splits a unit into its repetition and fold (fold 0 for simulated
// data and hold-out splits).
func (s *Sweep) Fold(unit int) (rep, fold int) {
	k := s.Units()
	return unit / k, unit % k
}

// IsTable reports whether the sweep's data are a user's table.
func (s *Sweep) IsTable() bool { return len(s.Scenarios) > 0 && s.Scenarios[0].Table != nil }

// Hash identifies the sweep's content: seed, repetitions, scenarios and
// pipelines, but not its name or the file it came from. Hex SHA-256.
func (s *Sweep) Hash() string {
	h := sha256.New()
	h.Write([]byte("seed=" + strconv.FormatUint(s.Seed, 10) + ";reps=" + strconv.Itoa(s.Repetitions) + "\n"))
	for _, sc := range s.Scenarios {
		h.Write([]byte(sc.Canonical() + "\n"))
	}
	for _, p := range s.Pipelines {
		h.Write([]byte(p.Canonical() + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// CheckSizes applies the sweep limits (MaxRepetitions, MaxScenarios,
// MaxPipelines, MaxJobs) to counts alone, so that a caller holding a
// sweep in another form (a protobuf message) can refuse an oversized one
// before building anything. Errors wrap ErrInvalid and name the field.
func CheckSizes(reps, units, scenarios, pipelines int64) error {
	if field, msg := sizeProblem(reps, units, scenarios, pipelines); field != "" {
		return invalidField(field, "%s", msg)
	}
	return nil
}

// sizeProblem returns the field and the message of the first sweep limit
// that the counts exceed, or "" and "".
func sizeProblem(reps, units, scenarios, pipelines int64) (field, msg string) {
	switch {
	case units < 1 || units > sim.MaxFolds:
		return "split", fmt.Sprintf("%d units per repetition outside [1, %d]", units, sim.MaxFolds)
	case reps < 1 || reps > MaxRepetitions:
		return "repetitions", fmt.Sprintf("%d outside [1, %d]", reps, MaxRepetitions)
	case scenarios == 0:
		return "scenarios", "the sweep has no scenario"
	case scenarios > MaxScenarios:
		return "scenarios", fmt.Sprintf("%d scenarios exceed the limit of %d per sweep; split the sweep", scenarios, MaxScenarios)
	case pipelines == 0:
		return "pipelines", "the sweep has no pipeline"
	case pipelines > MaxPipelines:
		return "pipelines", fmt.Sprintf("%d pipelines exceed the limit of %d per sweep", pipelines, MaxPipelines)
	case reps*scenarios*units > MaxJobs:
		folds := ""
		if units > 1 {
			folds = fmt.Sprintf(" × %d folds", units)
		}
		return "repetitions", fmt.Sprintf("%d scenarios × %d repetitions%s = %d jobs exceed the limit of %d",
			scenarios, reps, folds, reps*scenarios*units, MaxJobs)
	}
	return "", ""
}

// Check validates a sweep however it was built (a grid file, a Submit,
// code): its name (CheckName), the limits, every scenario (sim's validation), every pipeline
// made by NewPipeline, and no scenario or pipeline twice. Errors wrap
// ErrInvalid (and sim's error for a bad scenario) and name the field,
// e.g. "scenarios[3]: ...".
func (s *Sweep) Check() error {
	if err := CheckName(s.Name); err != nil {
		return err
	}
	if err := CheckSizes(int64(s.Repetitions), int64(s.Units()), int64(len(s.Scenarios)), int64(len(s.Pipelines))); err != nil {
		return err
	}
	seen := make(map[string]int, len(s.Scenarios))
	for i, sc := range s.Scenarios {
		if err := sc.Validate(); err != nil {
			return invalidField(fmt.Sprintf("scenarios[%d]", i), "%w", err)
		}
		if err := sameSource(s.Scenarios[0], sc); err != nil {
			return invalidField(fmt.Sprintf("scenarios[%d]", i), "%w", err)
		}
		c := sc.Canonical()
		if j, dup := seen[c]; dup {
			return invalidField(fmt.Sprintf("scenarios[%d]", i), "same as scenarios[%d] (%s)", j, c)
		}
		seen[c] = i
	}
	names := make(map[string]int, len(s.Pipelines))
	for i, p := range s.Pipelines {
		if p.spec.Learner == "" {
			return invalidField(fmt.Sprintf("pipelines[%d]", i), "not made by grid.NewPipeline")
		}
		if err := pipelineTask(p, s.Scenarios[0].Task); err != nil {
			return invalidField(fmt.Sprintf("pipelines[%d]", i), "%w", err)
		}
		if j, dup := names[p.Canonical()]; dup {
			return invalidField(fmt.Sprintf("pipelines[%d]", i), "same as pipelines[%d] (%s)", j, p.Canonical())
		}
		names[p.Canonical()] = i
	}
	return s.checkMethods()
}

// sameSource checks that sc reads the same data source as first: a sweep
// is simulated or reads one table, split one way.
func sameSource(first, sc sim.Scenario) error {
	switch {
	case first.Task != sc.Task && !(isRegression(first.Task) && isRegression(sc.Task)):
		return fmt.Errorf("a sweep has one task; scenarios[0] is %q and this one %q", first.Task, sc.Task)
	case (first.Table == nil) != (sc.Table == nil):
		return fmt.Errorf("a sweep mixes simulated scenarios and table scenarios")
	case first.Table == nil:
		return nil
	}
	a, b := *first.Table, *sc.Table
	a.Name, b.Name = "", ""
	if !reflect.DeepEqual(a, b) {
		return fmt.Errorf("a sweep reads one table with one split; scenarios[0] and this one differ")
	}
	return nil
}

// invalidField formats an ErrInvalid error about a field of a sweep.
func invalidField(field, format string, a ...any) error {
	return fmt.Errorf("%w: %s: "+format, append([]any{ErrInvalid, field}, a...)...)
}

// isRegression reports whether task is regression ("" or "regression").
func isRegression(task string) bool { return task == "" || task == sim.Regression }
