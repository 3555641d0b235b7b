package plan

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/sim"
)

// TestFitSecondsScaling: a learner's law at n times (D/RefWidth)^Width ·
// (1 + Missing·Slope), the strategy's law added unscaled, no scaling for
// an unknown width (D = 0) or an external learner.
func TestFitSecondsScaling(t *testing.T) {
	c := CostModel{
		Learners:        map[string]PowerLaw{"tree": {Seconds: 1, Exponent: 1}},
		Scalings:        map[string]Scaling{"tree": {Width: 1, Slope: 2}},
		Strategies:      map[string]PowerLaw{"gaussian": {Seconds: 0.5, Exponent: 0}},
		ExternalLearner: PowerLaw{Seconds: 3, Exponent: 0},
	}
	cases := []struct {
		pipeline string
		sh       Shape
		want     float64
	}{
		{"tree/mean", Shape{N: 1000, D: 10}, 1},
		{"tree/mean", Shape{N: 2000, D: 20}, 4},                // 2 · 2
		{"tree/mean", Shape{N: 1000, D: 20, Missing: 0.5}, 4},  // 2 · (1 + 0.5·2)
		{"tree/mean", Shape{N: 1000, Missing: 0.25}, 1.5},      // width unknown: 1 · 1.5
		{"tree/gaussian", Shape{N: 1000, D: 40}, 4.5},          // 4 + 0.5 unscaled
		{"tree/gaussian", Shape{N: 1000, D: 5, Missing: 1}, 2}, // 0.5 · 3 + 0.5
	}
	for _, tc := range cases {
		if got := c.FitSeconds(grid.MustPipeline(tc.pipeline, nil), tc.sh); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("FitSeconds(%s, %+v) = %v, want %v", tc.pipeline, tc.sh, got, tc.want)
		}
	}
}

// TestFitSecondsWork: a forest's and a boosting run's cost is
// proportional to their trees and rounds, relative to the defaults the
// laws are stated at; other settings and families are not scaled.
func TestFitSecondsWork(t *testing.T) {
	c := DefaultCostModel()
	sh := Shape{N: 1000, D: 10}
	cases := []struct {
		pipeline string
		settings map[string]float64
		want     float64 // times the pipeline's cost at its defaults
	}{
		{"forest/mean", map[string]float64{"trees": 100}, 0.2},
		{"forest/mia", map[string]float64{"trees": 1000, "mtry": 2}, 2},
		{"boost/mean", map[string]float64{"rounds": 50}, 0.1},
		{"boost/mean", map[string]float64{"eta": 0.1}, 1},
		{"tree/mean", map[string]float64{"minbucket": 5}, 1},
	}
	for _, tc := range cases {
		def := c.FitSeconds(grid.MustPipeline(tc.pipeline, nil), sh)
		got := c.FitSeconds(grid.MustPipeline(tc.pipeline, tc.settings), sh)
		if math.Abs(got/def-tc.want) > 1e-12 {
			t.Errorf("%s %v: %v s, %v times the default's %v s, want %v times", tc.pipeline, tc.settings, got, got/def, def, tc.want)
		}
	}
}

// TestFitShape: a simulated scenario's width and missing fraction, with
// one indicator per maskable column under "+mask".
func TestFitShape(t *testing.T) {
	sc, err := sim.Defaults(sim.Quadratic) // d = 9, 20% MCAR on X1..X3
	if err != nil {
		t.Fatal(err)
	}
	missing := sc.Rate * 3 / 9 // at run time, rounded as FitShape rounds
	for _, tc := range []struct {
		pipeline string
		want     Shape
	}{
		{"forest/mean", Shape{N: 1000, D: 9, Missing: missing}},
		{"forest/mean+mask", Shape{N: 1000, D: 12, Missing: missing}},
	} {
		if got := FitShape(sc, grid.MustPipeline(tc.pipeline, nil)); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.pipeline, got, tc.want)
		}
	}
	sc.Mechanism, sc.Rate, sc.Columns = sim.None, 0, nil
	if got := FitShape(sc, grid.MustPipeline("forest/mean+mask", nil)); got != (Shape{N: 1000, D: 9}) {
		t.Errorf("complete data: %+v, want no mask column and nothing missing", got)
	}
}

// TestTableShape: grid's testdata/tables/small.csv has 12 rows, 3 folds (8
// training rows), features a (3 NA), b and c (categorical, 3 levels, 1
// NA): 6 design columns; its natural NA cover (3 + 1)/36 of the cells,
// and an amputation at rate r on all three adds r.
func TestTableShape(t *testing.T) {
	f, err := grid.ParseFile(filepath.Join("..", "grid", "testdata", "table.good.hcl"), grid.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sw := f.Sweeps[0]
	tp := tablePlan(sw)
	natural := (3.0/12 + 1.0/12) / 3
	for _, sc := range sw.Scenarios[:2] { // none, then MCAR at 10%
		sh := scenarioShape(sc, tp)
		want := fitShape{Shape: Shape{N: 8, D: 6, Missing: natural}, maskable: 2}
		if sc.Mechanism != sim.None {
			want.Missing, want.maskable = natural+0.1, 3
		}
		if sh.N != want.N || sh.D != want.D || math.Abs(sh.Missing-want.Missing) > 1e-12 || sh.maskable != want.maskable {
			t.Errorf("%s %v: %+v, want %+v", sc.Mechanism, sc.Rate, sh, want)
		}
	}
}

// TestDefaultCostModelFigure3 checks the calibration of DefaultCostModel:
// over Figure 3's pipelines (d = 9, 12 with masks, 6.7% missing), each
// family's mean estimated fit is the per-pipeline CPU time measured on
// one repetition (BenchmarkFigure3Rep), which the doc comment cites.
func TestDefaultCostModelFigure3(t *testing.T) {
	sw := parseExample(t, "figure3.hcl").Sweeps[0]
	measured := map[string]float64{"tree": 0.00107, "ctree": 0.00133, "forest": 0.1045, "boost": 0.0672,
		"svm": 0.0115, "knn": 0.00386}
	cost, sc := DefaultCostModel(), sw.Scenarios[0]
	sum, count := map[string]float64{}, map[string]int{}
	for _, p := range sw.Pipelines {
		imp := cost.Strategies[p.Spec().Strategy].At(sc.NTrain) // the imputer is calibrated apart
		sum[p.Learner()] += cost.FitSeconds(p, FitShape(sc, p)) - imp
		count[p.Learner()]++
	}
	for l, want := range measured {
		if got := sum[l] / float64(count[l]); math.Abs(got/want-1) > 0.02 {
			t.Errorf("%s: mean estimate %.4g s over %d pipelines, measured %.4g s", l, got, count[l], want)
		}
	}
}
