package report

import (
	"fmt"
	"strconv"

	"github.com/misslab/misslab/internal/stats"
)

// layout is the report's figures and page, in page order.
type layout struct {
	figures []figure
	page    page
}

// assemble builds every figure and the page that shows them.
func assemble(p *prepared, r *results) layout {
	var l layout
	l.page = page{Title: "misslab report: " + p.Sweep, Sweep: p.Sweep, SweepID: p.SweepID, Banner: banner(p.Jobs)}
	add := func(s section, figs ...figure) {
		for _, f := range figs {
			l.figures = append(l.figures, f)
			w, h := f.pixels()
			s.Figures = append(s.Figures, figRef{Num: len(l.figures), Name: f.Name, Title: f.Title,
				Caption: f.Caption, W: w, H: h})
		}
		l.page.Sections = append(l.page.Sections, s)
		if s.Level == 2 {
			l.page.Nav = append(l.page.Nav, s)
		}
	}
	add(section{ID: "scenarios", Heading: "Scenarios", Level: 2, Table: scenarioTable(p, r.sums),
		Text: []string{fmt.Sprintf("%d scenarios, %d pipelines, %d runs (%d failed).",
			len(p.scen), len(stats.Pipelines(p.Records)), len(p.Records), failedRuns(p.Records)),
			"Pipelines by learner family: " + p.pipelineText() + "."}})
	if len(p.Records) > 0 {
		add(section{ID: p.score.slug(), Heading: p.score.Title(), Level: 2}, boxGridFigures(p, r.idx, r.pal, false)...)
		add(section{ID: "relative", Heading: "Relative " + p.score.name, Level: 2}, boxGridFigures(p, r.idx, r.pal, true)...)
		if v := r.lossView; v != nil {
			add(section{ID: v.score.slug(), Heading: v.score.Title(), Level: 2}, boxGridFigures(v, r.loss.idx, r.pal, false)...)
		}
		perScenario(p, r, add)
	}
	rankSection(p, r.sums, add)
	if figs := calibrationFigures(p, r.pal); len(figs) > 0 {
		add(section{ID: "calibration", Heading: "Calibration", Level: 2,
			Text: []string{"Are the predicted probabilities honest? Reliability diagrams of each pipeline's predicted class; the per-bin counts are in calibration.csv."}}, figs...)
	}
	if f, ok := imputeFigure(p, r.pal); ok {
		add(section{ID: "impute", Heading: "Imputation quality and prediction", Level: 2,
			Text: []string{"Does better imputation buy better prediction? Each imputing pipeline's " + p.score.name + " against the error of its imputed values where the truth is known."}}, f)
	}
	curveView := p
	if r.lossView != nil {
		curveView = r.lossView
	}
	if f, ok := curveFigure(curveView, r.panels, r.pal); ok {
		add(section{ID: "curves", Heading: "Learning curves", Level: 2}, f)
	}
	if f, ok := selectionFigure(p, r.sel); ok {
		add(section{ID: "selection", Heading: "Variable selection", Level: 2}, f)
	}
	if p.Theory != nil {
		add(section{ID: "theory", Heading: "Theory: CART versus MIA", Level: 2},
			prop1Figure(p.Theory), prop2Figure(p.Theory))
	}
	add(failureSection(p, r))
	add(filesSection(p, r))
	return l
}

// perScenario adds one subsection per scenario: the summary table, the
// p-value heat maps and the timing figure.
func perScenario(p *prepared, r *results, add func(section, ...figure)) {
	text := "For each scenario: median and interquartile range of test R² per pipeline, the p-values of paired t-tests between the pipelines of each learner family, and computation times."
	heat := heatmapFigures(p, r.tests)
	if r.lossView != nil {
		text = "For each scenario: median and interquartile range of test AUC and median test log-loss per pipeline, the p-values of paired t-tests of AUC and of log-loss between the pipelines of each learner family, and computation times."
		heat = append(heat, heatmapFigures(r.lossView, r.loss.tests)...)
	}
	add(section{ID: "per-scenario", Heading: "Per scenario: summaries, t-tests, timing", Level: 2, Text: []string{text}})
	timing := timingFigures(p, r.idx, r.pal)
	for i, sc := range p.scen {
		var figs []figure
		for _, f := range append(heat, timing...) {
			if f.Section == "pvalues:"+sc.Key || f.Section == "timing:"+sc.Key {
				figs = append(figs, f)
			}
		}
		add(section{ID: "scenario-" + strconv.Itoa(i+1), Heading: sc.Title, Level: 3,
			Text:  []string{describe(sc) + "; " + p.repsText(sc) + "."},
			Table: summaryTable(p, sc, r.idx)}, figs...)
	}
}

func failedRuns(recs []stats.Record) int {
	n := 0
	for _, r := range recs {
		if r.Failed {
			n++
		}
	}
	return n
}

// failureSection lists failure messages and failed runs per pipeline.
func failureSection(p *prepared, r *results) section {
	s := section{ID: "failures", Heading: "Failures", Level: 2}
	if len(p.Failures) == 0 && failedRuns(p.Records) == 0 {
		s.Text = []string{"No failures were reported."}
		return s
	}
	s.Text = []string{fmt.Sprintf("%d failure reports, grouped by message; %d runs of pipelines are marked failed and left out of every statistic.",
		len(p.Failures), failedRuns(p.Records))}
	if len(p.Failures) > 0 {
		s.Table = failureTable(p.Failures)
	}
	return s
}

// filesSection links the data files.
func filesSection(p *prepared, r *results) section {
	s := section{ID: "files", Heading: "Data files", Level: 2, Links: []link{
		{"results.csv", "results.csv: one row per run (scenario, rep, pipeline, failed, R², MSE, seconds)"},
		{"summary.csv", "summary.csv: per scenario, pipeline and metric: n, mean, sd, quartiles, whiskers"},
		{"ttests.csv", "ttests.csv: every paired t-test, raw and Holm-adjusted p-values, confidence intervals"},
	}}
	if p.Task == Classification {
		s.Links[0].Text = "results.csv: one row per run (scenario, rep, pipeline, failed, AUC, log-loss, seconds)"
		s.Links[2].Text = "ttests.csv: every paired t-test of AUC and of log-loss (column metric), raw and Holm-adjusted p-values, confidence intervals"
	}
	if len(p.Calibration) > 0 {
		s.Links = append(s.Links, link{"calibration.csv", "calibration.csv: per scenario, pipeline and bin of the predicted class's probability: rows, rows right, mean probability, accuracy"})
	}
	if len(r.panels) > 0 {
		s.Links = append(s.Links, link{"curves.csv", "curves.csv: learning-curve points and Bayes rates" + map[bool]string{true: " (log-loss)"}[p.Task == Classification]})
	}
	if len(r.sel) > 0 {
		s.Links = append(s.Links, link{"selection.csv", "selection.csv: stump selection frequencies with Wilson intervals"})
	}
	if p.Theory != nil {
		s.Links = append(s.Links, link{"theory.csv", "theory.csv: closed-form curves of Propositions 1–2 and simulated points"})
	}
	return s
}
