package reportgen

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/misslab/misslab/internal/fpclass"
	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/report"
	"github.com/misslab/misslab/internal/store"
	"github.com/misslab/misslab/internal/storeconv"
)

// KindUnavailable is the error kind of a stored result that has no
// meaning for its scenario (experiment.KindUnavailable: the Bayes oracle
// under censoring MNAR, which has no known Bayes predictor). Such
// results are not failures: Build leaves them out of the records and
// labels the scenario "not available" instead.
const KindUnavailable = "unavailable"

// ErrNoSweep is wrapped by Resolve's errors when no sweep, or more than
// one, matches.
var ErrNoSweep = errors.New("reportgen: no such sweep")

// Resolve finds the sweep arg names in st (see store.Store.Resolve).
// Errors wrap ErrNoSweep and the store's ErrNotFound or ErrAmbiguous.
func Resolve(st *store.Store, arg string) (rec storeconv.Record, others []string, err error) {
	rec, others, err = storeconv.Resolve(st, arg)
	if err != nil {
		return rec, nil, fmt.Errorf("%w: %w", ErrNoSweep, err)
	}
	return rec, others, nil
}

// Write builds the report input of sweep rec from st and renders it into
// dir with report.Write, returning the files written.
func Write(ctx context.Context, st *store.Store, rec storeconv.Record, dir string) ([]string, error) {
	in, err := Build(ctx, st, rec)
	if err != nil {
		return nil, err
	}
	return report.Write(ctx, dir, in)
}

// Build reads sweep rec's stored results and failures from st and
// returns the report input:
//
//   - Scenarios in grid order, titled by the parameters that vary in
//     the sweep and labelled with every parameter (columns 1-based).
//   - One record per stored (scenario, repetition, pipeline), Failed
//     when the result has an error kind, except KindUnavailable results,
//     which are dropped and noted as a "not available" label.
//   - Jobs planned, done (every pipeline stored) and failed, and the
//     failures: failed jobs and failed pipeline runs, by first line.
//   - Learning curves when the training size varies (see curves).
//   - Stump split choices for the stump model (see choices) and the
//     Proposition 1 and 2 points for prop1/prop2 (see theory).
//
// A pipeline is keyed by its name when no other pipeline of the sweep
// has that name (learner settings are then listed beside the sweep id),
// else by its canonical name with settings.
func Build(ctx context.Context, st *store.Store, rec storeconv.Record) (report.Input, error) {
	sw := rec.Spec
	if sw == nil || len(sw.Scenarios) == 0 {
		return report.Input{}, fmt.Errorf("%w: sweep %.12s has no scenarios", ErrNoSweep, rec.ID)
	}
	g := newGather(sw)
	if err := st.SweepResults(rec.Stored, func(job, si, rep, pi int, r store.Result) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		g.add(si, rep, pi, r)
		return nil
	}); err != nil {
		return report.Input{}, fmt.Errorf("reportgen: read results of %.12s: %w", rec.ID, err)
	}
	if sw.IsTable() {
		g.flushFolds()
	}
	class, err := classText(st)
	if err != nil {
		return report.Input{}, err
	}
	in := report.Input{Sweep: sw.Name, SweepID: rec.ID + class + settingsText(sw) + oorText(sw) + methodsText(sw),
		Records: g.records, Failures: g.failures, Scenarios: g.scenarios(), Task: g.task(),
		Calibration: g.calibrationCells()}
	if err := jobs(st, rec, g, &in); err != nil {
		return report.Input{}, err
	}
	curves, err := g.curves(ctx)
	if err != nil {
		return report.Input{}, err
	}
	in.Curves = curves
	if in.Choices = g.choices; len(in.Choices) > 0 {
		in.SelectionTarget = "X1" // the stump model's informative variable
	}
	in.Theory = g.theory()
	for _, pt := range g.impute {
		in.Impute = append(in.Impute, report.ImputePoint{Scenario: g.keys[pt.si], Pipeline: g.pipes[pt.pi], R2: pt.r2, RMSE: pt.rmse})
	}
	return in, nil
}

// classText names, for the line under the title, the floating-point
// class the store's scores were computed under (see store.FPClass):
// empty when none is recorded.
func classText(st *store.Store) (string, error) {
	class, _, err := st.FPClass()
	switch {
	case err != nil:
		return "", fmt.Errorf("reportgen: floating-point class: %w", err)
	case class == "":
		return "", nil
	case class == fpclass.Any:
		return "  ·  floating-point class: mixed (workers of any class were accepted)", nil
	}
	return "  ·  floating-point class: " + class, nil
}

// jobs fills the job counts and adds the failed jobs to the failures.
func jobs(st *store.Store, rec storeconv.Record, g *gather, in *report.Input) error {
	done := 0
	if err := st.ScanSweep(rec.ID, rec.Stored, store.ScanFuncs{Done: func(int) { done++ }}); err != nil {
		return fmt.Errorf("reportgen: scan %.12s: %w", rec.ID, err)
	}
	fails, err := st.SweepFailures(rec.ID, rec.Stored)
	if err != nil {
		return fmt.Errorf("reportgen: failures of %.12s: %w", rec.ID, err)
	}
	for _, f := range fails {
		in.Failures = append(in.Failures, report.Failure{Scenario: g.titles[f.Scenario], Rep: f.Rep,
			Message: "job: " + firstLine(f.Message)})
	}
	in.Jobs = report.Jobs{Planned: rec.Spec.Jobs(), Done: done, Failed: len(fails)}
	return nil
}

// pipelineKeys returns each pipeline's record key: its name when unique
// in the sweep, else its canonical name with settings.
func pipelineKeys(sw *grid.Sweep) []string {
	count := map[string]int{}
	for _, p := range sw.Pipelines {
		count[p.Name()]++
	}
	keys := make([]string, len(sw.Pipelines))
	for i, p := range sw.Pipelines {
		keys[i] = p.Name()
		if count[p.Name()] > 1 {
			keys[i] = p.Label()
		}
	}
	return keys
}

// methodsText names the identities of the sweep's external methods, e.g.
// "  ·  methods: hgb 3f2a9c1b2d4e5f60, rpart 9b1c…" (first 16 hex digits;
// the full ones are in the store and in results.csv's pipeline column).
// It is empty for a sweep of built-in pipelines.
func methodsText(sw *grid.Sweep) string {
	var parts []string
	for _, m := range sw.Methods() {
		parts = append(parts, m.Name+" "+m.ID[:min(16, len(m.ID))])
	}
	if len(parts) == 0 {
		return ""
	}
	return "  ·  methods: " + strings.Join(parts, ", ")
}

// settingsText lists the learner settings of the sweep's pipelines, per
// learner when all its pipelines share them, e.g.
// "  ·  settings: tree{cp=0,maxdepth=1,minbucket=7}".
func settingsText(sw *grid.Sweep) string {
	byLearner := map[string]map[string]bool{} // learner → distinct settings texts
	for _, p := range sw.Pipelines {
		l := p.Learner()
		if byLearner[l] == nil {
			byLearner[l] = map[string]bool{}
		}
		byLearner[l][strings.TrimPrefix(p.Label(), p.Name())] = true
	}
	var parts []string
	for _, p := range sw.Pipelines {
		l := p.Learner()
		part := strings.TrimPrefix(p.Label(), p.Name())
		if len(byLearner[l]) == 1 {
			part = l + part
		} else if part != "" {
			part = p.Label()
		}
		if !strings.HasSuffix(part, "}") || slices.Contains(parts, part) {
			continue // no settings, or listed already
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return ""
	}
	return "  ·  settings: " + strings.Join(parts, "; ")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// sortedKeys returns a map's keys in increasing order.
func sortedKeys[K interface{ ~string | ~float64 }, V any](m map[K]V) []K {
	return slices.Sorted(maps.Keys(m))
}
