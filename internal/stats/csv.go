package stats

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
)

// The CSV writers below produce tidy, deterministic files readable by
// R's read.csv and pandas: a header row, one observation per row, rows in
// the order of the input (which this package's functions return
// sorted), floats in Go's shortest round-trip form, NaN as "NA",
// infinities as "Inf"/"-Inf", booleans as "TRUE"/"FALSE". Wrap them in
// atomicfile.WriteFile to write a file safely.

// ResultsHeader is the header of WriteResultsCSV.
var ResultsHeader = []string{"scenario", "rep", "pipeline", "failed",
	"r2", "mse", "fit_seconds", "predict_seconds"}

// ScoreNames names a record's two scores in CSV headers and metric
// columns: Score the R2 field's (higher is better), Loss the MSE
// field's. Regression names them "r2" and "mse"; a classification
// report, whose records carry the test AUC and log-loss there, "auc" and
// "log_loss".
type ScoreNames struct{ Score, Loss string }

// RegressionNames are the names the CSV writers use unless told
// otherwise.
var RegressionNames = ScoreNames{Score: "r2", Loss: "mse"}

// WriteResultsCSV writes one row per record (wide: every metric of the
// record on its row), sorted by CompareRecords; a failed record's
// metrics are written as NA. It returns Validate's errors or the
// writer's.
func WriteResultsCSV(w io.Writer, recs []Record) error {
	return WriteResultsCSVNamed(w, recs, RegressionNames)
}

// WriteResultsCSVNamed is WriteResultsCSV with the score columns named
// by names.
func WriteResultsCSVNamed(w io.Writer, recs []Record, names ScoreNames) error {
	if err := Validate(recs); err != nil {
		return err
	}
	s := slices.Clone(recs)
	slices.SortFunc(s, CompareRecords)
	rows := make([][]string, 0, len(s))
	for _, r := range s {
		m := []float64{r.R2, r.MSE, r.FitSeconds, r.PredictSeconds}
		if r.Failed {
			m = []float64{math.NaN(), math.NaN(), math.NaN(), math.NaN()}
		}
		rows = append(rows, append([]string{r.Scenario, strconv.Itoa(r.Rep), r.Pipeline,
			fmtBool(r.Failed)}, fmtFloats(m...)...))
	}
	header := slices.Clone(ResultsHeader)
	header[4], header[5] = names.Score, names.Loss
	return writeCSV(w, header, rows)
}

// SummaryHeader is the header of WriteSummaryCSV.
var SummaryHeader = []string{"scenario", "pipeline", "family", "runs", "failed", "metric",
	"n", "mean", "sd", "se", "min", "q1", "median", "q3", "max", "iqr",
	"whisker_lo", "whisker_hi", "n_outliers"}

// WriteSummaryCSV writes, for each PipelineSummary, one row per metric
// (r2, rel_r2, mse, fit_seconds, predict_seconds, in that order) with
// its Summary: quartiles type 7, whiskers by the 1.5·IQR rule.
func WriteSummaryCSV(w io.Writer, sums []PipelineSummary) error {
	return WriteSummaryCSVNamed(w, sums, RegressionNames)
}

// WriteSummaryCSVNamed is WriteSummaryCSV with the metrics named by
// names (Score, "rel_"+Score, Loss, fit_seconds, predict_seconds).
func WriteSummaryCSVNamed(w io.Writer, sums []PipelineSummary, names ScoreNames) error {
	var rows [][]string
	for _, ps := range sums {
		for _, m := range []struct {
			name string
			s    Summary
		}{{names.Score, ps.R2}, {"rel_" + names.Score, ps.RelR2}, {names.Loss, ps.MSE},
			{"fit_seconds", ps.Fit}, {"predict_seconds", ps.Predict}} {
			s := m.s
			row := []string{ps.Scenario, ps.Pipeline, ps.Family, strconv.Itoa(ps.Runs),
				strconv.Itoa(ps.Failed), m.name, strconv.Itoa(s.N)}
			row = append(row, fmtFloats(s.Mean, s.SD, s.SE, s.Min, s.Q1, s.Median, s.Q3,
				s.Max, s.IQR, s.Box.Lower, s.Box.Upper)...)
			rows = append(rows, append(row, strconv.Itoa(len(s.Box.Outliers))))
		}
	}
	return writeCSV(w, SummaryHeader, rows)
}

// TTestsHeader is the header of WriteTTestsCSV.
var TTestsHeader = []string{"scenario", "family", "a", "b", "n", "df", "mean_diff", "se",
	"t", "p", "p_holm", "conf", "ci_lo", "ci_hi", "status"}

// WriteTTestsCSV writes one row per pairwise test; mean_diff is a − b.
func WriteTTestsCSV(w io.Writer, tests []PairTest) error {
	rows := make([][]string, 0, len(tests))
	for _, t := range tests {
		rows = append(rows, ttestRow(t))
	}
	return writeCSV(w, TTestsHeader, rows)
}

// MetricTests are the pairwise tests of one metric.
type MetricTests struct {
	Metric string // e.g. "auc"
	Tests  []PairTest
}

// WriteMetricTTestsCSV writes the tests of several metrics in one file:
// TTestsHeader behind a first column "metric", metrics in the order
// given.
func WriteMetricTTestsCSV(w io.Writer, metrics []MetricTests) error {
	var rows [][]string
	for _, m := range metrics {
		for _, t := range m.Tests {
			rows = append(rows, append([]string{m.Metric}, ttestRow(t)...))
		}
	}
	return writeCSV(w, append([]string{"metric"}, TTestsHeader...), rows)
}

// ttestRow is one test's row of TTestsHeader.
func ttestRow(t PairTest) []string {
	row := []string{t.Scenario, t.Family, t.A, t.B, strconv.Itoa(t.N), strconv.Itoa(t.DF)}
	row = append(row, fmtFloats(t.MeanDiff, t.SE, t.T, t.P, t.PHolm, t.Conf, t.CILo, t.CIHi)...)
	return append(row, t.Status.String())
}

// CurvesHeader is the header of WriteCurvesCSV.
var CurvesHeader = []string{"panel", "kind", "pipeline", "n", "log10_n", "reps", "failed",
	"median", "q1", "q3"}

// WriteCurvesCSV writes one row per curve point (kind "pipeline") and
// per Bayes point (kind "bayes", empty pipeline, the Bayes R² in median,
// NA quartiles), panel by panel, Bayes rows first.
func WriteCurvesCSV(w io.Writer, panels []Panel) error {
	var rows [][]string
	for _, p := range panels {
		for _, b := range p.Bayes {
			row := []string{p.Name, "bayes", "", strconv.Itoa(b.N)}
			row = append(row, fmtFloats(b.Log10N)...)
			row = append(row, "NA", "NA")
			rows = append(rows, append(row, fmtFloats(b.R2, math.NaN(), math.NaN())...))
		}
		for _, c := range p.Curves {
			for _, pt := range c.Points {
				row := []string{p.Name, "pipeline", c.Pipeline, strconv.Itoa(pt.N)}
				row = append(row, fmtFloats(pt.Log10N)...)
				row = append(row, strconv.Itoa(pt.Reps), strconv.Itoa(pt.Failed))
				rows = append(rows, append(row, fmtFloats(pt.Median, pt.Q1, pt.Q3)...))
			}
		}
	}
	return writeCSV(w, CurvesHeader, rows)
}

// SelectionHeader is the header of WriteSelectionCSV.
var SelectionHeader = []string{"group", "n", "rate", "target", "total", "no_split", "splits",
	"hits", "freq", "se", "conf", "lo", "hi"}

// WriteSelectionCSV writes one row per stump-selection cell.
func WriteSelectionCSV(w io.Writer, sel []Selection) error {
	rows := make([][]string, 0, len(sel))
	for _, s := range sel {
		row := []string{s.Group, strconv.Itoa(s.N), fmtFloat(s.Rate), s.Target,
			strconv.Itoa(s.Total), strconv.Itoa(s.NoSplit), strconv.Itoa(s.Splits), strconv.Itoa(s.Hits)}
		rows = append(rows, append(row, fmtFloats(s.Freq, s.SE, s.Conf, s.Lo, s.Hi)...))
	}
	return writeCSV(w, SelectionHeader, rows)
}

func writeCSV(w io.Writer, header []string, rows [][]string) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return fmt.Errorf("stats: write csv: %w", err)
	}
	if err := cw.WriteAll(rows); err != nil {
		return fmt.Errorf("stats: write csv: %w", err)
	}
	return nil
}

// fmtFloat formats v for R and pandas: shortest round-trip decimal, NA, Inf, -Inf.
func fmtFloat(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NA"
	case math.IsInf(v, 1):
		return "Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func fmtFloats(vs ...float64) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = fmtFloat(v)
	}
	return out
}

func fmtBool(b bool) string {
	if b {
		return "TRUE"
	}
	return "FALSE"
}
