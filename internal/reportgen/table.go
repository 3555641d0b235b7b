package reportgen

import (
	"math"
	"strconv"
	"strings"

	"github.com/misslab/misslab/internal/report"
	"github.com/misslab/misslab/internal/sim"
	"github.com/misslab/misslab/internal/stats"
	"github.com/misslab/misslab/internal/store"
)

// tableKey is a table scenario's record key: the table's name and short
// hash, the split, and the amputation, e.g. "table=airquality.csv
// (3f2a…); 5-fold; mechanism=mcar; rate=0.2; columns=Wind,Temp". The full
// identity (every name list) stays in the store; the key only has to be
// unique within a sweep, whose scenarios share one table and split.
func tableKey(sc sim.Scenario) string {
	t := sc.Table
	parts := []string{"table=" + t.Name + " (" + t.SHA256[:12] + ")", splitText(t),
		"mechanism=" + sc.Mechanism}
	if sc.Mechanism != sim.None {
		parts = append(parts, "rate="+fmtF(sc.Rate), "columns="+strings.Join(tableColumnNames(sc), ","))
	}
	return strings.Join(parts, "; ")
}

// splitText describes a table's split: "5-fold CV" or "hold-out 30%".
func splitText(t *sim.TableRef) string {
	if t.Folds >= 2 {
		return strconv.Itoa(t.Folds) + "-fold CV"
	}
	return "hold-out " + percent(t.TestFraction)
}

// tableColumnNames names a table scenario's amputed feature columns.
func tableColumnNames(sc sim.Scenario) []string {
	out := make([]string, len(sc.Columns))
	for i, c := range sc.Columns {
		out[i] = sc.Table.Features[c]
	}
	return out
}

// tableColumnsText is columnsText for a table: the names, or "all (k)"
// when every one of more than three features is amputed.
func tableColumnsText(sc sim.Scenario) string {
	if len(sc.Columns) == sc.D && sc.D > 3 {
		return "all (" + strconv.Itoa(sc.D) + " features)"
	}
	return strings.Join(tableColumnNames(sc), ", ")
}

// tableLabels describes a table scenario for the report's tables. R² is
// measured against each test fold's own target variance, since a real
// table's Var(Y) is unknown; the label says so.
func tableLabels(sc sim.Scenario) []report.Label {
	t := sc.Table
	ls := []report.Label{{Name: "table", Value: t.Name}, {Name: "sha256", Value: t.SHA256[:16] + "…"},
		{Name: "target", Value: t.Target}, {Name: "split", Value: splitText(t)},
		{Name: "R²", Value: "1 − MSE / variance of the test fold's targets (the true Var(Y) is unknown)"},
		{Name: "mechanism", Value: "natural NA only"}}
	if sc.Mechanism != sim.None {
		ls[len(ls)-1].Value = "natural NA + " + mechanismText(sc.Mechanism) + " amputation"
		ls = append(ls, report.Label{Name: "rate", Value: percent(sc.Rate)},
			report.Label{Name: "columns", Value: tableColumnsText(sc)})
	}
	return append(ls, report.Label{Name: "features", Value: strconv.Itoa(sc.D)})
}

// foldKey is one (scenario, repetition, pipeline) of a table sweep.
type foldKey struct{ si, rep, pi int }

// foldAcc averages a pipeline's fold scores within one repetition.
type foldAcc struct {
	n, failed                int
	r2, mse, fit, pred, rmse float64
	rmseN                    int
	bins                     calAcc // a classification's reliability bins over the folds
}

// addFold takes a table sweep's result for one fold (unit = rep·K +
// fold): failures are reported per fold at once; scores are kept until
// flushFolds averages each repetition's K folds into one record, so
// that paired comparisons pair repetitions (whose fold scores are
// correlated), not folds.
func (g *gather) addFold(si, unit, pi int, r store.Result) {
	k := g.sw.Units()
	key := foldKey{si, unit / k, pi}
	if g.folds == nil {
		g.folds = map[foldKey]*foldAcc{}
	}
	a := g.folds[key]
	if a == nil {
		a = &foldAcc{}
		g.folds[key] = a
	}
	a.n++
	if r.ErrKind != "" {
		a.failed++
		return
	}
	a.r2 += r.R2
	a.mse += r.MSE
	if r.Class != nil {
		a.bins.add(bins(r.Class))
	}
	a.fit += r.FitSeconds
	a.pred += r.PredictSeconds
	if !math.IsNaN(r.ImputeRMSETest) {
		a.rmse += r.ImputeRMSETest
		a.rmseN++
	}
}

// flushFolds turns the complete repetitions of a table sweep into
// records: the mean over folds of R², MSE and times; a repetition with a
// failed fold is a failed record; one still missing folds is left out.
func (g *gather) flushFolds() {
	k := g.sw.Units()
	for si := range g.sw.Scenarios {
		for rep := range g.sw.Repetitions {
			for pi := range g.sw.Pipelines {
				a := g.folds[foldKey{si, rep, pi}]
				if a == nil || a.n < k {
					continue
				}
				rec := stats.Record{Scenario: g.keys[si], Rep: rep, Pipeline: g.pipes[pi], Failed: a.failed > 0}
				if !rec.Failed {
					n := float64(k)
					rec.R2, rec.MSE, rec.FitSeconds, rec.PredictSeconds = a.r2/n, a.mse/n, a.fit/n, a.pred/n
					g.addCalibration(si, pi, a.bins.bins)
					if a.rmseN == k {
						g.impute = append(g.impute, imputePoint{si: si, pi: pi, r2: rec.R2, rmse: a.rmse / n})
					}
				}
				g.records = append(g.records, rec)
			}
		}
	}
}

// imputePoint is one repetition's mean test R² and imputation RMSE of an
// imputing pipeline.
type imputePoint struct {
	si, pi   int
	r2, rmse float64
}
