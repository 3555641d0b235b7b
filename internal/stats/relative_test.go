package stats

import (
	"errors"
	"math"
	"testing"
)

// handRecords: scenario s, two repetitions, tree/a, tree/b, forest/a;
// tree/b failed in repetition 2.
func handRecords() []Record {
	rec := func(rep int, p string, r2 float64, failed bool) Record {
		return Record{Scenario: "s", Rep: rep, Pipeline: p, R2: r2, MSE: 1 - r2,
			FitSeconds: 0.1, PredictSeconds: 0.01, Failed: failed}
	}
	return []Record{
		rec(1, "tree/a", 0.5, false), rec(1, "tree/b", 0.7, false), rec(1, "forest/a", 0.9, false),
		rec(2, "tree/a", 0.6, false), rec(2, "tree/b", math.NaN(), true), rec(2, "forest/a", 0.8, false),
	}
}

func TestRelativeR2HandComputed(t *testing.T) {
	type want struct {
		rep          int
		pipeline     string
		rel, famMean float64
		famSize      int
	}
	tests := []struct {
		name   string
		family GroupFunc
		want   []want // in Scenario, Pipeline, Rep order
	}{
		{"by learner", PrefixGroup("/"), []want{
			{1, "forest/a", 0, 0.9, 1}, {2, "forest/a", 0, 0.8, 1},
			// rep 1: tree mean (0.5 + 0.7)/2 = 0.6; rep 2: tree/b failed → mean of tree/a alone
			{1, "tree/a", -0.1, 0.6, 2}, {2, "tree/a", 0, 0.6, 1},
			{1, "tree/b", 0.1, 0.6, 2},
		}},
		{"nil family = whole scenario", nil, []want{
			// rep 1: (0.5 + 0.7 + 0.9)/3 = 0.7; rep 2: (0.6 + 0.8)/2 = 0.7
			{1, "forest/a", 0.2, 0.7, 3}, {2, "forest/a", 0.1, 0.7, 2},
			{1, "tree/a", -0.2, 0.7, 3}, {2, "tree/a", -0.1, 0.7, 2},
			{1, "tree/b", 0, 0.7, 3},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := RelativeR2(handRecords(), tc.family)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d relative scores, want %d: %+v", len(got), len(tc.want), got)
			}
			for i, w := range tc.want {
				g := got[i]
				if g.Rep != w.rep || g.Pipeline != w.pipeline || g.FamilySize != w.famSize ||
					!near(g.Rel, w.rel, 1e-15, 1) || !near(g.FamilyMean, w.famMean, 1e-15, 0) {
					t.Errorf("row %d = %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

func TestSummarizeHandComputed(t *testing.T) {
	sums, err := Summarize(handRecords(), PrefixGroup("/"))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, s := range sums {
		keys = append(keys, s.Pipeline)
	}
	if len(sums) != 3 || keys[0] != "forest/a" || keys[1] != "tree/a" || keys[2] != "tree/b" {
		t.Fatalf("rows %v, want forest/a, tree/a, tree/b", keys)
	}
	tb := sums[2]
	// tree/b: one completed run (0.7) of two; SD and SE undefined with one value.
	if tb.Family != "tree" || tb.Runs != 2 || tb.Failed != 1 || tb.R2.N != 1 || tb.R2.Median != 0.7 ||
		!math.IsNaN(tb.R2.SE) || tb.RelR2.N != 1 || !near(tb.RelR2.Mean, 0.1, 1e-15, 0) {
		t.Errorf("tree/b summary = %+v", tb)
	}
	fa := sums[0]
	// forest/a: R² 0.9, 0.8 → mean 0.85, sd √0.005, SE 0.05, type-7 median 0.85
	if fa.R2.N != 2 || !near(fa.R2.Mean, 0.85, 1e-15, 0) || !near(fa.R2.SE, 0.05, 1e-14, 0) ||
		!near(fa.R2.Q1, 0.825, 1e-15, 0) || !near(fa.MSE.Mean, 0.15, 1e-14, 0) || fa.Fit.Mean != 0.1 {
		t.Errorf("forest/a summary = %+v", fa)
	}
}

func TestAllFailedPipelineGetsEmptySummary(t *testing.T) {
	recs := []Record{
		{Scenario: "s", Rep: 1, Pipeline: "svm/mean", Failed: true, R2: math.NaN()},
		{Scenario: "s", Rep: 2, Pipeline: "svm/mean", Failed: true, R2: math.NaN()},
	}
	sums, err := Summarize(recs, nil)
	if err != nil || len(sums) != 1 {
		t.Fatalf("Summarize = %+v, %v", sums, err)
	}
	if s := sums[0]; s.Runs != 2 || s.Failed != 2 || s.R2.N != 0 || !math.IsNaN(s.R2.Median) {
		t.Errorf("summary = %+v, want 2 failed runs and an empty R² summary", s)
	}
	if sums, err := Summarize(nil, nil); err != nil || len(sums) != 0 {
		t.Errorf("Summarize(nil) = %v, %v; want no rows", sums, err)
	}
}

func TestValidate(t *testing.T) {
	ok := Record{Scenario: "s", Rep: 1, Pipeline: "p", R2: 0.5, MSE: 0.5, FitSeconds: 1, PredictSeconds: 1}
	with := func(f func(*Record)) Record { r := ok; f(&r); return r }
	tests := []struct {
		name string
		recs []Record
		want error
	}{
		{"fine", []Record{ok, with(func(r *Record) { r.Rep = 2 })}, nil},
		{"failed may hold NaN", []Record{with(func(r *Record) { r.Failed, r.R2, r.MSE = true, math.NaN(), math.NaN() })}, nil},
		{"duplicate", []Record{ok, with(func(r *Record) { r.R2 = 0.1 })}, ErrDuplicate},
		{"NaN R2", []Record{with(func(r *Record) { r.R2 = math.NaN() })}, ErrNonFinite},
		{"Inf MSE", []Record{with(func(r *Record) { r.MSE = math.Inf(1) })}, ErrNonFinite},
		{"NaN time", []Record{with(func(r *Record) { r.PredictSeconds = math.NaN() })}, ErrNonFinite},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := Validate(tc.recs); !errors.Is(err, tc.want) {
				t.Errorf("Validate = %v, want %v", err, tc.want)
			}
			// Every entry point must refuse what Validate refuses.
			_, err1 := Summarize(tc.recs, nil)
			_, err2 := PairwiseTests(tc.recs, nil, 0.95)
			_, err3 := LearningCurves(tc.recs, CurveOptions{Point: func(s string) (string, int, bool) { return s, 1, true }})
			for i, err := range []error{err1, err2, err3} {
				if !errors.Is(err, tc.want) {
					t.Errorf("entry point %d: err = %v, want %v", i, err, tc.want)
				}
			}
		})
	}
}
