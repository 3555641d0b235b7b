package plan

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/sim"
)

// Summary describes what a grid file would run, without running it.
type Summary struct {
	cost     CostModel
	Path     string   // the grid file's path, as given
	Cores    int      // from the cost model, ≥ 1
	Learners []string // learner families with fits, in learn.Learners order
	Sweeps   []Sweep  // in file order
}

// Sweep is the plan of one sweep.
type Sweep struct {
	Name        string         // the sweep's name in the grid file
	Hash        string         // grid.Sweep.Hash, hex
	Scenarios   int            // scenarios of the cross product
	Repetitions int            // as in the file (or --reps)
	Jobs        int            // grid.Sweep.Jobs: scenarios × repetitions (× folds for a table)
	Pipelines   []string       // pipeline labels (Pipeline.Label), in sweep order
	Methods     []string       // the external methods the sweep's pipelines name
	Fits        map[string]int // fits per learner family: jobs × its pipelines
	CPUSeconds  float64        // estimated single-core seconds for the whole sweep
	LongestJob  float64        // estimated seconds of the most expensive job
	MaxCells    int            // largest n_train × d of its scenarios (design width for a table)
	Varying     []Axis         // parameters that differ between scenarios
	Fixed       []Axis         // parameters shared by every scenario (one value each)
	Table       *Table         // a table sweep's table; nil for simulated data
}

// Axis is a scenario parameter and its distinct values, in scenario
// order, as they appear in sim.Scenario.Canonical (columns 0-based).
type Axis struct {
	Name   string
	Values []string
}

// Of summarises grid file f under cost: counts are exact, times are
// estimates.
func Of(f *grid.File, cost CostModel) Summary {
	p := Summary{Path: f.Path, Cores: cost.cores(), cost: cost}
	used := map[string]bool{}
	for _, s := range f.Sweeps {
		sp := planSweep(s, cost)
		for l := range sp.Fits {
			used[l] = true
		}
		p.Sweeps = append(p.Sweeps, sp)
	}
	for _, l := range learn.Learners {
		if used[l] {
			p.Learners = append(p.Learners, l)
			delete(used, l)
		}
	}
	for _, l := range slices.Sorted(maps.Keys(used)) {
		p.Learners = append(p.Learners, l)
	}
	return p
}

func planSweep(s *grid.Sweep, cost CostModel) Sweep {
	sp := Sweep{Name: s.Name, Hash: s.Hash(), Scenarios: len(s.Scenarios),
		Repetitions: s.Repetitions, Jobs: s.Jobs(), Fits: map[string]int{}}
	for _, pl := range s.Pipelines {
		sp.Pipelines = append(sp.Pipelines, pl.Label())
		sp.Fits[pl.Learner()] += s.Jobs()
	}
	sp.Table = tablePlan(s)
	for _, m := range s.Methods() {
		sp.Methods = append(sp.Methods, m.Name)
	}
	for _, sc := range s.Scenarios {
		sh := scenarioShape(sc, sp.Table)
		job := cost.Job.At(sh.N)
		for _, pl := range s.Pipelines {
			job += cost.FitSeconds(pl, sh.of(pl))
		}
		sp.CPUSeconds += job * float64(s.UnitCount())
		sp.LongestJob = max(sp.LongestJob, job)
		sp.MaxCells = max(sp.MaxCells, sh.N*sh.D)
	}
	sp.Varying, sp.Fixed = scenarioAxes(s)
	return sp
}

// scenarioAxes splits the canonical fields of the sweep's scenarios into
// those that vary and those that do not.
func scenarioAxes(s *grid.Sweep) (varying, fixed []Axis) {
	var axes []Axis
	index := map[string]int{}
	seen := map[string]bool{}
	for _, sc := range s.Scenarios {
		for _, kv := range axisFields(sc) {
			k, v, _ := strings.Cut(kv, "=")
			i, ok := index[k]
			if !ok {
				i, index[k] = len(axes), len(axes)
				axes = append(axes, Axis{Name: k})
			}
			if !seen[kv] {
				seen[kv] = true
				axes[i].Values = append(axes[i].Values, v)
			}
		}
	}
	for _, a := range axes {
		if len(a.Values) > 1 {
			varying = append(varying, a)
		} else {
			fixed = append(fixed, a)
		}
	}
	return varying, fixed
}

// axisFields returns a scenario's canonical fields: for a table
// scenario only the amputation (the table is shown on its own).
func axisFields(sc sim.Scenario) []string {
	if sc.Table == nil {
		return strings.Split(sc.Canonical(), ";")
	}
	cols := make([]string, len(sc.Columns))
	for i, c := range sc.Columns {
		cols[i] = sc.Table.Features[c]
	}
	c := strings.Join(cols, ",")
	if c == "" {
		c = "-"
	}
	return []string{"mechanism=" + sc.Mechanism, "rate=" + strconv.FormatFloat(sc.Rate, 'g', -1, 64), "columns=" + c}
}

// Totals returns the jobs, fits per learner and CPU seconds of all sweeps.
func (p Summary) Totals() (jobs int, fits map[string]int, cpu float64) {
	fits = map[string]int{}
	for _, s := range p.Sweeps {
		jobs += s.Jobs
		cpu += s.CPUSeconds
		for l, n := range s.Fits {
			fits[l] += n
		}
	}
	return jobs, fits, cpu
}

// WallSeconds estimates the wall time of the whole grid on p.Cores cores:
// CPU time shared evenly, but never less than the longest job.
func (p Summary) WallSeconds() float64 {
	_, _, cpu := p.Totals()
	wall := cpu / float64(max(p.Cores, 1))
	for _, s := range p.Sweeps {
		wall = max(wall, s.LongestJob)
	}
	return wall
}

// WriteText renders the plan: a table of sweeps (scenarios, repetitions,
// jobs, pipelines, fits per learner family, estimated CPU and wall time)
// followed by each sweep's varying and fixed parameters and pipelines.
// The only error is w's.
func (p Summary) WriteText(w io.Writer) error {
	jobs, fits, cpu := p.Totals()
	var b strings.Builder
	fmt.Fprintf(&b, "grid %s: %d sweep(s), %d jobs, %d fits; estimated %s CPU, %s wall on %d core(s)\n\n",
		p.Path, len(p.Sweeps), jobs, sum(fits), human(cpu), human(p.WallSeconds()), p.Cores)
	rows := [][]string{append(append([]string{"sweep", "scenarios", "reps", "jobs", "pipelines"}, p.Learners...), "CPU", "wall")}
	for _, s := range p.Sweeps {
		row := []string{s.Name, itoa(s.Scenarios), itoa(s.Repetitions), itoa(s.Jobs), itoa(len(s.Pipelines))}
		row = append(row, p.fitCells(s.Fits)...)
		rows = append(rows, append(row, human(s.CPUSeconds), human(s.CPUSeconds/float64(max(p.Cores, 1)))))
	}
	if len(p.Sweeps) > 1 {
		row := append([]string{"total", "", "", itoa(jobs), ""}, p.fitCells(fits)...)
		rows = append(rows, append(row, human(cpu), human(p.WallSeconds())))
	}
	writeTable(&b, rows)
	for _, s := range p.Sweeps {
		writeSweep(&b, s)
	}
	b.WriteString("\nTimes are estimates from single-core benchmarks on a cloud VM (machines differ by up to ±30%), scaled by n, width and missing share (docs/BENCHMARKS.md); counts are exact.\n")
	if ext := p.methods(); len(ext) > 0 {
		fmt.Fprintf(&b, "External methods (%s) are counted as %s per learner call and %s per imputer call at n = 1000,\n"+
			"a guess from the shipped scikit-learn and R methods: misslab cannot know their cost.\n",
			strings.Join(ext, ", "), human(p.cost.ExternalLearner.At(1000)), human(p.cost.ExternalImputer.At(1000)))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTable writes rows with the first column left-aligned and the
// others right-aligned, two spaces apart.
func writeTable(b *strings.Builder, rows [][]string) {
	var width []int
	for _, r := range rows {
		for i, c := range r {
			if i == len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	for _, r := range rows {
		line := fmt.Sprintf("%-*s", width[0], r[0])
		for i, c := range r[1:] {
			line += fmt.Sprintf("  %*s", width[i+1], c)
		}
		b.WriteString(line + "\n")
	}
}

func (p Summary) fitCells(fits map[string]int) []string {
	out := make([]string, len(p.Learners))
	for i, l := range p.Learners {
		out[i] = itoa(fits[l])
	}
	return out
}

func writeSweep(b *strings.Builder, s Sweep) {
	fmt.Fprintf(b, "\nsweep %q (hash %s)\n", s.Name, s.Hash[:12])
	if s.Table != nil {
		writeTablePlan(b, s.Table)
	}
	var vs []string
	for _, a := range s.Varying {
		vs = append(vs, fmt.Sprintf("%s ∈ {%s}", a.Name, showValues(a)))
	}
	if len(vs) == 0 {
		vs = []string{"nothing (one scenario)"}
	}
	fmt.Fprintf(b, "  varies:    %s\n", strings.Join(vs, "; "))
	var fs []string
	for _, a := range s.Fixed {
		fs = append(fs, a.Name+"="+showValues(a))
	}
	fmt.Fprintf(b, "  fixed:     %s\n", strings.Join(fs, " "))
	fmt.Fprintf(b, "  pipelines: %s\n", strings.Join(s.Pipelines, ", "))
}

// showValues joins an axis' values, writing columns 1-based (X1,X2) as
// grid files do, and eliding long lists.
func showValues(a Axis) string {
	vals := a.Values
	if a.Name == "columns" && !strings.ContainsAny(strings.Join(a.Values, ""), "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		vals = make([]string, len(a.Values))
		for i, v := range a.Values {
			vals[i] = oneBased(v)
		}
	}
	sep := ", "
	if a.Name == "columns" {
		sep = " | "
	}
	const keep = 8
	if len(vals) > keep {
		return strings.Join(vals[:keep-1], sep) + fmt.Sprintf("%s… (%d values)", sep, len(vals))
	}
	return strings.Join(vals, sep)
}

// oneBased turns sim's "0,1,2" into "X1,X2,X3" ("-" for none).
func oneBased(cols string) string {
	if cols == "" {
		return "-"
	}
	parts := strings.Split(cols, ",")
	for i, c := range parts {
		n, err := strconv.Atoi(c)
		if err != nil {
			return cols
		}
		parts[i] = "X" + strconv.Itoa(n+1)
	}
	return strings.Join(parts, ",")
}

func sum(m map[string]int) int {
	t := 0
	for _, v := range m {
		t += v
	}
	return t
}

func itoa(n int) string { return strconv.Itoa(n) }

// human formats seconds as 12.3s, 4m05s, 2h03m or 3.2d.
func human(sec float64) string {
	switch {
	case sec < 60:
		return fmt.Sprintf("%.1fs", sec)
	case sec < 3600:
		s := int(sec + 0.5)
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	case sec < 48*3600:
		m := int(sec/60 + 0.5)
		return fmt.Sprintf("%dh%02dm", m/60, m%60)
	}
	return fmt.Sprintf("%.1fd", sec/86400)
}

// methods lists the external methods of every sweep, each once, sorted.
func (p Summary) methods() []string {
	var out []string
	for _, s := range p.Sweeps {
		for _, m := range s.Methods {
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	slices.Sort(out)
	return out
}
