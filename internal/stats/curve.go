package stats

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// ErrNoPoint is returned by LearningCurves when CurveOptions.Point is nil.
var ErrNoPoint = errors.New("stats: learning curves need CurveOptions.Point")

// CurveOptions tells LearningCurves how to read the caller's keys.
type CurveOptions struct {
	// Point maps a scenario key to the panel its records belong to (the
	// scenario with its training size left out, e.g. model × mechanism)
	// and its training size n ≥ 1. ok = false drops the scenario.
	Point func(scenario string) (panel string, n int, ok bool)
	// Bayes returns the Bayes-rate R² of a panel at training size n
	// (ignore n for a per-model value); ok = false means none is known.
	// A nil Bayes draws no reference curve.
	Bayes func(panel string, n int) (r2 float64, ok bool)
}

// CurvePoint summarises a pipeline's R² at one training size: the median
// and the 25–75% band, type-7 quartiles (the paper's Figure 5, drawn
// with numpy's linear percentiles, i.e. type 7). Reps counts completed
// runs; when it is 0 (all Failed) Median, Q1 and Q3 are NaN and a plot
// should skip the point.
type CurvePoint struct {
	N              int     // training size
	Log10N         float64 // log10(N), the x coordinate on a log-n axis
	Reps, Failed   int
	Median, Q1, Q3 float64
}

// Curve is one pipeline's points in increasing N.
type Curve struct {
	Pipeline string
	Points   []CurvePoint
}

// BayesPoint is the Bayes-rate R² of a panel at training size N.
type BayesPoint struct {
	N      int
	Log10N float64
	R2     float64
}

// Panel is one subplot: every pipeline's curve over the training sizes
// of the panel, plus the Bayes reference where known.
type Panel struct {
	Name   string
	Ns     []int        // the panel's training sizes, increasing
	Bayes  []BayesPoint // at the Ns where Bayes returned ok, increasing N
	Curves []Curve      // sorted by pipeline
}

// LearningCurves groups recs into panels and curves by opt.Point and
// summarises each (pipeline, n). Panels are sorted by name. Errors:
// ErrNoPoint; Validate's errors; ErrDuplicate when two scenarios map to
// the same (panel, n) with a repetition of the same pipeline; a Point
// with n < 1 or a non-finite Bayes value (ErrNonFinite).
func LearningCurves(recs []Record, opt CurveOptions) ([]Panel, error) {
	if opt.Point == nil {
		return nil, ErrNoPoint
	}
	if err := Validate(recs); err != nil {
		return nil, err
	}
	tallies, err := tallyCurves(recs, opt.Point)
	if err != nil {
		return nil, err
	}
	panels := map[string]*Panel{}
	curves := map[[2]string]*Curve{}
	for k, t := range tallies {
		p := panels[k.panel]
		if p == nil {
			p = &Panel{Name: k.panel}
			panels[k.panel] = p
		}
		p.Ns = append(p.Ns, k.n)
		c := curves[[2]string{k.panel, k.pipeline}]
		if c == nil {
			c = &Curve{Pipeline: k.pipeline}
			curves[[2]string{k.panel, k.pipeline}] = c
		}
		slices.Sort(t.r2)
		c.Points = append(c.Points, CurvePoint{N: k.n, Log10N: math.Log10(float64(k.n)),
			Reps: len(t.r2), Failed: t.failed,
			Median: Quantile(t.r2, 0.5), Q1: Quantile(t.r2, 0.25), Q3: Quantile(t.r2, 0.75)})
	}
	for k, c := range curves {
		slices.SortFunc(c.Points, func(a, b CurvePoint) int { return cmp.Compare(a.N, b.N) })
		panels[k[0]].Curves = append(panels[k[0]].Curves, *c)
	}
	return finishPanels(panels, opt.Bayes)
}

// curvePointKey identifies one point of one curve.
type curvePointKey struct {
	panel, pipeline string
	n               int
}

// curveTally collects the runs of one curve point.
type curveTally struct {
	r2     []float64 // completed runs' R²
	failed int
	reps   map[int]bool
}

// tallyCurves maps every record through point and collects the runs of
// each (panel, pipeline, n), rejecting bad sizes and repeated repetitions.
func tallyCurves(recs []Record, point func(string) (string, int, bool)) (map[curvePointKey]*curveTally, error) {
	out := map[curvePointKey]*curveTally{}
	for _, c := range cells(recs) {
		panel, n, ok := point(c.scenario)
		if !ok {
			continue
		}
		if n < 1 {
			return nil, fmt.Errorf("stats: scenario %q has training size %d < 1", c.scenario, n)
		}
		k := curvePointKey{panel, c.pipeline, n}
		t := out[k]
		if t == nil {
			t = &curveTally{reps: map[int]bool{}}
			out[k] = t
		}
		for _, r := range c.recs {
			if t.reps[r.Rep] {
				return nil, fmt.Errorf("%w: panel %q n %d pipeline %q rep %d comes from two scenarios",
					ErrDuplicate, panel, n, c.pipeline, r.Rep)
			}
			t.reps[r.Rep] = true
			if r.Failed {
				t.failed++
			} else {
				t.r2 = append(t.r2, r.R2)
			}
		}
	}
	return out, nil
}

// finishPanels sorts panels, their sizes and curves, and adds Bayes points.
func finishPanels(panels map[string]*Panel, bayes func(string, int) (float64, bool)) ([]Panel, error) {
	out := make([]Panel, 0, len(panels))
	for _, p := range panels {
		slices.Sort(p.Ns)
		p.Ns = slices.Compact(p.Ns)
		slices.SortFunc(p.Curves, func(a, b Curve) int { return strings.Compare(a.Pipeline, b.Pipeline) })
		for _, n := range p.Ns {
			if bayes == nil {
				break
			}
			r2, ok := bayes(p.Name, n)
			if !ok {
				continue
			}
			if math.IsNaN(r2) || math.IsInf(r2, 0) {
				return nil, fmt.Errorf("%w: Bayes R² %v for panel %q n %d", ErrNonFinite, r2, p.Name, n)
			}
			p.Bayes = append(p.Bayes, BayesPoint{N: n, Log10N: math.Log10(float64(n)), R2: r2})
		}
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b Panel) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}
