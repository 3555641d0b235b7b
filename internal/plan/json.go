package plan

import (
	"encoding/json"
	"io"
	"math"

	"github.com/misslab/misslab/internal/table"
)

// JSONSchemaVersion is the schema_version of `coordinator plan --json`:
// raised when a key changes meaning or goes away (new keys may appear
// without it).
const JSONSchemaVersion = 1

// JSON is `coordinator plan --json`'s document, the numbers of
// WriteText unrounded. Keys are snake_case; times are in seconds and say
// so in their names. docs/OPERATIONS.md lists every key.
type JSON struct {
	SchemaVersion  int            `json:"schema_version"`
	Grid           string         `json:"grid"`
	Cores          int            `json:"cores"`
	Learners       []string       `json:"learners"`
	Jobs           int            `json:"jobs"`
	Fits           int            `json:"fits"`
	FitsPerLearner map[string]int `json:"fits_per_learner"`
	CPUSeconds     float64        `json:"cpu_seconds"`
	WallSeconds    float64        `json:"wall_seconds"`
	Sweeps         []SweepJSON    `json:"sweeps"`
	// ExternalMethods lists the external methods of every sweep; their
	// calls are costed at ExternalLearnerCallSeconds and
	// ExternalImputerCallSeconds each (a guess, at n = 1000).
	ExternalMethods            []string `json:"external_methods"`
	ExternalLearnerCallSeconds float64  `json:"external_learner_call_seconds,omitempty"`
	ExternalImputerCallSeconds float64  `json:"external_imputer_call_seconds,omitempty"`
	// Calibration (plan --calibrate) and Slurm (plan --slurm) are filled
	// by the command when asked for.
	Calibration []CalibrationJSON `json:"calibration,omitempty"`
	Slurm       *SlurmJSON        `json:"slurm,omitempty"`
}

// SweepJSON is one sweep of JSON.
type SweepJSON struct {
	Name              string         `json:"name"`
	Hash              string         `json:"hash"`
	Scenarios         int            `json:"scenarios"`
	Repetitions       int            `json:"repetitions"`
	Jobs              int            `json:"jobs"`
	Pipelines         []string       `json:"pipelines"`
	Methods           []string       `json:"methods"`
	Fits              int            `json:"fits"`
	FitsPerLearner    map[string]int `json:"fits_per_learner"`
	CPUSeconds        float64        `json:"cpu_seconds"`
	WallSeconds       float64        `json:"wall_seconds"` // cpu_seconds over the plan's cores
	LongestJobSeconds float64        `json:"longest_job_seconds"`
	MaxTrainCells     int            `json:"max_train_cells"` // largest n_train × d (design width for a table)
	Varying           []AxisJSON     `json:"varying"`
	Fixed             []AxisJSON     `json:"fixed"`
	Table             *TableJSON     `json:"table"` // null for simulated data
}

// AxisJSON is a scenario parameter and its values, columns written
// 1-based as grid files do (X1,X2; "-" for none).
type AxisJSON struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
}

// TableJSON is a table sweep's table. The file's keys (file onwards) are
// zero when the grid was read without its table file.
type TableJSON struct {
	SHA256              string  `json:"sha256"`
	Target              string  `json:"target"`
	Split               string  `json:"split"`
	Folds               int     `json:"folds"`         // K of K-fold; 0 for a hold-out
	TestFraction        float64 `json:"test_fraction"` // a hold-out's test share; 0 for K-fold
	Features            int     `json:"features"`
	DesignColumns       int     `json:"design_columns"`
	TrainRowsPerFit     int     `json:"train_rows_per_fit"`
	File                string  `json:"file"`
	FileBytes           int64   `json:"file_bytes"`
	Rows                int     `json:"rows"`
	RowsWithTarget      int     `json:"rows_with_target"`
	RowsDroppedNATarget int     `json:"rows_dropped_na_target"`
	// Classes is a classification target's levels with their rows (of
	// rows_with_target); empty for regression.
	Classes []ClassJSON  `json:"classes"`
	Columns []ColumnJSON `json:"columns"`
}

// ClassJSON is one class of a classification target.
type ClassJSON struct {
	Name string `json:"name"`
	Rows int    `json:"rows"`
}

// ColumnJSON is one kept column of a table, counted over all its rows.
// Mean and sd are null for a categorical column or without values.
type ColumnJSON struct {
	Name       string   `json:"name"`
	Kind       string   `json:"kind"` // numeric or categorical
	NA         int      `json:"na"`
	NAFraction float64  `json:"na_fraction"`
	Mean       *float64 `json:"mean"`
	SD         *float64 `json:"sd"`
	Levels     int      `json:"levels"` // a categorical column's levels, 0 for numeric
}

// CalibrationJSON is one learner family's calibration (plan --calibrate).
type CalibrationJSON struct {
	Learner         string  `json:"learner"`
	MeasuredSeconds float64 `json:"measured_seconds"`
	ModelledSeconds float64 `json:"modelled_seconds"`
	Ratio           float64 `json:"ratio"`
}

// SlurmJSON is plan --slurm's suggested allocation.
type SlurmJSON struct {
	Nodes             int     `json:"nodes"`
	CPUsPerTask       int     `json:"cpus_per_task"`
	MemPerNodeBytes   int64   `json:"mem_per_node_bytes"`
	TimeLimitSeconds  float64 `json:"time_limit_seconds"`
	WallSeconds       float64 `json:"wall_seconds"`
	CPUSeconds        float64 `json:"cpu_seconds"`
	Jobs              int     `json:"jobs"`
	LongestJobSeconds float64 `json:"longest_job_seconds"`
	Command           string  `json:"command"` // the sbatch command line
}

// JSON returns the plan as JSON's document.
func (p Summary) JSON() JSON {
	jobs, fits, cpu := p.Totals()
	out := JSON{SchemaVersion: JSONSchemaVersion, Grid: p.Path, Cores: p.Cores, Learners: nonNil(p.Learners), Jobs: jobs,
		Fits: sum(fits), FitsPerLearner: fits, CPUSeconds: cpu, WallSeconds: p.WallSeconds(), ExternalMethods: nonNil(p.methods())}
	if len(out.ExternalMethods) > 0 {
		out.ExternalLearnerCallSeconds = p.cost.ExternalLearner.At(1000)
		out.ExternalImputerCallSeconds = p.cost.ExternalImputer.At(1000)
	}
	for _, s := range p.Sweeps {
		out.Sweeps = append(out.Sweeps, SweepJSON{Name: s.Name, Hash: s.Hash, Scenarios: s.Scenarios, Repetitions: s.Repetitions,
			Jobs: s.Jobs, Pipelines: nonNil(s.Pipelines), Methods: nonNil(s.Methods), Fits: sum(s.Fits), FitsPerLearner: s.Fits,
			CPUSeconds: s.CPUSeconds, WallSeconds: s.CPUSeconds / float64(max(p.Cores, 1)), LongestJobSeconds: s.LongestJob,
			MaxTrainCells: s.MaxCells, Varying: axesJSON(s.Varying), Fixed: axesJSON(s.Fixed), Table: tableJSON(s.Table)})
	}
	if out.Sweeps == nil {
		out.Sweeps = []SweepJSON{}
	}
	return out
}

// JSON returns the allocation as plan --slurm's JSON, its command naming
// the grid file at gridPath.
func (sp Allocation) JSON(gridPath string) *SlurmJSON {
	return &SlurmJSON{Nodes: sp.Nodes, CPUsPerTask: sp.CPUsPerTask, MemPerNodeBytes: sp.MemPerNode, TimeLimitSeconds: sp.TimeLimit,
		WallSeconds: sp.WallSeconds, CPUSeconds: sp.CPUSeconds, Jobs: sp.Jobs, LongestJobSeconds: sp.LongestJob, Command: sp.Command(gridPath)}
}

// WriteJSON writes doc indented, with a final newline. The only error
// is w's.
func WriteJSON(w io.Writer, doc any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

func axesJSON(axes []Axis) []AxisJSON {
	out := []AxisJSON{}
	for _, a := range axes {
		vals := a.Values
		if a.Name == "columns" {
			vals = make([]string, len(a.Values))
			for i, v := range a.Values {
				vals[i] = oneBased(v)
			}
		}
		out = append(out, AxisJSON{Name: a.Name, Values: nonNil(vals)})
	}
	return out
}

func tableJSON(tp *Table) *TableJSON {
	if tp == nil {
		return nil
	}
	out := &TableJSON{SHA256: tp.SHA256, Target: tp.Target, Split: tp.Split, Folds: tp.Folds, TestFraction: tp.TestFraction,
		Features: tp.Features, DesignColumns: tp.Columns, TrainRowsPerFit: tp.TrainRows, Classes: []ClassJSON{}, Columns: []ColumnJSON{}}
	f := tp.File
	if f == nil {
		return out
	}
	out.File, out.FileBytes, out.Rows, out.RowsWithTarget, out.RowsDroppedNATarget = f.Path, f.Size, f.Rows, f.Used, f.Rows-f.Used
	for i, c := range f.Classes {
		out.Classes = append(out.Classes, ClassJSON{Name: c, Rows: f.ClassCounts[i]})
	}
	for _, c := range f.Columns {
		kind := "numeric"
		if c.Kind == table.Categorical {
			kind = "categorical"
		}
		out.Columns = append(out.Columns, ColumnJSON{Name: c.Name, Kind: kind, NA: c.NA, NAFraction: c.NARate,
			Mean: finite(c.Mean), SD: finite(c.SD), Levels: c.Levels})
	}
	return out
}

// finite returns &v, or nil (JSON null) for NaN or ±Inf.
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// nonNil returns s, or an empty slice for nil (JSON [] rather than null).
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
