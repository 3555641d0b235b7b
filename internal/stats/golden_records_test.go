package stats

import (
	"fmt"
	"testing"
)

// goldenRecords reads testdata/records.csv: two scenarios × six pipelines
// × 15 repetitions, with one failed run and one absent run.
func goldenRecords(t *testing.T) []Record {
	var recs []Record
	for _, r := range readGolden(t, "records.csv") {
		recs = append(recs, Record{Scenario: r["scenario"], Rep: r.i(t, "rep"), Pipeline: r["pipeline"],
			Failed: r["failed"] == "TRUE", R2: r.f(t, "r2"), MSE: r.f(t, "mse"),
			FitSeconds: r.f(t, "fit_seconds"), PredictSeconds: r.f(t, "predict_seconds")})
	}
	return recs
}

func TestGoldenRecordsSummarize(t *testing.T) {
	sums, err := Summarize(goldenRecords(t), PrefixGroup("/"))
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]Summary{}
	for _, ps := range sums {
		for m, s := range map[string]Summary{"r2": ps.R2, "rel": ps.RelR2, "mse": ps.MSE,
			"fit_seconds": ps.Fit, "predict_seconds": ps.Predict} {
			byKey[ps.Scenario+"|"+ps.Pipeline+"|"+m] = s
		}
	}
	rows := readGolden(t, "summary.csv")
	if len(rows) != len(byKey) {
		t.Fatalf("%d summaries, R has %d", len(byKey), len(rows))
	}
	for _, r := range rows {
		k := r["scenario"] + "|" + r["pipeline"] + "|" + r["metric"]
		s, ok := byKey[k]
		if !ok {
			t.Fatalf("no summary for %s", k)
		}
		if s.N != r.i(t, "n") {
			t.Errorf("%s: n = %d, R says %s", k, s.N, r["n"])
		}
		for col, got := range map[string]float64{"mean": s.Mean, "sd": s.SD, "se": s.SE, "min": s.Min,
			"q1": s.Q1, "median": s.Median, "q3": s.Q3, "max": s.Max} {
			// Relative R² values are differences of numbers near 0.6: one
			// ulp of the family mean (which FMA contraction on some
			// platforms may move) is a large relative error of a value
			// near 0, so those compare on the scale of R² itself.
			scale := 0.0
			if r["metric"] == "rel" {
				scale = 1
			}
			if !near(got, r.f(t, col), 1e-12, scale) {
				t.Errorf("%s %s = %.17g, R says %s", k, col, got, r[col])
			}
		}
	}
}

func TestGoldenRecordsRelative(t *testing.T) {
	rel, err := RelativeR2(goldenRecords(t), PrefixGroup("/"))
	if err != nil {
		t.Fatal(err)
	}
	rows := readGolden(t, "relative.csv") // sorted by scenario, pipeline, rep like ours
	if len(rel) != len(rows) {
		t.Fatalf("%d relative scores, R has %d", len(rel), len(rows))
	}
	for i, r := range rows {
		g := rel[i]
		k := fmt.Sprintf("%s/%d/%s", g.Scenario, g.Rep, g.Pipeline)
		if g.Scenario != r["scenario"] || g.Rep != r.i(t, "rep") || g.Pipeline != r["pipeline"] ||
			g.Family != r["family"] || g.FamilySize != r.i(t, "family_size") {
			t.Fatalf("row %d: got %s family %s size %d, R has %v", i, k, g.Family, g.FamilySize, r)
		}
		check(t, k+" family mean", g.FamilyMean, r.f(t, "family_mean"), 1e-15)
		if !near(g.Rel, r.f(t, "rel"), 1e-14, 1) {
			t.Errorf("%s rel = %.17g, R says %s", k, g.Rel, r["rel"])
		}
	}
}

func TestGoldenRecordsPairwise(t *testing.T) {
	tests, err := PairwiseTests(goldenRecords(t), PrefixGroup("/"), 0.95)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]PairTest{}
	for _, pt := range tests {
		got[pt.Scenario+"|"+pt.A+"|"+pt.B] = pt
	}
	rows := readGolden(t, "pairwise.csv")
	if len(rows) != len(tests) {
		t.Fatalf("%d tests, R has %d", len(tests), len(rows))
	}
	for _, r := range rows {
		k := r["scenario"] + "|" + r["a"] + "|" + r["b"]
		g, ok := got[k]
		if !ok {
			t.Fatalf("no test for %s", k)
		}
		if g.Family != r["family"] || g.N != r.i(t, "n") || g.DF != r.i(t, "df") || g.Status != TestOK {
			t.Errorf("%s: family %q n %d df %d status %v; R: %s %s %s", k, g.Family, g.N, g.DF, g.Status,
				r["family"], r["n"], r["df"])
		}
		check(t, k+" mean_diff", g.MeanDiff, r.f(t, "mean_diff"), 1e-12)
		check(t, k+" se", g.SE, r.f(t, "se"), 1e-12)
		check(t, k+" t", g.T, r.f(t, "t"), 1e-12)
		check(t, k+" p", g.P, r.f(t, "p"), 1e-10)
		check(t, k+" p_holm", g.PHolm, r.f(t, "p_holm"), 1e-10)
		lo, hi := r.f(t, "ci_lo"), r.f(t, "ci_hi")
		if !near(g.CILo, lo, 1e-12, (hi-lo)/2) || !near(g.CIHi, hi, 1e-12, (hi-lo)/2) {
			t.Errorf("%s: CI = [%.17g, %.17g], R says [%s, %s]", k, g.CILo, g.CIHi, r["ci_lo"], r["ci_hi"])
		}
	}
}
