package stats

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
)

// curveKey parses the test's scenario keys "panel|n" ("skip|…" is dropped).
func curveKey(s string) (string, int, bool) {
	panel, ns, _ := strings.Cut(s, "|")
	n, err := strconv.Atoi(ns)
	return panel, n, err == nil && panel != "skip"
}

func curveRec(scenario string, rep int, pipeline string, r2 float64, failed bool) Record {
	return Record{Scenario: scenario, Rep: rep, Pipeline: pipeline, R2: r2, MSE: 1 - r2, Failed: failed}
}

func TestLearningCurvesHandComputed(t *testing.T) {
	var recs []Record
	for i, r2 := range []float64{0.3, 0.1, 0.5, 0.2, 0.4} {
		recs = append(recs, curveRec("lin|100", i, "tree/mia", r2, false))
	}
	recs = append(recs, curveRec("lin|1000", 0, "tree/mia", 0.7, false),
		curveRec("lin|1000", 1, "tree/mia", 0.5, false),
		curveRec("lin|1000", 2, "tree/mia", math.NaN(), true),
		curveRec("lin|1000", 0, "forest/mean", 0.75, false),
		curveRec("fried|100", 0, "tree/mia", 0.1, false),
		curveRec("skip|100", 0, "tree/mia", 0.9, false))
	bayes := func(panel string, n int) (float64, bool) { return 0.8, panel == "lin" } // per model
	panels, err := LearningCurves(recs, CurveOptions{Point: curveKey, Bayes: bayes})
	if err != nil {
		t.Fatal(err)
	}
	if len(panels) != 2 || panels[0].Name != "fried" || panels[1].Name != "lin" {
		t.Fatalf("panels = %+v, want fried, lin", panels)
	}
	if len(panels[0].Bayes) != 0 {
		t.Errorf("fried has Bayes points %+v, want none", panels[0].Bayes)
	}
	lin := panels[1]
	if len(lin.Ns) != 2 || lin.Ns[0] != 100 || lin.Ns[1] != 1000 {
		t.Errorf("lin Ns = %v", lin.Ns)
	}
	wantBayes := []BayesPoint{{100, 2, 0.8}, {1000, 3, 0.8}}
	if len(lin.Bayes) != 2 || lin.Bayes[0] != wantBayes[0] || lin.Bayes[1] != wantBayes[1] {
		t.Errorf("lin Bayes = %+v, want %+v", lin.Bayes, wantBayes)
	}
	if len(lin.Curves) != 2 || lin.Curves[0].Pipeline != "forest/mean" || lin.Curves[1].Pipeline != "tree/mia" {
		t.Fatalf("lin curves = %+v", lin.Curves)
	}
	// n = 100: sorted 0.1..0.5 → type-7 Q1 = 0.2, median 0.3, Q3 = 0.4.
	// n = 1000: 0.5, 0.7 (one failed) → Q1 = 0.55, median 0.6, Q3 = 0.65.
	want := []CurvePoint{
		{N: 100, Log10N: 2, Reps: 5, Median: 0.3, Q1: 0.2, Q3: 0.4},
		{N: 1000, Log10N: 3, Reps: 2, Failed: 1, Median: 0.6, Q1: 0.55, Q3: 0.65},
	}
	got := lin.Curves[1].Points
	if len(got) != 2 {
		t.Fatalf("tree/mia points = %+v", got)
	}
	for i, w := range want {
		g := got[i]
		if g.N != w.N || g.Log10N != w.Log10N || g.Reps != w.Reps || g.Failed != w.Failed ||
			!near(g.Median, w.Median, 1e-15, 0) || !near(g.Q1, w.Q1, 1e-15, 0) || !near(g.Q3, w.Q3, 1e-15, 0) {
			t.Errorf("point %d = %+v, want %+v", i, g, w)
		}
	}
}

func TestLearningCurvesErrors(t *testing.T) {
	ok := []Record{curveRec("lin|100", 0, "p", 0.5, false)}
	tests := []struct {
		name string
		recs []Record
		opt  CurveOptions
		want error
	}{
		{"nil Point", ok, CurveOptions{}, ErrNoPoint},
		{"two scenarios, same point and rep", []Record{curveRec("lin|100", 0, "p", 0.5, false),
			curveRec("lin|0100", 0, "p", 0.6, false)}, CurveOptions{Point: curveKey}, ErrDuplicate},
		{"NaN Bayes", ok, CurveOptions{Point: curveKey,
			Bayes: func(string, int) (float64, bool) { return math.NaN(), true }}, ErrNonFinite},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := LearningCurves(tc.recs, tc.opt); !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
		})
	}
	if _, err := LearningCurves([]Record{curveRec("lin|0", 0, "p", 0.5, false)},
		CurveOptions{Point: curveKey}); err == nil {
		t.Error("training size 0 accepted")
	}
	// An all-failed point is kept, with NaN quartiles and Reps 0.
	panels, err := LearningCurves([]Record{curveRec("lin|100", 0, "p", 0, true)}, CurveOptions{Point: curveKey})
	if err != nil || len(panels) != 1 {
		t.Fatalf("LearningCurves = %+v, %v", panels, err)
	}
	if p := panels[0].Curves[0].Points[0]; p.Reps != 0 || p.Failed != 1 || !math.IsNaN(p.Median) {
		t.Errorf("all-failed point = %+v", p)
	}
}
