package report

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/misslab/misslab/internal/stats"
)

const (
	timingFloor  = 1e-6 // seconds; smaller timings (clock resolution) are drawn here
	timingPitch  = 12
	timingPanelW = 200
)

// timingFigures draws, per scenario, the paper's computation-time figure:
// one box per pipeline of the fit seconds (imputation + training) and of
// the predict seconds, on log axes.
func timingFigures(p *prepared, idx summaryIndex, pal palette) []figure {
	var figs []figure
	for si, sc := range p.scen {
		fams, pls := p.lineup(sc)
		var order []string // pipelines grouped by family
		var seps []int     // index where each family after the first starts
		for _, f := range fams {
			if len(order) > 0 {
				seps = append(seps, len(order))
			}
			order = append(order, pls[f]...)
		}
		if len(order) == 0 {
			continue // no results for this scenario yet
		}
		var sums []stats.PipelineSummary
		for _, pl := range order {
			s, ok := idx[[2]string{sc.Key, pl}]
			if !ok {
				s = stats.PipelineSummary{Pipeline: pl}
			}
			sums = append(sums, s)
		}
		fit := timingPanel(p, sums, pal, seps, true, "fit seconds (imputation + training)")
		pred := timingPanel(p, sums, pal, seps, false, "predict seconds (test set)")
		g := &grid{Gap: 14, Top: titleBand("Computation time — " + sc.Title),
			Plots: [][]*plot.Plot{{fit, pred}}, DataW: []vg.Length{timingPanelW, timingPanelW},
			DataH: []vg.Length{vg.Length(timingPitch * len(order))}}
		w, h := g.size()
		figs = append(figs, figure{Name: fmt.Sprintf("timing-%d", si+1), Section: "timing:" + sc.Key,
			Title: "Computation time, " + sc.Title,
			Caption: fmt.Sprintf("Wall-clock seconds per repetition on %s (%s; %s): fitting (imputer and learner) and predicting the test set, one box per pipeline (quartiles, median, 1.5 IQR whiskers, dots beyond), log scale; times below %g s are drawn at %g s.",
				sc.Title, describe(sc), p.repsText(sc), timingFloor, timingFloor),
			W: w, H: h, Draw: g.draw})
	}
	return figs
}

func timingPanel(p *prepared, sums []stats.PipelineSummary, pal palette, seps []int, fit bool, title string) *plot.Plot {
	pl := newPlot()
	pl.Title.Text = title
	pl.Title.TextStyle.Font.Size = fontLabel
	k := len(sums)
	lo, hi := math.Inf(1), math.Inf(-1)
	hb := hboxes{Width: timingPitch * 0.62}
	var ticks []plot.Tick
	for i, s := range sums {
		y := float64(k - 1 - i)
		ticks = append(ticks, plot.Tick{Value: y, Label: s.Pipeline})
		m := s.Predict
		if fit {
			m = s.Fit
		}
		if m.N == 0 {
			hb.Boxes = append(hb.Boxes, hbox{Y: y})
			continue
		}
		b := clampBox(m.Box, timingFloor)
		lo, hi = min(lo, b.Lower), max(hi, b.Upper)
		for _, v := range b.Outliers {
			lo, hi = min(lo, v), max(hi, v)
		}
		col, _ := pal.colour(p.strategy(s.Pipeline))
		hb.Boxes = append(hb.Boxes, hbox{Y: y, Box: b, N: m.N, Fill: col})
	}
	if math.IsInf(lo, 1) {
		lo, hi = timingFloor, 1
	}
	pl.X.Scale = plot.LogScale{}
	pl.X.Min, pl.X.Max = lo/1.5, hi*1.5
	if pl.X.Max/pl.X.Min < 100 { // show at least two decades so the scale reads as log
		c := math.Sqrt(pl.X.Min * pl.X.Max)
		pl.X.Min, pl.X.Max = c/10, c*10
	}
	pl.X.Tick.Marker = logTicks{}
	pl.Y.Min, pl.Y.Max = -0.5, float64(k)-0.5
	pl.X.Padding, pl.Y.Padding = 0, 0
	pl.X.LineStyle.Width, pl.Y.LineStyle.Width = 0, 0
	pl.Y.Tick.Length = 0
	pl.Y.Tick.Marker = plot.ConstantTicks(ticks)
	fr := frame{Grid: true}
	for _, s := range seps {
		fr.HLines = append(fr.HLines, float64(k-s)-0.5)
	}
	pl.Add(fr, hb)
	return pl
}
