package reportgen

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/report"
	"github.com/misslab/misslab/internal/sim"
	"github.com/misslab/misslab/internal/stats"
	"github.com/misslab/misslab/internal/store"
	"github.com/misslab/misslab/internal/storeconv"
)

// Combined builds one report input from several sweeps (the tables of a
// real-data grid, say, or a learning curve split into sweeps by learner):
// every sweep's scenarios, titled "sweep · scenario", its records,
// failures and imputation points, so that the report's ranks section
// ranks the pipelines across every table and scenario at once (Friedman
// test, critical-difference diagram).
//
// A scenario that several sweeps share, with the same seed, draws the
// same data: the store holds its jobs once. It is shown once (labelled
// with every sweep that names it), with the pipelines of every such sweep,
// and a pipeline that two of them run is counted once. Jobs are counted
// as distinct (data, repetition) pairs; one is done when every sweep
// that plans it is.
//
// Learning curves are drawn when the simulated scenarios have several
// training sizes, over every sweep at once: figure5-large.hcl's SVM sweep
// stops at a smaller n than its other learners' and still shares their
// panels. Panels name the seed when the sweeps have several. A pipeline
// name that two sweeps give to different pipelines (other settings) is
// shown with its settings (see pipelineNames). Stump choices and the
// theory figures belong to single sweeps and are left out.
func Combined(ctx context.Context, st *store.Store, recs []storeconv.Record) (report.Input, error) {
	in := report.Input{Sweep: "all sweeps"}
	c := &combiner{in: &in, scen: map[string]*merged{}, names: pipelineNames(recs),
		seen: map[resultKey]bool{}, seeds: map[uint64]bool{}, failed: map[report.Failure]bool{}}
	for i, rec := range recs {
		one, err := Build(ctx, st, rec)
		if err != nil {
			return report.Input{}, err
		}
		if i == 0 {
			in.Task = one.Task
		} else if one.Task != in.Task {
			return report.Input{}, fmt.Errorf("%w: sweeps %q and %q score different tasks (%s and %s); report them apart",
				ErrMixedTasks, recs[0].Spec.Name, rec.Spec.Name, taskName(in.Task), taskName(one.Task))
		}
		c.add(rec.Spec, one)
		in.SweepID += fmt.Sprintf("%s %.12s; ", rec.Spec.Name, rec.ID)
	}
	class, err := classText(st)
	if err != nil {
		return report.Input{}, err
	}
	in.SweepID = strings.TrimSuffix(in.SweepID, "; ") + class
	jobs, err := combinedJobs(st, recs)
	if err != nil {
		return report.Input{}, err
	}
	in.Jobs = jobs
	if in.Curves, err = c.curves(ctx); err != nil {
		return report.Input{}, err
	}
	return in, nil
}

// ErrMixedTasks is wrapped by Combined's error for sweeps of different
// tasks: R² and AUC cannot be ranked together.
var ErrMixedTasks = errors.New("reportgen: sweeps of different tasks")

// taskName names a report task in messages.
func taskName(t report.Task) string {
	if t == report.Classification {
		return "classification"
	}
	return "regression"
}

// ByTask splits sweeps into those of regression and those of
// classification, each in the order given, so that each group can have
// its combined report.
func ByTask(recs []storeconv.Record) (regression, classification []storeconv.Record) {
	for _, r := range recs {
		if r.Spec != nil && len(r.Spec.Scenarios) > 0 && sim.IsClassification(r.Spec.Scenarios[0].Task) {
			classification = append(classification, r)
		} else {
			regression = append(regression, r)
		}
	}
	return regression, classification
}

// WriteCombined renders Combined into dir.
func WriteCombined(ctx context.Context, st *store.Store, recs []storeconv.Record, dir string) ([]string, error) {
	in, err := Combined(ctx, st, recs)
	if err != nil {
		return nil, err
	}
	return report.Write(ctx, dir, in)
}

// combiner merges sweeps' report inputs into in.
type combiner struct {
	in     *report.Input
	scen   map[string]*merged // drawIdentity → the combined scenario
	order  []*merged          // combined scenarios, first seen first
	names  map[string]string  // canonical pipeline → its record key (pipelineNames)
	seen   map[resultKey]bool // results kept, by data, repetition and canonical pipeline
	seeds  map[uint64]bool
	failed map[report.Failure]bool // job failures already listed
}

// merged is one combined scenario.
type merged struct {
	sc         sim.Scenario
	seed       uint64
	at         int    // index in in.Scenarios
	id         string // drawIdentity
	key, title string // combined key and title
}

// resultKey is one result of a combined report: a pipeline on a
// scenario's data at one repetition (the imputation figure's points have
// no repetition: their scores stand in for it).
type resultKey struct {
	draw, pipeline string
	rep            int
	r2, rmse       float64
}

// drawIdentity names the data of a scenario under a seed, as the store's
// DrawKey does: equal identities draw the same data.
func drawIdentity(seed uint64, sc sim.Scenario) string {
	return strconv.FormatUint(seed, 10) + "\x00" + sc.Canonical()
}

// add merges a sweep (spec sw, built input one) into the combined input.
func (c *combiner) add(sw *grid.Sweep, one report.Input) {
	c.seeds[sw.Seed] = true
	byKey, byTitle := map[string]*merged{}, map[string]*merged{}
	for si, sc := range one.Scenarios {
		m := c.scenario(sw, sw.Scenarios[si], sc)
		byKey[sc.Key], byTitle[sc.Title] = m, m
	}
	pipes := map[string]grid.Pipeline{}
	for pi, k := range pipelineKeys(sw) {
		pipes[k] = sw.Pipelines[pi]
	}
	for _, r := range one.Records {
		m, p := byKey[r.Scenario], pipes[r.Pipeline]
		if c.first(resultKey{draw: m.id, pipeline: p.Canonical(), rep: r.Rep}) {
			r.Scenario, r.Pipeline = m.key, c.names[p.Canonical()]
			c.in.Records = append(c.in.Records, r)
		}
	}
	for _, cal := range one.Calibration {
		m, p := byKey[cal.Scenario], pipes[cal.Pipeline]
		if c.first(resultKey{draw: m.id, pipeline: "calibration " + p.Canonical(), rep: -1}) {
			cal.Scenario, cal.Pipeline = m.key, c.names[p.Canonical()]
			c.in.Calibration = append(c.in.Calibration, cal)
		}
	}
	for _, pt := range one.Impute {
		m, p := byKey[pt.Scenario], pipes[pt.Pipeline]
		if c.first(resultKey{draw: m.id, pipeline: p.Canonical(), rep: -1, r2: pt.R2, rmse: pt.RMSE}) {
			pt.Scenario, pt.Pipeline = m.key, c.names[p.Canonical()]
			c.in.Impute = append(c.in.Impute, pt)
		}
	}
	for _, f := range one.Failures {
		m := byTitle[f.Scenario]
		f.Scenario = m.title
		if f.Pipeline != "" { // a failed run: listed with its record
			p := pipes[f.Pipeline]
			if !c.first(resultKey{draw: m.id, pipeline: "failed " + p.Canonical(), rep: f.Rep}) {
				continue
			}
			f.Pipeline = c.names[p.Canonical()]
		} else if c.failed[f] {
			continue
		}
		c.failed[f] = true
		c.in.Failures = append(c.in.Failures, f)
	}
}

// first reports whether k is seen for the first time: a later sweep's
// result on the same data, repetition and pipeline is the same stored
// result, counted once.
func (c *combiner) first(k resultKey) bool {
	if c.seen[k] {
		return false
	}
	c.seen[k] = true
	return true
}

// pipelineNames returns the record key of every pipeline of recs by its
// canonical name: its name when no other pipeline of any sweep has it,
// else its label with settings, else (methods of other identities) its
// canonical name.
func pipelineNames(recs []storeconv.Record) map[string]string {
	byName, byLabel := map[string]map[string]bool{}, map[string]map[string]bool{}
	note := func(m map[string]map[string]bool, k, canon string) {
		if m[k] == nil {
			m[k] = map[string]bool{}
		}
		m[k][canon] = true
	}
	for _, rec := range recs {
		for _, p := range rec.Spec.Pipelines {
			note(byName, p.Name(), p.Canonical())
			note(byLabel, p.Label(), p.Canonical())
		}
	}
	out := map[string]string{}
	for _, rec := range recs {
		for _, p := range rec.Spec.Pipelines {
			switch canon := p.Canonical(); {
			case len(byName[p.Name()]) == 1:
				out[canon] = p.Name()
			case len(byLabel[p.Label()]) == 1:
				out[canon] = p.Label()
			default:
				out[canon] = canon
			}
		}
	}
	return out
}

// scenario returns the combined scenario of sc (sweep sw's scenario
// s, shown as sc in its own report), adding it on first sight; a later
// sweep adds its name to the "sweep" label, its labels not yet shown and
// its planned repetitions when more.
func (c *combiner) scenario(sw *grid.Sweep, s sim.Scenario, sc report.Scenario) *merged {
	id := drawIdentity(sw.Seed, s)
	if m, ok := c.scen[id]; ok {
		shown := &c.in.Scenarios[m.at]
		shown.Labels[0].Value += ", " + sw.Name
		shown.RepsPlanned = max(shown.RepsPlanned, sc.RepsPlanned)
		for _, l := range sc.Labels {
			if !slices.Contains(shown.Labels, l) {
				shown.Labels = append(shown.Labels, l)
			}
		}
		return m
	}
	m := &merged{sc: s, seed: sw.Seed, at: len(c.in.Scenarios), id: id,
		key: sw.Name + ": " + sc.Key, title: sw.Name + " · " + sc.Title}
	sc.Key, sc.Title = m.key, m.title
	sc.Labels = append([]report.Label{{Name: "sweep", Value: sw.Name}}, sc.Labels...)
	c.in.Scenarios = append(c.in.Scenarios, sc)
	c.scen[id] = m
	c.order = append(c.order, m)
	return m
}

// curves returns the learning-curve options over every simulated
// combined scenario: panels from a description of all of them, prefixed
// by the seed when the sweeps have several.
func (c *combiner) curves(ctx context.Context) (stats.CurveOptions, error) {
	var scen []sim.Scenario
	for _, m := range c.order {
		if m.sc.Table == nil {
			scen = append(scen, m.sc)
		}
	}
	desc := newDescriber(scen)
	var pts []curvePoint
	for _, m := range c.order {
		if m.sc.Table != nil {
			continue
		}
		panel := desc.panel(m.sc)
		if len(c.seeds) > 1 {
			panel = "seed " + strconv.FormatUint(m.seed, 10) + " · " + panel
		}
		pts = append(pts, curvePoint{key: m.key, panel: panel, sc: m.sc})
	}
	return curveOptions(ctx, pts)
}

// jobKey is a job of a combined report: its data and unit.
type jobKey struct {
	draw string
	unit int
}

// combinedJobs counts the distinct jobs of recs: planned, done (done in
// every sweep that plans it) and failed (in some sweep).
func combinedJobs(st *store.Store, recs []storeconv.Record) (report.Jobs, error) {
	planned, done, failed := map[jobKey]int{}, map[jobKey]int{}, map[jobKey]bool{}
	for _, rec := range recs {
		sw := rec.Spec
		job := func(j int) jobKey {
			si, u := sw.Job(j)
			return jobKey{drawIdentity(sw.Seed, sw.Scenarios[si]), u}
		}
		for j := range sw.Jobs() {
			planned[job(j)]++
		}
		if err := st.ScanSweep(rec.ID, rec.Stored, store.ScanFuncs{Done: func(j int) { done[job(j)]++ }}); err != nil {
			return report.Jobs{}, fmt.Errorf("reportgen: scan %.12s: %w", rec.ID, err)
		}
		fails, err := st.SweepFailures(rec.ID, rec.Stored)
		if err != nil {
			return report.Jobs{}, fmt.Errorf("reportgen: failures of %.12s: %w", rec.ID, err)
		}
		for _, f := range fails {
			failed[job(f.Job)] = true
		}
	}
	out := report.Jobs{Planned: len(planned), Failed: len(failed)}
	for k, n := range done {
		if n == planned[k] {
			out.Done++
		}
	}
	return out, nil
}
