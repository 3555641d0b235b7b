package report

import (
	"image/color"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"

	"github.com/misslab/misslab/internal/stats"
)

// spy records the data canvas a plot hands its plotters.
type spy struct{ rect *vg.Rectangle }

func (s spy) Plot(c draw.Canvas, _ *plot.Plot) { *s.rect = c.Rectangle }

// The grid lines up data areas whatever the plots' decorations take:
// same left/right edges down a column, same top/bottom along a row,
// each exactly DataW × DataH.
func TestGridAlignsDataAreas(t *testing.T) {
	rects := make([][]vg.Rectangle, 2)
	g := &grid{Gap: 7, DataW: []vg.Length{120, 80}, DataH: []vg.Length{60, 90},
		Top: titleBand("title"), Bottom: labelBand("x")}
	for i := range 2 {
		rects[i] = make([]vg.Rectangle, 2)
		var row []*plot.Plot
		for j := range 2 {
			p := newPlot()
			p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
			if i == 0 {
				p.Title.Text = strings.Repeat("Title ", j+1)
			}
			if j == 0 {
				p.Y.Label.Text = "a long y label"
				p.Y.Tick.Marker = plot.ConstantTicks{{Value: 0.5, Label: strings.Repeat("wide tick label ", i+1)}}
			}
			p.Add(spy{&rects[i][j]})
			row = append(row, p)
		}
		g.Plots = append(g.Plots, row)
	}
	w, h := g.size()
	g.draw(draw.NewCanvas(&recorder.Canvas{}, w, h))
	const tol = 1e-6
	for i := range 2 {
		for j := range 2 {
			r := rects[i][j]
			if math.Abs(float64(r.Size().X-g.DataW[j])) > tol || math.Abs(float64(r.Size().Y-g.DataH[i])) > tol {
				t.Errorf("cell %d,%d: data area %v, want %v × %v", i, j, r.Size(), g.DataW[j], g.DataH[i])
			}
			if r.Min.X < 0 || r.Min.Y < 0 || r.Max.X > w || r.Max.Y > h {
				t.Errorf("cell %d,%d: data area %v outside the %v × %v figure", i, j, r, w, h)
			}
		}
		if math.Abs(float64(rects[i][0].Min.Y-rects[i][1].Min.Y)) > tol {
			t.Errorf("row %d: bottoms %v and %v differ", i, rects[i][0].Min.Y, rects[i][1].Min.Y)
		}
	}
	for j := range 2 {
		if math.Abs(float64(rects[0][j].Min.X-rects[1][j].Min.X)) > tol {
			t.Errorf("column %d: left edges %v and %v differ", j, rects[0][j].Min.X, rects[1][j].Min.X)
		}
	}
	if rects[0][1].Min.X <= rects[0][0].Max.X || rects[1][0].Max.Y >= rects[0][0].Min.Y {
		t.Error("cells overlap")
	}
}

func TestNiceTicks(t *testing.T) {
	cases := []struct {
		lo, hi float64
		horiz  bool
		labels string
	}{
		{0, 1, false, "0 0.2 0.4 0.6 0.8 1"},
		{0, 1, true, "0.2 0.4 0.6 0.8"}, // ends are within 6% of the edge
		{0.43, 0.87, true, "0.5 0.6 0.7 0.8"},
		{-0.15, 0.15, true, "-0.1 0 0.1"},
		{0, 0.15, false, "0 0.05 0.1 0.15"},
		{2, 27, false, "5 10 15 20 25"},
		{0, 2.5, false, "0 0.5 1 1.5 2 2.5"},
		{0, 12, false, "0 2.5 5 7.5 10"},
	}
	for _, c := range cases {
		var got []string
		for _, tk := range (niceTicks{N: 5, Horiz: c.horiz}).Ticks(c.lo, c.hi) {
			if tk.Value < c.lo-1e-12 || tk.Value > c.hi+1e-12 {
				t.Errorf("[%v, %v]: tick %v outside the range", c.lo, c.hi, tk.Value)
			}
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if g := strings.Join(got, " "); g != c.labels {
			t.Errorf("niceTicks [%v, %v] horiz=%v labels %q, want %q", c.lo, c.hi, c.horiz, g, c.labels)
		}
	}
}

func TestLogTicks(t *testing.T) {
	cases := []struct {
		lo, hi float64
		labels string
	}{
		{0.011, 3, "0.02 0.05 0.1 0.2 0.5 1 2"}, // < 3 decades: 2 and 5 labelled
		{1e-6, 20, "1e-6 1e-5 1e-4 0.001 0.01 0.1 1 10"},
	}
	for _, c := range cases {
		var got []string
		for _, tk := range (logTicks{}).Ticks(c.lo, c.hi) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if g := strings.Join(got, " "); g != c.labels {
			t.Errorf("logTicks [%v, %v] labels %q, want %q", c.lo, c.hi, g, c.labels)
		}
	}
}

func TestFormatP(t *testing.T) {
	for p, want := range map[float64]string{0: "<.001", 0.00099: "<.001", 0.001: ".001", 0.0123: ".012",
		0.0499: ".050", 0.05: ".050", 0.1: ".10", 0.456: ".46", 0.994: ".99", 0.996: "1", 1: "1", math.NaN(): "NA"} {
		if got := formatP(p); got != want {
			t.Errorf("formatP(%v) = %q, want %q", p, got, want)
		}
	}
}

// Below alpha the colour is blue and darkens as p falls; from alpha up
// it is orange and pales towards 1; the two sides meet with a visible
// jump at alpha.
func TestPColour(t *testing.T) {
	const alpha = 0.05
	prevL := -1.0
	for _, p := range []float64{1e-6, 1e-4, 1e-3, 0.01, 0.049} {
		c := pColour(p, alpha)
		if c.B <= c.R {
			t.Errorf("p=%v: %v is not blue", p, c)
		}
		if l := lum(c); l < prevL {
			t.Errorf("p=%v: luminance %v falls below %v: not darker for smaller p", p, l, prevL)
		} else {
			prevL = l
		}
	}
	if pColour(1e-6, alpha) != pColour(1e-4, alpha) {
		t.Error("p below the 1e-4 floor should saturate")
	}
	for _, p := range []float64{0.05, 0.2, 1} {
		if c := pColour(p, alpha); c.R <= c.B {
			t.Errorf("p=%v: %v is not orange", p, c)
		}
	}
	below, at := pColour(0.0499, alpha), pColour(0.05, alpha)
	if d := math.Abs(float64(below.R)-float64(at.R)) + math.Abs(float64(below.B)-float64(at.B)); d < 100 {
		t.Errorf("colours either side of alpha differ by only %v", d)
	}
	if c := pColour(math.NaN(), alpha); c.R != c.G || c.G != c.B {
		t.Errorf("NaN colour %v is not grey", c)
	}
}

func TestBoxRange(t *testing.T) {
	b1 := stats.Box{Lower: 0.2, Upper: 0.6, Outliers: []float64{0.15, 0.62, 5}}
	b2 := stats.Box{Lower: 0.3, Upper: 0.8, Outliers: []float64{-3}}
	lo, hi := boxRange([]stats.Box{b1, b2})
	// Whiskers span [0.2, 0.8]; outliers within 0.15 of it (0.15, 0.62)
	// widen the range, far ones (5, −3) are left to the edge markers;
	// then 4% of the 0.65 span on each side.
	pad := 0.65 * 0.04
	if !near(lo, 0.15-pad, 1e-12) || !near(hi, 0.8+pad, 1e-12) {
		t.Errorf("boxRange = [%v, %v], want [%v, %v]", lo, hi, 0.15-pad, 0.8+pad)
	}
	if lo, hi := boxRange(nil); lo != 0 || hi != 1 {
		t.Errorf("empty boxRange = [%v, %v], want [0, 1]", lo, hi)
	}
	if lo, hi := boxRange([]stats.Box{{Lower: 2, Upper: 2}}); !(lo < 2 && hi > 2) {
		t.Errorf("flat boxRange = [%v, %v] does not contain 2", lo, hi)
	}
}

func TestPalette(t *testing.T) {
	p := newPalette([]string{"zeta", "mean+mask", "alpha"})
	dark, m1 := p.colour("mean")
	light, m2 := p.colour("mean+mask")
	if m1 || !m2 || dark == light || colourPairs[0] != [2]color.RGBA{dark, light} {
		t.Errorf("mean / mean+mask colours %v %v, want the first pair", dark, light)
	}
	// Unknown strategies follow the known ones, sorted: alpha before zeta.
	if p["alpha"] != len(knownStrategies) || p["zeta"] != len(knownStrategies)+1 {
		t.Errorf("unknown strategies numbered %d, %d", p["alpha"], p["zeta"])
	}
	if p.dashes("mean") != nil || p.dashes("mean+mask") == nil {
		t.Error("mask variants should be dashed, plain ones solid")
	}
}

func TestFileSlug(t *testing.T) {
	for in, want := range map[string]string{"tree": "tree", "Forest/RF (v2)": "forest-rf-v2", "": "x", "&&&": "x",
		"a-very-long-family-name-that-goes-on": "a-very-long-family-name"} {
		if got := fileSlug(in); got != want {
			t.Errorf("fileSlug(%q) = %q, want %q", in, got, want)
		}
	}
}
