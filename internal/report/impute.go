package report

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ImputePoint is one repetition of an imputing pipeline on a scenario:
// its test R² (classification: AUC, as Record.R2) and the standardised
// RMSE of its imputed test values on the entries whose truth is known
// (amputed cells of a table, every NA of simulated data).
type ImputePoint struct {
	Scenario, Pipeline string
	R2, RMSE           float64
}

const imputePanelW, imputePanelH, imputeCols = 220, 170, 3

// imputeFigure draws prediction R² against imputation RMSE, one panel
// per scenario with amputed (or simulated) NA, one point per imputing
// pipeline at its means over repetitions, labelled by pipeline: the
// figure the field uses to ask whether better imputation buys better
// prediction.
func imputeFigure(p *prepared, pal palette) (figure, bool) {
	type acc struct{ r2, rmse, n float64 }
	means := map[[2]string]*acc{}
	var scen []string
	for _, pt := range p.Impute {
		if math.IsNaN(pt.R2) || math.IsNaN(pt.RMSE) || math.IsInf(pt.RMSE, 0) {
			continue
		}
		k := [2]string{pt.Scenario, pt.Pipeline}
		if means[k] == nil {
			means[k] = &acc{}
			if !slices.Contains(scen, pt.Scenario) {
				scen = append(scen, pt.Scenario)
			}
		}
		a := means[k]
		a.r2, a.rmse, a.n = a.r2+pt.R2, a.rmse+pt.RMSE, a.n+1
	}
	if len(scen) == 0 {
		return figure{}, false
	}
	order := p.scenarioOrder(scen)
	g := &grid{Gap: 14, Top: titleBand("Prediction " + p.score.short + " against imputation RMSE"),
		Bottom: labelBand("imputation RMSE on the test set's known NA (sd units)")}
	var row []*plot.Plot
	for _, sc := range order {
		pl := newPlot()
		pl.Title.Text = p.titleOf(sc)
		pl.Title.TextStyle.Font.Size = fontLabel
		pl.Y.Label.Text = "mean " + p.score.name
		var labels plotter.XYLabels
		for _, k := range sortedKeys(means, sc) {
			a := means[[2]string{sc, k}]
			xy := plotter.XY{X: a.rmse / a.n, Y: a.r2 / a.n}
			s, _ := plotter.NewScatter(plotter.XYs{xy})
			col, _ := pal.colour(p.strategy(k))
			s.GlyphStyle.Color, s.GlyphStyle.Radius, s.GlyphStyle.Shape = col, 3, draw.CircleGlyph{}
			pl.Add(s)
			labels.XYs, labels.Labels = append(labels.XYs, xy), append(labels.Labels, k)
		}
		if l, err := plotter.NewLabels(labels); err == nil {
			for i := range l.TextStyle {
				l.TextStyle[i] = textStyle(fontTick, draw.XLeft, draw.YCenter)
			}
			l.Offset = vg.Point{X: 4}
			pl.Add(l)
		}
		pl.Add(frame{Grid: true})
		padRange(&pl.X)
		padRange(&pl.Y)
		row = append(row, pl)
		if len(row) == imputeCols {
			g.Plots, row = append(g.Plots, row), nil
		}
	}
	if len(row) > 0 {
		g.Plots = append(g.Plots, row)
	}
	for range g.Plots {
		g.DataH = append(g.DataH, imputePanelH)
	}
	for range min(imputeCols, len(order)) {
		g.DataW = append(g.DataW, imputePanelW)
	}
	w, h := g.size()
	return figure{Name: "impute-" + p.score.slug(), Section: "impute", Title: "Prediction " + p.score.short + " against imputation RMSE",
		Caption: fmt.Sprintf("Per scenario, each imputing pipeline at its mean over repetitions of the "+p.score.name+" (vertical) and of the RMSE of its imputed test values on the entries whose true value is known (amputed cells of a table, every NA of simulated data), each column's errors in units of its training sd (horizontal). %d scenarios.", len(order)),
		W:       w, H: h, Draw: g.draw}, true
}

// sortedKeys lists the pipelines with a mean on scenario sc, sorted.
func sortedKeys[V any](m map[[2]string]V, sc string) []string {
	var out []string
	for k := range m {
		if k[0] == sc {
			out = append(out, k[1])
		}
	}
	slices.Sort(out)
	return out
}

// scenarioOrder returns keys in the report's scenario order.
func (p *prepared) scenarioOrder(keys []string) []string {
	var out []string
	for _, sc := range p.scen {
		if slices.Contains(keys, sc.Key) {
			out = append(out, sc.Key)
		}
	}
	for _, k := range keys {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// titleOf returns a scenario's title, or its key.
func (p *prepared) titleOf(key string) string {
	if t, ok := p.title[key]; ok && t != "" {
		return t
	}
	return key
}

// padRange widens an axis' data range by 8% on each side (and a flat
// range by ±0.05), so that points do not sit on the frame.
func padRange(a *plot.Axis) {
	lo, hi := a.Min, a.Max
	if hi <= lo {
		lo, hi = lo-0.05, hi+0.05
	}
	d := 0.08 * (hi - lo)
	a.Min, a.Max = lo-d, hi+d
}
