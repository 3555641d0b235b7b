package report

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/misslab/misslab/internal/stats"
)

const curvePanelW, curvePanelH = 190, 130

// bandLine draws a median line with markers over a shaded 25–75% band,
// or (Band false) just a line, on a plot with a log X axis.
type bandLine struct {
	X, Mid, Lo, Hi []float64 // NaN Mid skips a point (no completed runs)
	Line           draw.LineStyle
	Fill           color.Color // nil: no band
	Glyph          bool
}

// Plot implements plot.Plotter.
func (b bandLine) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	var seg []int // indices of the current run of finite points
	flush := func() {
		if len(seg) == 0 {
			return
		}
		if b.Fill != nil && len(seg) > 1 {
			var poly []vg.Point
			for _, i := range seg {
				poly = append(poly, vg.Point{X: trX(b.X[i]), Y: trY(b.Hi[i])})
			}
			for k := len(seg) - 1; k >= 0; k-- {
				i := seg[k]
				poly = append(poly, vg.Point{X: trX(b.X[i]), Y: trY(b.Lo[i])})
			}
			c.FillPolygon(b.Fill, c.ClipPolygonXY(poly))
		}
		var line []vg.Point
		for _, i := range seg {
			line = append(line, vg.Point{X: trX(b.X[i]), Y: trY(b.Mid[i])})
		}
		c.StrokeLines(b.Line, c.ClipLinesXY(line)...)
		if b.Glyph {
			for _, pt := range line {
				c.DrawGlyph(draw.GlyphStyle{Color: b.Line.Color, Radius: 1.6, Shape: draw.CircleGlyph{}}, pt)
			}
		}
		seg = seg[:0]
	}
	for i := range b.X {
		if math.IsNaN(b.Mid[i]) {
			flush()
			continue
		}
		seg = append(seg, i)
	}
	flush()
}

// Thumbnail implements plot.Thumbnailer.
func (b bandLine) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	if b.Fill != nil {
		r := vg.Rectangle{Min: vg.Point{X: c.Min.X, Y: y - 3}, Max: vg.Point{X: c.Max.X, Y: y + 3}}
		c.SetColor(b.Fill)
		c.Fill(r.Path())
	}
	c.StrokeLine2(b.Line, c.Min.X, y, c.Max.X, y)
}

// withAlpha returns c at opacity a (0–255), non-premultiplied.
func withAlpha(c color.RGBA, a uint8) color.NRGBA {
	return color.NRGBA{R: c.R, G: c.G, B: c.B, A: a}
}

// curveFigure draws the paper's Figure 5: one row per learner family,
// one column per panel (model), median test R² with its 25–75% band
// against the training size on a log axis, and the Bayes rate.
func curveFigure(p *prepared, panels []stats.Panel, pal palette) (figure, bool) {
	if len(panels) == 0 {
		return figure{}, false
	}
	fams := curveFamilies(p, panels)
	yr := make([][2]float64, len(panels)) // y range per column
	for j, pn := range panels {
		yr[j] = curveRange(pn)
	}
	g := &grid{Gap: 12, Top: titleBand("Learning curves: median " + p.score.name + " and 25–75% band"),
		Bottom: labelBand("training size n (log scale)")}
	legends := make([][]legendEntry, len(fams))
	for i, f := range fams {
		var row []*plot.Plot
		seen := map[string]bool{}
		for j, pn := range panels {
			pl, ents := curvePanel(p, pn, f, pal, yr[j], i == 0, j == 0)
			row = append(row, pl)
			for _, e := range ents {
				if !seen[e.Label] {
					seen[e.Label] = true
					legends[i] = append(legends[i], e)
				}
			}
		}
		g.Plots = append(g.Plots, row)
		g.DataH = append(g.DataH, curvePanelH)
	}
	for range panels {
		g.DataW = append(g.DataW, curvePanelW)
	}
	for _, l := range legends {
		w, _ := legendSize("", l)
		g.RowRightW = max(g.RowRightW, w)
	}
	g.RowRight = func(row int, c draw.Canvas) { drawLegend(c, "", legends[row]) }
	w, h := g.size()
	return figure{Name: "curves", Section: "curves", Title: "Learning curves",
		Caption: curveCaption(p, panels), W: w, H: h, Draw: g.draw}, true
}

// orderPanels puts the curve panels in the display order of their first
// scenario (Input.Scenarios), as every other figure is; stats returns
// them sorted by name, which put "friedman" before "linear".
func orderPanels(p *prepared, panels []stats.Panel) {
	first := map[string]int{}
	for i, s := range p.scen {
		if name, _, ok := p.Curves.Point(s.Key); ok {
			if _, seen := first[name]; !seen {
				first[name] = i
			}
		}
	}
	slices.SortStableFunc(panels, func(a, b stats.Panel) int { return cmp.Compare(first[a.Name], first[b.Name]) })
}

// curveFamilies returns the families with a curve in some panel, in
// lineup order.
func curveFamilies(p *prepared, panels []stats.Panel) []string {
	var fams []string
	all, _ := p.lineup()
	for _, f := range all {
		for _, pn := range panels {
			if slices.ContainsFunc(pn.Curves, func(c stats.Curve) bool { return p.family(c.Pipeline) == f }) &&
				!slices.Contains(fams, f) {
				fams = append(fams, f)
			}
		}
	}
	return fams
}

// curveRange is a panel's y range: every band and Bayes point, padded 6%.
func curveRange(pn stats.Panel) [2]float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, cv := range pn.Curves {
		for _, pt := range cv.Points {
			if !math.IsNaN(pt.Median) {
				lo, hi = min(lo, pt.Q1), max(hi, pt.Q3)
			}
		}
	}
	for _, b := range pn.Bayes {
		lo, hi = min(lo, b.R2), max(hi, b.R2)
	}
	if math.IsInf(lo, 1) {
		lo, hi = 0, 1
	}
	pad := math.Max(hi-lo, 0.01) * 0.06
	return [2]float64{lo - pad, hi + pad}
}

// curvePanel is one (family, panel) cell and its legend entries.
func curvePanel(p *prepared, pn stats.Panel, fam string, pal palette, yr [2]float64, top, left bool) (*plot.Plot, []legendEntry) {
	pl := newPlot()
	pl.X.Scale = plot.LogScale{}
	pl.X.Min, pl.X.Max = float64(pn.Ns[0])/1.2, float64(pn.Ns[len(pn.Ns)-1])*1.2
	pl.Y.Min, pl.Y.Max = yr[0], yr[1]
	pl.X.Padding, pl.Y.Padding = 0, 0
	pl.X.LineStyle.Width, pl.Y.LineStyle.Width = 0, 0
	var xt []plot.Tick
	for _, n := range pn.Ns {
		xt = append(xt, plot.Tick{Value: float64(n), Label: strconv.Itoa(n)})
	}
	pl.X.Tick.Marker = plot.ConstantTicks(xt)
	pl.Y.Tick.Marker = niceTicks{N: 4}
	if top {
		pl.Title.Text = pn.Name
	}
	if left {
		pl.Y.Label.Text = fam + ": " + p.score.name
	}
	pl.Add(frame{})
	var ents []legendEntry
	if len(pn.Bayes) > 0 {
		bl := bandLine{Line: draw.LineStyle{Color: color.Black, Width: 1.2, Dashes: []vg.Length{5, 3}}}
		for _, b := range pn.Bayes {
			bl.X, bl.Mid = append(bl.X, float64(b.N)), append(bl.Mid, b.R2)
		}
		if len(bl.X) == 1 { // one size: draw the rate across the panel
			bl.X, bl.Mid = []float64{pl.X.Min, pl.X.Max}, []float64{bl.Mid[0], bl.Mid[0]}
		}
		pl.Add(bl)
		ents = append(ents, legendEntry{"Bayes rate", bl})
	}
	for _, cv := range pn.Curves {
		if p.family(cv.Pipeline) != fam {
			continue
		}
		label := p.strategy(cv.Pipeline)
		col, _ := pal.colour(label)
		bl := bandLine{Line: draw.LineStyle{Color: col, Width: 1.3, Dashes: pal.dashes(label)},
			Fill: withAlpha(col, 46), Glyph: true}
		for _, pt := range cv.Points {
			bl.X = append(bl.X, float64(pt.N))
			bl.Mid, bl.Lo, bl.Hi = append(bl.Mid, pt.Median), append(bl.Lo, pt.Q1), append(bl.Hi, pt.Q3)
		}
		pl.Add(bl)
		ents = append(ents, legendEntry{label, bl})
	}
	return pl, ents
}

func curveCaption(p *prepared, panels []stats.Panel) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Median %s over the repetitions at each training size, with the 25–75%% quantile band (type 7), per pipeline; dashed black: the Bayes-rate %s where known. Mask variants are dashed in the light shade of their strategy. The y range is shared down each column (one panel). ",
		p.score.name, p.score.short)
	for i, pn := range panels {
		if i > 0 {
			b.WriteString("; ")
		}
		reps, fails := 0, 0
		for _, cv := range pn.Curves {
			for _, pt := range cv.Points {
				reps, fails = max(reps, pt.Reps+pt.Failed), fails+pt.Failed
			}
		}
		ns := make([]string, len(pn.Ns))
		for k, n := range pn.Ns {
			ns[k] = strconv.Itoa(n)
		}
		fmt.Fprintf(&b, "%s: n = %s, up to %d repetitions per point, %d failed runs", pn.Name, strings.Join(ns, ", "), reps, fails)
	}
	b.WriteString(".")
	return b.String()
}
