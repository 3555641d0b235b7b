package report

import (
	"bytes"
	"errors"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"

	"github.com/misslab/misslab/internal/stats"
)

// cdResult is a Friedman result with hand-chosen ranks: sorted, the
// ranks are d 1.5, b 2.0, e 2.9, a 3.6, c 5.0; with CD = 1.5 the
// maximal groups are {d, b, e} (a is 2.1 from d), {e, a} (a is 1.6 from
// b, c 2.1 from e) and {a, c} (1.4 apart).
func cdResult() stats.FriedmanResult {
	return stats.FriedmanResult{Methods: []string{"a", "b", "c", "d", "e"},
		AvgRank: []float64{3.6, 2.0, 5.0, 1.5, 2.9}, N: 12, K: 5, Chi2: 20.5, DF: 4,
		P: 0.0004, FF: 8.1, PFF: 3e-5, CD: 1.5, Alpha: 0.05}
}

func TestCDDiagramFilesDeterministic(t *testing.T) {
	// A real result from stats.Friedman, drawn twice.
	scores := [][]float64{{0.71, 0.69, 0.65, 0.70}, {0.52, 0.55, 0.50, 0.49}, {0.9, 0.88, 0.87, 0.9},
		{0.33, 0.31, 0.35, 0.30}, {0.61, 0.60, 0.58, 0.59}, {0.8, 0.79, 0.75, 0.77}}
	res, err := stats.Friedman(stats.RankTable{Methods: []string{"mean", "mia", "oor", "block+mask"}, Scores: scores}, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	var out [2]map[string][]byte
	for i := range out {
		path := filepath.Join(t.TempDir(), "cd-r2")
		files, err := CDDiagram(path, res, "R² ranks")
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{path + ".png", path + ".svg"}; !slices.Equal(files, want) {
			t.Fatalf("files %v, want %v", files, want)
		}
		out[i] = map[string][]byte{}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out[i][filepath.Ext(f)] = b
		}
	}
	for ext, b := range out[0] {
		if len(b) == 0 || !bytes.Equal(b, out[1][ext]) {
			t.Errorf("%s: %d and %d bytes, not identical", ext, len(b), len(out[1][ext]))
		}
	}
	img, err := png.Decode(bytes.NewReader(out[0][".png"]))
	if err != nil {
		t.Fatal(err)
	}
	f, _ := cdFigure("x", res, "R² ranks")
	w, h := float64(img.Bounds().Dx()), float64(img.Bounds().Dy())
	if math.Abs(w-float64(f.W)*dpi/72) > 1 || math.Abs(h-float64(f.H)*dpi/72) > 1 {
		t.Errorf("PNG is %v × %v pixels for a %v × %v figure at %d dpi", w, h, f.W, f.H, dpi)
	}
	svg := string(out[0][".svg"])
	for _, s := range []string{"mean (", ") oor", "CD = ", "Friedman", "R² ranks"} {
		if !strings.Contains(svg, s) {
			t.Errorf("SVG lacks %q", s)
		}
	}
}

// recordCD draws r's diagram on a recorder and returns its strokes'
// widths and paths and its strings with their positions.
func recordCD(t *testing.T, r stats.FriedmanResult) (*cdLayout, []float64, []vg.Path, map[string]vg.Point) {
	t.Helper()
	if err := checkFriedman(r); err != nil {
		t.Fatal(err)
	}
	l := newCDLayout(r, "")
	rec := &recorder.Canvas{}
	l.draw(draw.NewCanvas(rec, l.w, l.h))
	var widths []float64
	var paths []vg.Path
	texts := map[string]vg.Point{}
	width := 0.0
	for _, a := range rec.Actions {
		switch a := a.(type) {
		case *recorder.SetLineWidth:
			width = float64(a.Width)
		case *recorder.Stroke:
			widths, paths = append(widths, width), append(paths, a.Path)
		case *recorder.FillString:
			texts[a.String] = a.Point
		}
	}
	return l, widths, paths, texts
}

func TestCDDiagramDrawing(t *testing.T) {
	r := cdResult()
	l, widths, paths, texts := recordCD(t, r)
	// One thick bar per maximal group, spanning its extreme ranks.
	wantBars := [][2]float64{{1.5, 2.9}, {2.9, 3.6}, {3.6, 5.0}}
	var bars []vg.Path
	for i, w := range widths {
		if w == cdBarWidth {
			bars = append(bars, paths[i])
		}
	}
	if len(bars) != len(wantBars) {
		t.Fatalf("%d thick bars, want %d", len(bars), len(wantBars))
	}
	c := draw.NewCanvas(&recorder.Canvas{}, l.w, l.h)
	for i, b := range bars {
		x0, x1 := b[0].Pos.X, b[len(b)-1].Pos.X
		if math.Abs(float64(x0-(l.x(c, wantBars[i][0])-2))) > 1e-9 || math.Abs(float64(x1-(l.x(c, wantBars[i][1])+2))) > 1e-9 {
			t.Errorf("bar %d spans x %v–%v, want ranks %v", i, x0, x1, wantBars[i])
		}
	}
	// Best three on the left, worst two on the right, best/worst on top.
	axisL, axisR := l.x(c, 1), l.x(c, float64(r.K))
	left := []string{"d (1.50)", "b (2.00)", "e (2.90)"}
	right := []string{"(5.00) c", "(3.60) a"}
	for i, s := range left {
		p, ok := texts[s]
		if !ok || p.X >= axisL || i > 0 && p.Y >= texts[left[i-1]].Y {
			t.Errorf("left label %q at %v (ok %v), axis starts at %v", s, p, ok, axisL)
		}
	}
	for i, s := range right {
		p, ok := texts[s]
		if !ok || p.X <= axisR || i > 0 && p.Y >= texts[right[i-1]].Y {
			t.Errorf("right label %q at %v (ok %v), axis ends at %v", s, p, ok, axisR)
		}
	}
	if _, ok := texts["CD = 1.50"]; !ok {
		t.Error("no CD label")
	}
	// Tick labels are centred on their ranks (FillString gets the left end).
	tick := textStyle(fontTick, draw.XCenter, draw.YBottom)
	for i, s := range []string{"1", "2", "3", "4", "5"} {
		p, ok := texts[s]
		if mid := p.X + tick.Width(s)/2; !ok || math.Abs(float64(mid-l.x(c, float64(i+1)))) > 1e-6 {
			t.Errorf("tick label %q at %v (ok %v), want centred on %v", s, p, ok, l.x(c, float64(i+1)))
		}
	}
}

// A CD longer than the axis widens the scale instead of leaving the
// figure.
func TestCDDiagramLongCD(t *testing.T) {
	r := cdResult()
	r.CD = 6.5
	l, _, paths, _ := recordCD(t, r)
	for _, p := range paths {
		for _, pt := range p {
			if pt.Pos.X < 0 || pt.Pos.X > l.w || pt.Pos.Y < 0 || pt.Pos.Y > l.h {
				t.Fatalf("stroke point %v outside the %v × %v figure", pt.Pos, l.w, l.h)
			}
		}
	}
}

func TestCDDiagramInvalid(t *testing.T) {
	dir := t.TempDir()
	mod := func(f func(*stats.FriedmanResult)) stats.FriedmanResult {
		r := cdResult()
		f(&r)
		return r
	}
	cases := map[string]stats.FriedmanResult{
		"one method":   {Methods: []string{"a"}, AvgRank: []float64{1}, K: 1, CD: 1},
		"short names":  mod(func(r *stats.FriedmanResult) { r.Methods = r.Methods[:4] }),
		"short ranks":  mod(func(r *stats.FriedmanResult) { r.AvgRank = r.AvgRank[:4] }),
		"NaN rank":     mod(func(r *stats.FriedmanResult) { r.AvgRank[2] = math.NaN() }),
		"rank above K": mod(func(r *stats.FriedmanResult) { r.AvgRank[2] = 5.5 }),
		"CD NaN":       mod(func(r *stats.FriedmanResult) { r.CD = math.NaN() }),
		"CD zero":      mod(func(r *stats.FriedmanResult) { r.CD = 0 }),
		"CD Inf":       mod(func(r *stats.FriedmanResult) { r.CD = math.Inf(1) }),
	}
	for name, r := range cases {
		if _, err := CDDiagram(filepath.Join(dir, "cd"), r, ""); !errors.Is(err, ErrInput) {
			t.Errorf("%s: error %v, want ErrInput", name, err)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("invalid results wrote %d files", len(ents))
	}
}

func TestCDCaptionNumbers(t *testing.T) {
	cases := []struct {
		p    float64
		want string
	}{{0.0123, "0.012"}, {0.65, "0.65"}, {4.6e-33, "4.6e-33"}, {0.001, "0.001"}, {math.NaN(), "NA"}}
	for _, c := range cases {
		if got := fmtPValue(c.p); got != c.want {
			t.Errorf("fmtPValue(%v) = %q, want %q", c.p, got, c.want)
		}
	}
	got := cdCaption(cdResult())
	for _, s := range []string{"χ²(4) = 20.50, p = 4.0e-04", "F(4, 44) = 8.10, p = 3.0e-05", "N = 12", "CD = 1.500 (α = 0.05)"} {
		if !strings.Contains(got, s) {
			t.Errorf("caption %q lacks %q", got, s)
		}
	}
}

func TestWrapText(t *testing.T) {
	sty := textStyle(fontSmall+1, draw.XLeft, draw.YTop)
	s := cdCaption(cdResult())
	for _, w := range []vg.Length{60, 150, 400, 2000} {
		lines := wrapText(s, sty, w)
		if strings.Join(lines, " ") != strings.Join(strings.Fields(s), " ") {
			t.Errorf("width %v: lines %q do not rejoin to the text", w, lines)
		}
		for _, l := range lines {
			if sty.Width(l) > w && strings.Contains(l, " ") {
				t.Errorf("width %v: line %q is %v wide", w, l, sty.Width(l))
			}
		}
		if w == 2000 && len(lines) != 1 {
			t.Errorf("width %v: %d lines, want 1", w, len(lines))
		}
	}
}
