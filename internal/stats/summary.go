package stats

// PipelineSummary describes one pipeline on one scenario over its
// repetitions: one row of the summary table and one box of each boxplot.
type PipelineSummary struct {
	Scenario string
	Pipeline string
	Family   string // GroupFunc(Pipeline); "" for a nil GroupFunc
	Runs     int    // records, failed or not
	Failed   int    // records marked Failed; every Summary below has N = Runs − Failed
	R2       Summary
	// RelR2 summarises the Rel values of RelativeR2 for this pipeline.
	RelR2   Summary
	MSE     Summary
	Fit     Summary // FitSeconds
	Predict Summary // PredictSeconds
}

// Summarize returns one PipelineSummary per (scenario, pipeline) present
// in recs, sorted by scenario then pipeline. A pipeline whose runs all
// failed still gets a row, with N = 0 summaries (NaN fields). family
// defines the relative-R² families (see RelativeR2). It returns
// Validate's errors.
func Summarize(recs []Record, family GroupFunc) ([]PipelineSummary, error) {
	rel, err := RelativeR2(recs, family)
	if err != nil {
		return nil, err
	}
	relOf := map[[2]string][]float64{}
	for _, r := range rel {
		k := [2]string{r.Scenario, r.Pipeline}
		relOf[k] = append(relOf[k], r.Rel)
	}
	var out []PipelineSummary
	for _, c := range cells(recs) {
		ps := PipelineSummary{Scenario: c.scenario, Pipeline: c.pipeline,
			Family: family.of(c.pipeline), Runs: len(c.recs)}
		var r2, mse, fit, pred []float64
		for _, r := range c.recs {
			if r.Failed {
				ps.Failed++
				continue
			}
			r2, mse = append(r2, r.R2), append(mse, r.MSE)
			fit, pred = append(fit, r.FitSeconds), append(pred, r.PredictSeconds)
		}
		// Values are finite (Validate), so Describe cannot fail here.
		ps.R2, _ = Describe(r2)
		ps.RelR2, _ = Describe(relOf[[2]string{c.scenario, c.pipeline}])
		ps.MSE, _ = Describe(mse)
		ps.Fit, _ = Describe(fit)
		ps.Predict, _ = Describe(pred)
		out = append(out, ps)
	}
	return out, nil
}
