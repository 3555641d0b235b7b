package report

import (
	"fmt"
	"image/color"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/misslab/misslab/internal/stats"
)

const selPanelW, selPanelH, selCols = 200, 140, 2

// rateColour spreads k missing rates over a dark-blue → magenta → amber
// ramp, in increasing rate.
func rateColour(i, k int) color.RGBA {
	t := 0.0
	if k > 1 {
		t = float64(i) / float64(k-1)
	}
	if t < 0.5 {
		return mix(rgb(0x0d0887), rgb(0xcc4778), 2*t)
	}
	return mix(rgb(0xcc4778), rgb(0xe89c1a), 2*t-1)
}

// selectionFigure draws the appendix's variable-selection experiment:
// per group (e.g. CART / conditional trees × where values are missing),
// the frequency with which stumps split on the target variable against
// the sample size, one line per missing rate, with Wilson intervals.
func selectionFigure(p *prepared, sel []stats.Selection) (figure, bool) {
	if len(sel) == 0 {
		return figure{}, false
	}
	var groups []string
	var rates []float64
	for _, s := range sel {
		groups = append(groups, s.Group)
		rates = append(rates, s.Rate)
	}
	groups = sortedUnique(groups)
	slices.Sort(rates)
	rates = slices.Compact(rates)
	var allN []int
	for _, s := range sel {
		allN = append(allN, s.N)
	}
	slices.Sort(allN)
	allN = slices.Compact(allN)
	g := &grid{Gap: 14, Top: titleBand(fmt.Sprintf("Stump variable selection: frequency of splitting on %s", p.SelectionTarget)),
		Bottom: labelBand("training size n (log scale)")}
	var ents []legendEntry
	for r0 := 0; r0 < len(groups); r0 += selCols {
		var row []*plot.Plot
		for j := r0; j < min(r0+selCols, len(groups)); j++ {
			pl, e := selectionPanel(p, sel, groups[j], rates, allN, j%selCols == 0)
			row = append(row, pl)
			if ents == nil {
				ents = e
			}
		}
		for len(row) < min(selCols, len(groups)) {
			row = append(row, nil)
		}
		g.Plots = append(g.Plots, row)
		g.DataH = append(g.DataH, selPanelH)
	}
	for range g.Plots[0] {
		g.DataW = append(g.DataW, selPanelW)
	}
	lw, _ := legendSize("missing rate", ents)
	g.Right = band{Size: lw + 8, Draw: func(c draw.Canvas) { drawLegend(c, "missing rate", ents) }}
	w, h := g.size()
	return figure{Name: "selection", Section: "selection", Title: "Variable selection of stumps",
		Caption: selectionCaption(p, sel, groups), W: w, H: h, Draw: g.draw}, true
}

func selectionPanel(p *prepared, sel []stats.Selection, group string, rates []float64, ns []int, left bool) (*plot.Plot, []legendEntry) {
	pl := newPlot()
	pl.Title.Text = group
	pl.X.Scale = plot.LogScale{}
	pl.X.Min, pl.X.Max = float64(ns[0])/1.2, float64(ns[len(ns)-1])*1.2
	pl.Y.Min, pl.Y.Max = 0, 1
	pl.X.Padding, pl.Y.Padding = 0, 0
	pl.X.LineStyle.Width, pl.Y.LineStyle.Width = 0, 0
	var xt []plot.Tick
	for _, n := range ns {
		xt = append(xt, plot.Tick{Value: float64(n), Label: strconv.Itoa(n)})
	}
	pl.X.Tick.Marker = plot.ConstantTicks(xt)
	pl.Y.Tick.Marker = niceTicks{N: 4}
	if left {
		pl.Y.Label.Text = "P(split on " + p.SelectionTarget + ")"
	}
	half := bandLine{X: []float64{pl.X.Min, pl.X.Max}, Mid: []float64{0.5, 0.5},
		Line: draw.LineStyle{Color: color.Gray{Y: 110}, Width: 0.8, Dashes: []vg.Length{3, 3}}}
	pl.Add(frame{}, half)
	var ents []legendEntry
	for i, r := range rates {
		col := rateColour(i, len(rates))
		bl := bandLine{Line: draw.LineStyle{Color: col, Width: 1.4}, Fill: withAlpha(col, 40), Glyph: true}
		for _, s := range sel {
			if s.Group == group && s.Rate == r {
				bl.X = append(bl.X, float64(s.N))
				bl.Mid, bl.Lo, bl.Hi = append(bl.Mid, s.Freq), append(bl.Lo, s.Lo), append(bl.Hi, s.Hi)
			}
		}
		if len(bl.X) > 0 {
			pl.Add(bl)
		}
		ents = append(ents, legendEntry{strconv.FormatFloat(r, 'g', -1, 64), bl})
	}
	return pl, ents
}

func selectionCaption(p *prepared, sel []stats.Selection, groups []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Fraction of stumps (one-split trees) whose split is on %s among those that split, per panel (%s), training size and missing rate; bands are %g%% Wilson score intervals (R's prop.test without continuity correction); dashed: 1/2. ",
		p.SelectionTarget, strings.Join(groups, "; "), 100*sel[0].Conf)
	total, nosplit := 0, 0
	mn, mx := sel[0].Total, sel[0].Total
	for _, s := range sel {
		total, nosplit = total+s.Total, nosplit+s.NoSplit
		mn, mx = min(mn, s.Total), max(mx, s.Total)
	}
	fmt.Fprintf(&b, "%d stumps in all, %d–%d per point; %d made no split and are left out of the frequencies.", total, mn, mx, nosplit)
	return b.String()
}
