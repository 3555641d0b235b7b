package report

import (
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/misslab/misslab/internal/stats"
)

// hbox is one horizontal box drawn from precomputed statistics (type-7
// quartiles and 1.5·IQR whiskers from stats, so the figure shows exactly
// the numbers of summary.csv).
type hbox struct {
	Y    float64 // row position
	Box  stats.Box
	N    int // completed runs; 0 draws a "no completed runs" note
	Fill color.Color
}

// hboxes draws horizontal boxplots on a plot whose X range is already
// set; outliers beyond the range are drawn as a triangle at the edge.
type hboxes struct {
	Boxes []hbox
	Width vg.Length // box thickness
}

var (
	boxLine     = draw.LineStyle{Color: color.Gray{Y: 40}, Width: 0.6}
	medianLine  = draw.LineStyle{Color: color.Black, Width: 1.4}
	outlierFill = color.NRGBA{R: 60, G: 60, B: 60, A: 110}
	edgeMark    = color.NRGBA{R: 200, G: 30, B: 30, A: 255}
)

// Plot implements plot.Plotter.
func (h hboxes) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	lo, hi := plt.X.Min, plt.X.Max
	clampX := func(v float64) (vg.Length, int) {
		switch {
		case v < lo:
			return trX(lo), -1
		case v > hi:
			return trX(hi), 1
		}
		return trX(v), 0
	}
	note := textStyle(fontSmall, draw.XLeft, draw.YCenter)
	note.Color = color.Gray{Y: 90}
	for _, b := range h.Boxes {
		y := trY(b.Y)
		if b.N == 0 {
			c.FillText(note, vg.Point{X: c.Min.X + 3, Y: y}, "no completed runs")
			continue
		}
		x := func(v float64) vg.Length { l, _ := clampX(v); return l }
		half := h.Width / 2
		c.StrokeLine2(boxLine, x(b.Box.Lower), y, x(b.Box.Q1), y)
		c.StrokeLine2(boxLine, x(b.Box.Q3), y, x(b.Box.Upper), y)
		for _, w := range []float64{b.Box.Lower, b.Box.Upper} {
			c.StrokeLine2(boxLine, x(w), y-half/2, x(w), y+half/2)
		}
		rect := vg.Rectangle{Min: vg.Point{X: x(b.Box.Q1), Y: y - half}, Max: vg.Point{X: x(b.Box.Q3), Y: y + half}}
		c.SetColor(b.Fill)
		c.Fill(rect.Path())
		c.StrokeLines(boxLine, rectPoints(rect))
		c.StrokeLine2(medianLine, x(b.Box.Median), y-half, x(b.Box.Median), y+half)
		h.outliers(c, b, y, clampX)
	}
}

// outliers draws the points beyond the whiskers; those outside the axis
// range become one red triangle per side pointing off the panel.
func (h hboxes) outliers(c draw.Canvas, b hbox, y vg.Length, clampX func(float64) (vg.Length, int)) {
	dot := draw.GlyphStyle{Color: outlierFill, Radius: 1.1, Shape: draw.CircleGlyph{}}
	var beyond [2]bool
	for _, v := range b.Box.Outliers {
		xv, side := clampX(v)
		if side != 0 {
			beyond[(side+1)/2] = true
			continue
		}
		c.DrawGlyphNoClip(dot, vg.Point{X: xv, Y: y})
	}
	for i, ok := range beyond {
		if !ok {
			continue
		}
		edge, dir := c.Min.X+3, vg.Length(-1)
		if i == 1 {
			edge, dir = c.Max.X-3, 1
		}
		var p vg.Path
		p.Move(vg.Point{X: edge + dir*3, Y: y})
		p.Line(vg.Point{X: edge - dir*1.5, Y: y + 2.6})
		p.Line(vg.Point{X: edge - dir*1.5, Y: y - 2.6})
		p.Close()
		c.SetColor(edgeMark)
		c.Fill(p)
	}
}

func rectPoints(r vg.Rectangle) []vg.Point {
	return []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}, r.Min}
}

// frame draws a thin border around the data area and optional vertical
// reference lines (e.g. x = 0 on relative plots).
type frame struct {
	VLines []float64
	HLines []float64 // horizontal separators (data y)
	Grid   bool      // light vertical lines at the X ticks
}

// Plot implements plot.Plotter.
func (f frame) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, _ := plt.Transforms(&c)
	if f.Grid {
		gl := draw.LineStyle{Color: color.Gray{Y: 225}, Width: 0.5}
		for _, t := range plt.X.Tick.Marker.Ticks(plt.X.Min, plt.X.Max) {
			if t.Label != "" && t.Value >= plt.X.Min && t.Value <= plt.X.Max {
				c.StrokeLine2(gl, trX(t.Value), c.Min.Y, trX(t.Value), c.Max.Y)
			}
		}
	}
	for _, v := range f.VLines {
		if v >= plt.X.Min && v <= plt.X.Max {
			ls := draw.LineStyle{Color: color.Gray{Y: 60}, Width: 0.7, Dashes: []vg.Length{2, 2}}
			c.StrokeLine2(ls, trX(v), c.Min.Y, trX(v), c.Max.Y)
		}
	}
	_, trY := plt.Transforms(&c)
	for _, v := range f.HLines {
		c.StrokeLine2(draw.LineStyle{Color: color.Gray{Y: 170}, Width: 0.5}, c.Min.X, trY(v), c.Max.X, trY(v))
	}
	border := draw.LineStyle{Color: color.Gray{Y: 150}, Width: 0.5}
	c.StrokeLines(border, rectPoints(c.Rectangle))
}

// boxRange returns the x range for a set of boxes: the hull of their
// whiskers, widened to take in outliers up to a quarter of that span on
// each side (farther ones are marked at the edge), plus a 4% margin.
// A flat or empty set gets a unit-wide range.
func boxRange(boxes []stats.Box) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, b := range boxes {
		if !math.IsNaN(b.Lower) {
			lo, hi = min(lo, b.Lower), max(hi, b.Upper)
		}
	}
	if math.IsInf(lo, 1) {
		return 0, 1
	}
	span := hi - lo
	if span <= 0 {
		span = math.Max(math.Abs(hi), 1) * 0.1
	}
	olo, ohi := lo, hi
	for _, b := range boxes {
		for _, v := range b.Outliers {
			if v >= lo-span/4 {
				olo = min(olo, v)
			}
			if v <= hi+span/4 {
				ohi = max(ohi, v)
			}
		}
	}
	lo, hi = olo, ohi
	pad := math.Max(hi-lo, span) * 0.04
	return lo - pad, hi + pad
}

// logTicks marks powers of ten (labelled) and their 2–9 multiples; when
// the range spans under three decades the 2 and 5 multiples are
// labelled too.
type logTicks struct{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	dense := math.Log10(hi/lo) < 3
	for k := int(math.Floor(math.Log10(lo))); k <= int(math.Ceil(math.Log10(hi))); k++ {
		base := math.Pow(10, float64(k))
		for m := 1; m < 10; m++ {
			v := base * float64(m)
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || dense && (m == 2 || m == 5) {
				t.Label = mulLabel(m, k)
			}
			out = append(out, t)
		}
	}
	return out
}

// mulLabel formats m·10^k as a plain decimal for −3 ≤ k ≤ 3, else as
// "me±k".
func mulLabel(m, k int) string {
	if k >= -3 && k <= 3 {
		return strconv.FormatFloat(float64(m)*math.Pow(10, float64(k)), 'f', max(0, -k), 64)
	}
	return strconv.Itoa(m) + "e" + strconv.Itoa(k)
}

// niceTicks labels about N round values (steps 1, 2, 2.5 or 5 × 10^k).
// For a horizontal axis (Horiz) it leaves unlabelled any tick within 6%
// of either end, so labels of side-by-side panels never run together.
type niceTicks struct {
	N     int
	Horiz bool
}

// Ticks implements plot.Ticker.
func (t niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return nil
	}
	raw := (hi - lo) / float64(max(t.N, 1))
	e := int(math.Floor(math.Log10(raw)))
	mag := math.Pow(10, float64(e))
	m := 10.0
	for _, c := range []float64{1, 2, 2.5, 5} {
		if c*mag >= raw*(1-1e-9) {
			m = c
			break
		}
	}
	if m == 10 {
		m, e, mag = 1, e+1, mag*10
	}
	step, minor := m*mag, m*mag/2
	decimals := max(0, -e)
	if m == 2.5 {
		minor = step / 5
		decimals++
	}
	margin := 0.0
	if t.Horiz {
		margin = (hi - lo) * 0.06
	}
	scale := math.Pow(10, float64(decimals))
	var out []plot.Tick
	for i := math.Ceil(lo/minor - 1e-9); i <= math.Floor(hi/minor+1e-9); i++ {
		v := i * minor
		tk := plot.Tick{Value: v}
		k := math.Round(v / step)
		if math.Abs(v-k*step) < minor*1e-6 && v >= lo+margin-1e-12 && v <= hi-margin+1e-12 {
			tk.Value = math.Round(k*step*scale) / scale
			tk.Label = strconv.FormatFloat(tk.Value, 'f', -1, 64)
			if tk.Label == "-0" {
				tk.Label = "0"
			}
		}
		out = append(out, tk)
	}
	return out
}
