package report

import (
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

const (
	heatCell = 24   // points per matrix cell (at least)
	heatMinH = 160  // points: smaller matrices get larger cells, so the colour bar stays legible
	pFloor   = 1e-4 // bottom of the p-value colour scale
)

// pColour maps a p-value to the heat-map colour: blues below alpha
// (darker = smaller, log scale down to pFloor), pale oranges from alpha
// to 1, so the alpha threshold is a visible break in the scale.
func pColour(p, alpha float64) color.RGBA {
	if math.IsNaN(p) {
		return color.RGBA{R: 210, G: 210, B: 210, A: 255}
	}
	lp := math.Log10(math.Max(p, pFloor))
	la := math.Log10(alpha)
	if p < alpha {
		t := (lp - la) / (math.Log10(pFloor) - la) // 0 at alpha, 1 at pFloor
		return mix(rgb(0xc6dbef), rgb(0x08306b), t)
	}
	t := (lp - la) / -la // 0 at alpha, 1 at p = 1
	return mix(rgb(0xfdae6b), rgb(0xfff5eb), t)
}

func mix(a, b color.RGBA, t float64) color.RGBA {
	t = math.Min(math.Max(t, 0), 1)
	f := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + t*(float64(y)-float64(x)))) }
	return color.RGBA{R: f(a.R, b.R), G: f(a.G, b.G), B: f(a.B, b.B), A: 255}
}

// formatP prints a p-value in at most five characters: "<.001", ".012",
// ".45", "1", "NA".
func formatP(p float64) string {
	switch {
	case math.IsNaN(p):
		return "NA"
	case p < 0.001:
		return "<.001"
	case p >= 0.995:
		return "1"
	case p < 0.1:
		return strings.TrimPrefix(strconv.FormatFloat(p, 'f', 3, 64), "0")
	}
	return strings.TrimPrefix(strconv.FormatFloat(p, 'f', 2, 64), "0")
}

// pMatrix draws a symmetric matrix of p-values with the values printed.
type pMatrix struct {
	P     [][]float64 // P[i][j], NaN on the diagonal and for untested pairs
	Alpha float64
}

// Plot implements plot.Plotter; row i is drawn at y = k−1−i (first at top).
func (m pMatrix) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	k := len(m.P)
	sty := textStyle(fontSmall, draw.XCenter, draw.YCenter)
	for i := range m.P {
		for j := range m.P[i] {
			x0, x1 := trX(float64(j)-0.5), trX(float64(j)+0.5)
			y0, y1 := trY(float64(k-1-i)-0.5), trY(float64(k-1-i)+0.5)
			r := vg.Rectangle{Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x1, Y: y1}}
			if i == j {
				c.SetColor(color.RGBA{R: 245, G: 245, B: 245, A: 255})
				c.Fill(r.Path())
				continue
			}
			p := m.P[i][j]
			col := pColour(p, m.Alpha)
			c.SetColor(col)
			c.Fill(r.Path())
			sty.Color = color.Black
			if lum(col) < 0.45 {
				sty.Color = color.White
			}
			c.FillText(sty, vg.Point{X: (x0 + x1) / 2, Y: (y0 + y1) / 2}, formatP(p))
		}
	}
	grid := draw.LineStyle{Color: color.White, Width: 0.8}
	for i := 0; i <= k; i++ {
		v := float64(i) - 0.5
		c.StrokeLine2(grid, trX(v), c.Min.Y, trX(v), c.Max.Y)
		c.StrokeLine2(grid, c.Min.X, trY(v), c.Max.X, trY(v))
	}
}

// lum is the relative luminance of c in [0, 1].
func lum(c color.RGBA) float64 {
	return (0.2126*float64(c.R) + 0.7152*float64(c.G) + 0.0722*float64(c.B)) / 255
}

// colourBar draws the p-value scale on a log axis with alpha marked.
type colourBar struct{ Alpha float64 }

// Plot implements plot.Plotter.
func (b colourBar) Plot(c draw.Canvas, plt *plot.Plot) {
	_, trY := plt.Transforms(&c)
	const steps = 120
	lo, hi := math.Log10(pFloor), 0.0
	for i := range steps {
		v0 := lo + (hi-lo)*float64(i)/steps
		v1 := lo + (hi-lo)*float64(i+1)/steps
		mid := math.Pow(10, (v0+v1)/2)
		// Each slice reaches the top of the bar: the next one paints over
		// it, leaving no anti-aliased seams between slices.
		r := vg.Rectangle{Min: vg.Point{X: c.Min.X, Y: trY(math.Pow(10, v0))},
			Max: vg.Point{X: c.Max.X, Y: c.Max.Y}}
		c.SetColor(pColour(mid, b.Alpha))
		c.Fill(r.Path())
	}
	y := trY(b.Alpha)
	c.StrokeLine2(draw.LineStyle{Color: color.Black, Width: 1.6}, c.Min.X-3, y, c.Max.X+3, y)
	sty := textStyle(fontTick, draw.XLeft, draw.YCenter)
	c.FillText(sty, vg.Point{X: c.Max.X + 5, Y: y}, "α = "+strconv.FormatFloat(b.Alpha, 'g', -1, 64))
	c.StrokeLines(draw.LineStyle{Color: color.Gray{Y: 120}, Width: 0.5}, rectPoints(c.Rectangle))
}

// pTicks are the labelled values of the colour bar (alpha is labelled
// by the bar itself, right of its mark).
func pTicks() plot.ConstantTicks {
	ts := plot.ConstantTicks{{Value: pFloor, Label: "≤1e-4"}, {Value: 1e-3, Label: "0.001"},
		{Value: 0.01, Label: "0.01"}, {Value: 0.1, Label: "0.1"}, {Value: 1, Label: "1"}}
	return ts
}

// colourBarPlot is the p-value scale of a heat map.
func colourBarPlot(alpha float64) *plot.Plot {
	bar := newPlot()
	bar.Y.Scale = plot.LogScale{}
	bar.Y.Min, bar.Y.Max, bar.X.Min, bar.X.Max = pFloor, 1, 0, 1
	bar.Y.Tick.Marker = pTicks()
	bar.X.Tick.Marker = plot.ConstantTicks{}
	bar.X.LineStyle.Width, bar.Y.LineStyle.Width, bar.X.Padding, bar.Y.Padding = 0, 0, 0, 0
	bar.Title.Text = "Holm p"
	bar.Title.TextStyle.Font.Size = fontTick
	bar.Add(colourBar{Alpha: alpha})
	return bar
}

// heatmapFigures draws one p-value matrix per (scenario, family) with at
// least two pipelines: Holm-adjusted p-values of the paired t-tests.
func heatmapFigures(p *prepared, tests []stats.PairTest) []figure {
	type key struct{ scenario, family string }
	by := map[key][]stats.PairTest{}
	for _, t := range tests {
		k := key{t.Scenario, t.Family}
		by[k] = append(by[k], t)
	}
	allFams, _ := p.lineup()
	var figs []figure
	for si, sc := range p.scen {
		fams, pls := p.lineup(sc)
		for _, fam := range fams {
			fi := slices.Index(allFams, fam)
			ts := by[key{sc.Key, fam}]
			if len(ts) == 0 {
				continue
			}
			names := pls[fam]
			name := fmt.Sprintf("pvalues-%d-%d-%s", si+1, fi+1, fileSlug(fam))
			if p.score != scoreR2 && p.score != scoreAUC { // a classification report's second matrix
				name = fmt.Sprintf("pvalues-%s-%d-%d-%s", p.score.slug(), si+1, fi+1, fileSlug(fam))
			}
			figs = append(figs, heatmapFigure(p, sc, fam, names, ts, name))
		}
	}
	return figs
}

func heatmapFigure(p *prepared, sc Scenario, fam string, names []string, ts []stats.PairTest, name string) figure {
	k := len(names)
	pos := map[string]int{}
	for i, n := range names {
		pos[n] = i
	}
	mat := make([][]float64, k)
	for i := range mat {
		mat[i] = make([]float64, k)
		for j := range mat[i] {
			mat[i][j] = math.NaN()
		}
	}
	for _, t := range ts {
		i, j := pos[t.A], pos[t.B]
		mat[i][j], mat[j][i] = t.PHolm, t.PHolm
	}
	hp := newPlot()
	hp.X.Min, hp.X.Max, hp.Y.Min, hp.Y.Max = -0.5, float64(k)-0.5, -0.5, float64(k)-0.5
	hp.X.Padding, hp.Y.Padding = 3, 3
	hp.X.LineStyle.Width, hp.Y.LineStyle.Width = 0, 0
	hp.X.Tick.Length, hp.Y.Tick.Length = 0, 0
	var xt, yt []plot.Tick
	for i, n := range names {
		xt = append(xt, plot.Tick{Value: float64(i), Label: p.strategy(n)})
		yt = append(yt, plot.Tick{Value: float64(k - 1 - i), Label: p.strategy(n)})
	}
	hp.X.Tick.Marker, hp.Y.Tick.Marker = plot.ConstantTicks(xt), plot.ConstantTicks(yt)
	hp.X.Tick.Label.Rotation = math.Pi / 2
	hp.X.Tick.Label.XAlign, hp.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	hp.Add(pMatrix{P: mat, Alpha: p.Alpha})

	bar := colourBarPlot(p.Alpha)

	side := vg.Length(max(heatCell*k, heatMinH))
	g := &grid{Gap: 10, Top: titleBand(fmt.Sprintf("%s — %s: paired t-tests%s", fam, sc.Title, p.testedText())),
		Plots: [][]*plot.Plot{{hp, bar}}, DataW: []vg.Length{side, 12}, DataH: []vg.Length{side}}
	g.Right = band{Size: 48} // room for the "α = 0.05" label right of the bar
	w, h := g.size()
	return figure{Name: name, Section: "pvalues:" + sc.Key, Title: fmt.Sprintf("%s, %s%s", fam, sc.Title, p.testedText()),
		Caption: fmt.Sprintf("Holm-adjusted p-values of two-sided paired t-tests of %s between every two %s pipelines on %s (%s; %s), pairing repetitions both completed; Holm's adjustment runs over the %d tests of this matrix. Blue: significant at α = %g after adjustment; orange: not significant; grey NA: fewer than two paired repetitions. Raw (unadjusted, as in the paper) p-values, differences and confidence intervals are in ttests.csv.",
			p.score.name, fam, sc.Title, describe(sc), p.repsText(sc), len(ts), p.Alpha),
		W: w, H: h, Draw: g.draw}
}

// testedText names the score a classification report's matrices test,
// which has two of them per family (": AUC"); regression's has one.
func (p *prepared) testedText() string {
	if p.Task != Classification {
		return ""
	}
	return " of " + p.score.short
}
