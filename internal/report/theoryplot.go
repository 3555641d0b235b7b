package report

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

const theoryGrid = 200 // p steps on the closed-form curves

// theoryStrategies are the Proposition 2 strategies in legend order.
var theoryStrategies = []string{"mia", "surrogate", "block", "prob"}

var theoryNames = map[string]string{"mia": "MIA", "surrogate": "CART + surrogate split",
	"block": "CART + block propagation", "prob": "CART + probabilistic split", "cart": "CART (available cases)"}

// theoryColour gives each strategy the colour it has in every other
// figure (the fixed palette); "cart" is black.
func theoryColour(s string) color.RGBA {
	if s == "cart" {
		return color.RGBA{A: 255}
	}
	c, _ := newPalette([]string{s}).colour(s)
	return c
}

// pointSet draws simulated points as hollow glyphs.
type pointSet struct {
	X, Y  []float64
	Glyph draw.GlyphStyle
}

// Plot implements plot.Plotter.
func (s pointSet) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	for i := range s.X {
		c.DrawGlyph(s.Glyph, vg.Point{X: trX(s.X[i]), Y: trY(s.Y[i])})
	}
}

// Thumbnail implements plot.Thumbnailer.
func (s pointSet) Thumbnail(c *draw.Canvas) { c.DrawGlyph(s.Glyph, c.Center()) }

func glyphFor(s string) draw.GlyphStyle {
	return draw.GlyphStyle{Color: theoryColour(s), Radius: 2.6, Shape: draw.RingGlyph{}}
}

// curveOf samples f on p ∈ [0, pmax].
func curveOf(pmax float64, f func(p float64) float64) (xs, ys []float64) {
	for i := 0; i <= theoryGrid; i++ {
		p := pmax * float64(i) / theoryGrid
		xs, ys = append(xs, p), append(ys, f(p))
	}
	return xs, ys
}

func theoryPlot(title, xlabel, ylabel string) *plot.Plot {
	pl := newPlot()
	pl.Title.Text = title
	pl.X.Label.Text, pl.Y.Label.Text = xlabel, ylabel
	pl.X.Min, pl.X.Max = 0, 1
	pl.X.Tick.Marker, pl.Y.Tick.Marker = niceTicks{N: 5}, niceTicks{N: 5}
	pl.X.LineStyle.Width, pl.Y.LineStyle.Width = 0, 0
	pl.X.Padding, pl.Y.Padding = 0, 0
	pl.Add(frame{Grid: true})
	return pl
}

// prop1Figure draws s*_MIA,L(p), its mirror 1 − s*, CART's 1/2 and any
// simulated thresholds.
func prop1Figure(th *Theory) figure {
	pl := theoryPlot("", "missing rate p of X1", "split threshold s*")
	pl.Y.Min, pl.Y.Max = 0.25, 0.75
	mia := theoryColour("mia")
	xs, ys := curveOf(0.995, func(p float64) float64 { s, _ := MIAThreshold(p); return s })
	ys2 := make([]float64, len(ys))
	for i, y := range ys {
		ys2[i] = 1 - y
	}
	left := bandLine{X: xs, Mid: ys, Line: draw.LineStyle{Color: mia, Width: 1.6}}
	right := bandLine{X: xs, Mid: ys2, Line: draw.LineStyle{Color: mia, Width: 1.6, Dashes: []vg.Length{5, 3}}}
	cart := bandLine{X: []float64{0, 1}, Mid: []float64{0.5, 0.5}, Line: draw.LineStyle{Color: color.Black, Width: 1.2}}
	pl.Add(left, right, cart)
	ents := []legendEntry{{"MIA, NA sent left: s*(p)", left}, {"MIA, NA sent right: 1 − s*(p)", right},
		{"CART criterion: 1/2", cart}}
	ents = append(ents, addPoints(pl, th, 1, 0, false)...)
	g := &grid{Gap: 10, Top: titleBand("Proposition 1: split position of MIA and CART"),
		Plots: [][]*plot.Plot{{pl}}, DataW: []vg.Length{260}, DataH: []vg.Length{190}}
	lw, _ := legendSize("", ents)
	g.Right = band{Size: lw + 8, Draw: func(c draw.Canvas) { drawLegend(c, "", ents) }}
	w, h := g.size()
	return figure{Name: "theory-prop1", Section: "theory", Title: "Proposition 1",
		Caption: "Threshold s* minimising the MIA criterion C_MIA(1, s, L, p) of Proposition 1 (Y = X1 ~ U(0,1), X1 missing completely at random with probability p), by grid search refined by bisection on its derivative; sending the missing values right mirrors it (1 − s*). The CART criterion on the observed values splits at 1/2 whatever p. " + pointsText(th, 1),
		W:       w, H: h, Draw: g.draw}
}

// addPoints overlays the simulated points of one proposition (and one
// eta for Prop 2) and returns their legend entries.
func addPoints(pl *plot.Plot, th *Theory, prop int, eta float64, useEta bool) []legendEntry {
	if th == nil {
		return nil
	}
	by := map[string]*pointSet{}
	var names []string
	for _, pt := range th.Points {
		if pt.Prop != prop || useEta && pt.Eta != eta || math.IsNaN(pt.Value) || math.IsInf(pt.Value, 0) {
			continue // another panel's point, or a failed simulation
		}
		s := by[pt.Strategy]
		if s == nil {
			s = &pointSet{Glyph: glyphFor(pt.Strategy)}
			by[pt.Strategy] = s
			names = append(names, pt.Strategy)
		}
		s.X, s.Y = append(s.X, pt.P), append(s.Y, pt.Value)
	}
	slices.Sort(names)
	var ents []legendEntry
	for _, n := range names {
		pl.Add(*by[n])
		ents = append(ents, legendEntry{"simulated: " + n, *by[n]})
	}
	return ents
}

// pointsText says how many simulated points a figure overlays.
func pointsText(th *Theory, prop int) string {
	n := 0
	if th != nil {
		for _, pt := range th.Points {
			if pt.Prop == prop {
				n++
			}
		}
	}
	if n == 0 {
		return "Closed form only (no simulated points given)."
	}
	return fmt.Sprintf("Rings: %d simulated values from fitted trees, in the colour of their strategy.", n)
}

// prop2Figure draws the Proposition 2 risks against p, one panel per η.
func prop2Figure(th *Theory) figure {
	etas := []float64{0, 0.25, 0.75}
	if len(th.Etas) > 0 {
		etas = slices.Clone(th.Etas)
		slices.Sort(etas)
	}
	var row []*plot.Plot
	var ents []legendEntry
	seen := map[string]bool{}
	for j, eta := range etas {
		pl := theoryPlot("η = "+strconv.FormatFloat(eta, 'g', -1, 64), "missing rate p of X1", "")
		if j == 0 {
			pl.Y.Label.Text = "risk E[(Y − f(X))²]"
		} else { // shared y range: labels on the first panel only
			pl.Y.Tick.Marker = blankLabels{niceTicks{N: 5}}
		}
		pl.Y.Min, pl.Y.Max = 0, 0.15
		curves := map[string]func(float64) float64{
			"mia":       func(p float64) float64 { return RiskMIA(p, eta) },
			"surrogate": func(p float64) float64 { return RiskSurrogate(p, eta) },
			"block":     RiskBlock,
			"prob":      RiskProb,
		}
		var pe []legendEntry
		for _, s := range theoryStrategies {
			xs, ys := curveOf(1, curves[s])
			bl := bandLine{X: xs, Mid: ys, Line: draw.LineStyle{Color: theoryColour(s), Width: 1.6}}
			pl.Add(bl)
			pe = append(pe, legendEntry{theoryNames[s], bl})
		}
		pe = append(pe, addPoints(pl, th, 2, eta, true)...)
		for _, e := range pe {
			if !seen[e.Label] {
				seen[e.Label] = true
				ents = append(ents, e)
			}
		}
		row = append(row, pl)
	}
	g := &grid{Gap: 16, Top: titleBand("Proposition 2: risk of one split, by strategy"),
		Plots: [][]*plot.Plot{row}, DataH: []vg.Length{170}}
	for range etas {
		g.DataW = append(g.DataW, 170)
	}
	lw, _ := legendSize("", ents)
	g.Right = band{Size: lw + 8, Draw: func(c draw.Canvas) { drawLegend(c, "", ents) }}
	w, h := g.size()
	return figure{Name: "theory-prop2", Section: "theory", Title: "Proposition 2",
		Caption: "Closed-form risks of Proposition 2 (Y = X1 ~ U(0,1), X2 = X1·1{W=1} with P(W=0) = η, X1 missing with probability p): R_MIA = min_s C_MIA(1, s, L, min(p, η)); R_block = C_MIA(1, 1/2, L, p); R_prob = −p²/16 + p/8 + 1/48; R_surr = 1/48 + 3q/48 + q(1−q)/(16(1+q)) with q = ηp, the paper's printed 1/48 + 6ηp/48 corrected (its proof gives the left leaf the mean 1/4, but the W = 0 rows missing X1 also land there). " + pointsText(th, 2),
		W:       w, H: h, Draw: g.draw}
}

// blankLabels keeps a ticker's marks but drops their labels.
type blankLabels struct{ plot.Ticker }

// Ticks implements plot.Ticker.
func (b blankLabels) Ticks(lo, hi float64) []plot.Tick {
	ts := b.Ticker.Ticks(lo, hi)
	for i := range ts {
		ts[i].Label = ""
	}
	return ts
}

// writeTheoryCSV writes the closed-form curves (kind "closed-form") on
// a grid of p and the simulated points (kind "simulated"): columns
// prop, eta, p, strategy, kind, value.
func writeTheoryCSV(w io.Writer, th *Theory) error {
	cw := csv.NewWriter(w)
	rows := [][]string{{"prop", "eta", "p", "strategy", "kind", "value"}}
	f := func(v float64) string {
		if math.IsNaN(v) {
			return "NA"
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	for i := 0; i <= 100; i++ {
		p := float64(i) / 100
		s, _ := MIAThreshold(p)
		rows = append(rows, []string{"1", "", f(p), "mia", "closed-form", f(s)})
	}
	etas := []float64{0, 0.25, 0.75}
	if len(th.Etas) > 0 {
		etas = slices.Sorted(slices.Values(th.Etas))
	}
	for _, eta := range etas {
		for i := 0; i <= 100; i++ {
			p := float64(i) / 100
			for _, s := range theoryStrategies {
				v := map[string]float64{"mia": RiskMIA(p, eta), "surrogate": RiskSurrogate(p, eta),
					"block": RiskBlock(p), "prob": RiskProb(p)}[s]
				rows = append(rows, []string{"2", f(eta), f(p), s, "closed-form", f(v)})
			}
		}
	}
	pts := slices.Clone(th.Points)
	slices.SortStableFunc(pts, func(a, b TheoryPoint) int {
		return cmp.Or(cmp.Compare(a.Prop, b.Prop), cmp.Compare(a.Eta, b.Eta), cmp.Compare(a.P, b.P),
			strings.Compare(a.Strategy, b.Strategy), cmp.Compare(a.Value, b.Value))
	})
	for _, pt := range pts {
		rows = append(rows, []string{strconv.Itoa(pt.Prop), f(pt.Eta), f(pt.P), pt.Strategy, "simulated", f(pt.Value)})
	}
	if err := cw.WriteAll(rows); err != nil {
		return fmt.Errorf("report: theory.csv: %w", err)
	}
	return nil
}
