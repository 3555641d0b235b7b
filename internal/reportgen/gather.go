package reportgen

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/report"
	"github.com/misslab/misslab/internal/sim"
	"github.com/misslab/misslab/internal/stats"
	"github.com/misslab/misslab/internal/store"
)

// gather accumulates one sweep's stored results into report parts.
type gather struct {
	sw     *grid.Sweep
	desc   describer
	keys   []string     // per scenario: its record key (scenarioKey)
	titles []string     // per scenario: its short title
	pipes  []string     // per pipeline: its record key
	specs  []learn.Spec // per pipeline: its parsed name (zero when it does not parse)
	groups []string     // per pipeline: its stump-choice group prefix

	records     []stats.Record
	failures    []report.Failure
	unavailable map[int][]string // scenario → distinct "pipeline: reason"
	choices     []stats.Choice
	prop1       []report.TheoryPoint
	prop2       map[prop2Key]*meanAcc
	folds       map[foldKey]*foldAcc // table sweeps: fold scores by repetition
	impute      []imputePoint        // per repetition: R² and imputation RMSE
	calibration map[[2]int]*calAcc   // (scenario, pipeline) → summed reliability bins
}

// calAcc sums one pipeline's reliability bins on one scenario.
type calAcc struct {
	bins []stats.CalibrationBin
	reps int
}

// add sums bins into a.
func (a *calAcc) add(bins []stats.CalibrationBin) {
	if len(a.bins) < len(bins) {
		a.bins = append(a.bins, make([]stats.CalibrationBin, len(bins)-len(a.bins))...)
	}
	for i, b := range bins {
		a.bins[i].Count += b.Count
		a.bins[i].Correct += b.Correct
		a.bins[i].Confidence += b.Confidence
	}
	a.reps++
}

// prop2Key is one simulated Proposition 2 point: a strategy at (η, p).
type prop2Key struct {
	eta, p   float64
	strategy string
}

// meanAcc is a running mean.
type meanAcc struct {
	sum float64
	n   int
}

func newGather(sw *grid.Sweep) *gather {
	g := &gather{sw: sw, desc: newDescriber(sw.Scenarios), pipes: pipelineKeys(sw),
		unavailable: map[int][]string{}, prop2: map[prop2Key]*meanAcc{}, calibration: map[[2]int]*calAcc{}}
	for _, sc := range sw.Scenarios {
		g.keys = append(g.keys, scenarioKey(sc))
		g.titles = append(g.titles, g.desc.title(sc))
	}
	perLearner := map[string]int{}
	for _, p := range sw.Pipelines {
		sp := p.Spec()
		g.specs = append(g.specs, sp)
		perLearner[sp.Learner]++
	}
	for i, sp := range g.specs {
		g.groups = append(g.groups, sp.Learner)
		if perLearner[sp.Learner] > 1 {
			g.groups[i] = g.pipes[i]
		}
	}
	return g
}

// scenarioKey is a scenario's record key: its canonical encoding with a
// space after each ";", so that the report's tables can wrap it (one
// unbroken 120-character key squeezed every other column of the
// scenario table), and the maskable columns named as readers and grid
// files do (X1,X2,X3) rather than sim's 0-based indices.
func scenarioKey(sc sim.Scenario) string {
	if sc.Table != nil {
		return tableKey(sc)
	}
	parts := strings.Split(sc.Canonical(), ";")
	for i, p := range parts {
		if strings.HasPrefix(p, "columns=") {
			names := make([]string, len(sc.Columns))
			for j, c := range sc.Columns {
				names[j] = "X" + strconv.Itoa(c+1)
			}
			parts[i] = "columns=" + strings.Join(names, ",")
		}
	}
	return strings.Join(parts, "; ")
}

// add takes one stored result of pipeline pi on repetition rep of
// scenario si. A success with a number that cannot be a score counts as
// a store.KindInvalid failure (see checked).
func (g *gather) add(si, rep, pi int, r store.Result) {
	r = classScores(checked(r))
	if r.ErrKind == KindUnavailable {
		why := g.pipes[pi] + ": " + firstLine(r.ErrMsg)
		if !slices.Contains(g.unavailable[si], why) {
			g.unavailable[si] = append(g.unavailable[si], why)
		}
		return
	}
	if g.sw.IsTable() {
		if r.ErrKind != "" {
			k := g.sw.Units()
			g.failures = append(g.failures, report.Failure{Scenario: g.titles[si], Rep: rep / k, Pipeline: g.pipes[pi],
				Message: "fold " + strconv.Itoa(rep%k+1) + ": " + r.ErrKind + ": " + firstLine(r.ErrMsg)})
		}
		g.addFold(si, rep, pi, r)
		return
	}
	rec := stats.Record{Scenario: g.keys[si], Rep: rep, Pipeline: g.pipes[pi], R2: r.R2, MSE: r.MSE,
		FitSeconds: r.FitSeconds, PredictSeconds: r.PredictSeconds, Failed: r.ErrKind != ""}
	if !rec.Failed && r.Class != nil {
		g.addCalibration(si, pi, bins(r.Class))
	}
	if !rec.Failed && !math.IsNaN(r.ImputeRMSETest) {
		g.impute = append(g.impute, imputePoint{si: si, pi: pi, r2: r.R2, rmse: r.ImputeRMSETest})
	}
	g.records = append(g.records, rec)
	if rec.Failed {
		g.failures = append(g.failures, report.Failure{Scenario: g.titles[si], Rep: rep, Pipeline: g.pipes[pi],
			Message: r.ErrKind + ": " + firstLine(r.ErrMsg)})
		return
	}
	sc, sp := g.sw.Scenarios[si], g.specs[pi]
	switch sc.Model {
	case sim.Stump:
		g.addChoice(sc, pi, r)
	case sim.Prop1:
		if s, ok := prop1Strategy(sp); ok && r.Root == "X1" && !math.IsInf(r.RootThreshold, 0) { // checked: not NaN
			g.prop1 = append(g.prop1, report.TheoryPoint{Prop: 1, P: sc.Rate, Strategy: s, Value: r.RootThreshold})
		}
	case sim.Prop2:
		if sp.Learner == learn.Tree && !sp.Mask && learn.Native(sp.Strategy) {
			k := prop2Key{eta: sc.Eta, p: sc.Rate, strategy: sp.Strategy}
			if g.prop2[k] == nil {
				g.prop2[k] = &meanAcc{}
			}
			g.prop2[k].sum += r.MSE
			g.prop2[k].n++
		}
	}
}

// addChoice records the root split of a tree or conditional-tree stump
// on the appendix's stump model: group "tree · NA on X1" (the pipeline's
// key instead of its learner when the learner has several pipelines),
// its training size and missing rate, and the split variable ("" for no
// split).
func (g *gather) addChoice(sc sim.Scenario, pi int, r store.Result) {
	if l := g.specs[pi].Learner; l != learn.Tree && l != learn.CTree {
		return
	}
	where := "no NA"
	if sc.Mechanism != sim.None {
		where = "NA on " + columnsText(sc)
	}
	g.choices = append(g.choices, stats.Choice{Group: g.groups[pi] + " · " + where, N: sc.NTrain,
		Rate: sc.Rate, Chosen: r.Root})
}

// prop1Strategy maps a tree pipeline to the Proposition 1 figure's
// strategies: MIA chooses its threshold with the missing values ("mia");
// the available-case strategies (surrogate, block, prob, majority) use
// the CART criterion on the observed values ("cart"). Imputation and
// mask pipelines are not part of the proposition.
func prop1Strategy(sp learn.Spec) (string, bool) {
	if sp.Learner != learn.Tree || sp.Mask {
		return "", false
	}
	switch sp.Strategy {
	case learn.MIA:
		return "mia", true
	case learn.Surrogate, learn.Block, learn.Prob, learn.Majority:
		return "cart", true
	}
	return "", false
}

// scenarios lists the sweep's scenarios in grid order with their titles,
// labels and planned repetitions; a scenario where some pipeline had no
// meaning gets a "not available" label saying which and why.
func (g *gather) scenarios() []report.Scenario {
	out := make([]report.Scenario, len(g.sw.Scenarios))
	for i, sc := range g.sw.Scenarios {
		out[i] = report.Scenario{Key: g.keys[i], Title: g.titles[i], Labels: g.desc.labels(sc),
			RepsPlanned: g.sw.Repetitions}
		if why := g.unavailable[i]; len(why) > 0 {
			out[i].Labels = append(out[i].Labels, report.Label{Name: "not available", Value: strings.Join(why, "; ")})
		}
	}
	return out
}

// curves returns the learning-curve options of the sweep (see
// curveOptions): every scenario is a point, its panel its description
// without n_train.
func (g *gather) curves(ctx context.Context) (stats.CurveOptions, error) {
	pts := make([]curvePoint, len(g.sw.Scenarios))
	for i, sc := range g.sw.Scenarios {
		pts[i] = curvePoint{key: g.keys[i], panel: g.desc.panel(sc), sc: sc}
	}
	return curveOptions(ctx, pts)
}

// curvePoint is a scenario as a point of a learning curve: its record
// key, its panel and the scenario (n = its n_train).
type curvePoint struct {
	key, panel string
	sc         sim.Scenario
}

// curveOptions returns the learning-curve options when the points have
// several training sizes (else the zero options, no curves): a record's
// scenario key gives its panel and n = n_train, and a panel's Bayes rate
// is sim.BayesR2 of its scenarios' population (exact for the linear
// model, Monte Carlo otherwise; computed once per panel), absent when
// sim has no Bayes predictor (censoring MNAR). The points of one panel
// must share everything but n_train.
func curveOptions(ctx context.Context, pts []curvePoint) (stats.CurveOptions, error) {
	sizes := map[int]bool{}
	for _, pt := range pts {
		sizes[pt.sc.NTrain] = true
	}
	if len(sizes) < 2 {
		return stats.CurveOptions{}, nil
	}
	type point struct {
		panel string
		n     int
	}
	points := map[string]point{}
	bayes := map[string]float64{}
	for _, pt := range pts {
		points[pt.key] = point{pt.panel, pt.sc.NTrain}
		if _, done := bayes[pt.panel]; done || !sim.HasBayes(pt.sc) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return stats.CurveOptions{}, err
		}
		r2, _, err := sim.BayesR2(pt.sc)
		if err != nil {
			return stats.CurveOptions{}, fmt.Errorf("reportgen: Bayes rate of %s: %w", pt.panel, err)
		}
		bayes[pt.panel] = r2
	}
	return stats.CurveOptions{
		Point: func(key string) (string, int, bool) {
			p, ok := points[key]
			return p.panel, p.n, ok
		},
		Bayes: func(panel string, _ int) (float64, bool) {
			r2, ok := bayes[panel]
			return r2, ok
		},
	}, nil
}

// theory returns the simulated Proposition 1 and 2 points, nil when the
// sweep has neither model. Proposition 1: every stump's root threshold
// on X1 (one point per repetition; NA-left and NA-right MIA splits land
// on s* and 1 − s*; MIA's "observed vs NA" split, threshold +Inf, and
// stumps that did not split are left out). Proposition 2: the mean test
// MSE over the completed repetitions of each native tree strategy at
// (p, η), the risk of the proposition (its model has no noise).
func (g *gather) theory() *report.Theory {
	etas := map[float64]bool{}
	props := false
	for _, sc := range g.sw.Scenarios {
		switch sc.Model {
		case sim.Prop2:
			etas[sc.Eta] = true
			props = true
		case sim.Prop1:
			props = true
		}
	}
	if !props {
		return nil
	}
	th := &report.Theory{Points: slices.Clone(g.prop1)}
	th.Etas = sortedKeys(etas)
	keys := make([]prop2Key, 0, len(g.prop2))
	for k := range g.prop2 {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b prop2Key) int {
		return cmp.Or(cmp.Compare(a.eta, b.eta), cmp.Compare(a.p, b.p), strings.Compare(a.strategy, b.strategy))
	})
	for _, k := range keys {
		m := g.prop2[k]
		th.Points = append(th.Points, report.TheoryPoint{Prop: 2, P: k.p, Eta: k.eta, Strategy: k.strategy,
			Value: m.sum / float64(m.n)})
	}
	return th
}

// KindUndefined is the error kind the report gives a classification
// result whose AUC is undefined (its test set held one class): it has no
// score to compare, and is listed as a failed run saying why.
const KindUndefined = "undefined"

// classScores moves a classification result's AUC and log-loss into its
// R2 and MSE, where the report reads a run's two scores (report.Task);
// a result with an undefined AUC becomes a KindUndefined failure.
// Regression results are returned as they are.
func classScores(r store.Result) store.Result {
	if r.Class == nil || r.ErrKind != "" {
		return r
	}
	if math.IsNaN(r.Class.AUC) {
		return store.Result{ErrKind: KindUndefined, ErrMsg: "AUC undefined: a class is absent from the test set"}
	}
	r.R2, r.MSE = r.Class.AUC, r.Class.LogLoss
	return r
}

// bins converts stored reliability bins.
func bins(c *store.ClassScores) []stats.CalibrationBin {
	out := make([]stats.CalibrationBin, len(c.Reliability))
	for i, b := range c.Reliability {
		out[i] = stats.CalibrationBin{Count: int(b.Count), Correct: int(b.Correct), Confidence: b.Confidence}
	}
	return out
}

// addCalibration sums one run's (or one repetition's folds') bins.
func (g *gather) addCalibration(si, pi int, b []stats.CalibrationBin) {
	if len(b) == 0 {
		return
	}
	k := [2]int{si, pi}
	if g.calibration[k] == nil {
		g.calibration[k] = &calAcc{}
	}
	g.calibration[k].add(b)
}

// calibrationCells returns the summed bins in scenario, then pipeline
// order.
func (g *gather) calibrationCells() []report.CalibrationCell {
	var out []report.CalibrationCell
	for si := range g.sw.Scenarios {
		for pi := range g.sw.Pipelines {
			if a := g.calibration[[2]int{si, pi}]; a != nil {
				out = append(out, report.CalibrationCell{Scenario: g.keys[si], Pipeline: g.pipes[pi], Bins: a.bins, Reps: a.reps})
			}
		}
	}
	return out
}

// task is the report task of the sweep.
func (g *gather) task() report.Task {
	if sim.IsClassification(g.sw.Scenarios[0].Task) {
		return report.Classification
	}
	return report.Regression
}
