package grid

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/misslab/misslab/internal/sim"
)

// File is a parsed grid file.
type File struct {
	Path   string   // as given to the parser, used in error messages
	Sweeps []*Sweep // in file order
}

// Sweep is one expanded sweep of a grid file. A job is one (scenario,
// repetition) pair; it runs every pipeline of the sweep on the same data.
type Sweep struct {
	Name        string         // label from the file; not part of any identity
	Seed        uint64         // grid seed from which every random stream derives
	Repetitions int            // ≥ 1; repetitions are numbered 0..Repetitions-1
	Scenarios   []sim.Scenario // the cross product, validated, in a stable order
	Pipelines   []Pipeline     // unique, in a stable order
}

// Jobs returns the number of jobs of the sweep: scenarios × repetitions.
func (s *Sweep) Jobs() int { return len(s.Scenarios) * s.Repetitions }

// Job returns the scenario index and repetition of job number i in
// [0, Jobs()): jobs are ordered repetition-major so that an interrupted
// sweep has early repetitions of every scenario.
func (s *Sweep) Job(i int) (scenario, rep int) {
	return i % len(s.Scenarios), i / len(s.Scenarios)
}

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
func CheckSizes(reps, scenarios, pipelines int64) error {
	if field, msg := sizeProblem(reps, scenarios, pipelines); field != "" {
		return invalidField(field, "%s", msg)
	}
	return nil
}

// sizeProblem returns the field and the message of the first sweep limit
// that the counts exceed, or "" and "".
func sizeProblem(reps, scenarios, pipelines int64) (field, msg string) {
	switch {
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
	case reps*scenarios > MaxJobs:
		return "repetitions", fmt.Sprintf("%d scenarios × %d repetitions = %d jobs exceed the limit of %d",
			scenarios, reps, reps*scenarios, MaxJobs)
	}
	return "", ""
}

// Check validates a sweep however it was built (a grid file, a Submit,
// code): the limits, every scenario (sim's validation), every pipeline
// made by NewPipeline, and no scenario or pipeline twice. Errors wrap
// ErrInvalid (and sim's error for a bad scenario) and name the field,
// e.g. "scenarios[3]: ...".
func (s *Sweep) Check() error {
	if err := CheckSizes(int64(s.Repetitions), int64(len(s.Scenarios)), int64(len(s.Pipelines))); err != nil {
		return err
	}
	seen := make(map[string]int, len(s.Scenarios))
	for i, sc := range s.Scenarios {
		if err := sc.Validate(); err != nil {
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
		if j, dup := names[p.Canonical()]; dup {
			return invalidField(fmt.Sprintf("pipelines[%d]", i), "same as pipelines[%d] (%s)", j, p.Canonical())
		}
		names[p.Canonical()] = i
	}
	return nil
}

// invalidField formats an ErrInvalid error about a field of a sweep.
func invalidField(field, format string, a ...any) error {
	return fmt.Errorf("%w: %s: "+format, append([]any{ErrInvalid, field}, a...)...)
}
