package grid

import (
	"crypto/sha256"
	"encoding/hex"
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
