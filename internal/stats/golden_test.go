package stats

// Golden tests: every expected number here was computed by R (see
// testdata/make_golden.R and testdata/R_VERSION) and committed as CSV.

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// row is one CSV row keyed by header.
type row map[string]string

func (r row) f(t *testing.T, col string) float64 {
	t.Helper()
	s, ok := r[col]
	if !ok {
		t.Fatalf("no column %q", col)
	}
	if s == "NA" {
		return math.NaN()
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("column %q: %v", col, err)
	}
	return v
}

func (r row) i(t *testing.T, col string) int { return int(r.f(t, col)) }

func readGolden(t *testing.T, name string) []row {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var out []row
	for _, rec := range recs[1:] {
		r := row{}
		for j, h := range recs[0] {
			r[h] = rec[j]
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		t.Fatalf("%s is empty", name)
	}
	return out
}

// goldenVectors returns the named input vectors of vectors.csv.
func goldenVectors(t *testing.T) map[string][]float64 {
	v := map[string][]float64{}
	for _, r := range readGolden(t, "vectors.csv") {
		v[r["case"]] = append(v[r["case"]], r.f(t, "value"))
	}
	return v
}

// near reports whether got is within rel·scale of want (scale defaults to
// |want|); NaN matches NaN.
func near(got, want, rel, scale float64) bool {
	if math.IsNaN(want) || math.IsNaN(got) {
		return math.IsNaN(want) && math.IsNaN(got)
	}
	if got == want {
		return true
	}
	return math.Abs(got-want) <= rel*max(math.Abs(want), scale)
}

func check(t *testing.T, what string, got, want, rel float64) {
	t.Helper()
	if !near(got, want, rel, 0) {
		t.Errorf("%s = %.17g, R says %.17g (rel err %.2g, tol %g)", what, got, want,
			math.Abs(got-want)/math.Abs(want), rel)
	}
}

func TestGoldenQuantileType7(t *testing.T) {
	vecs := goldenVectors(t)
	for _, r := range readGolden(t, "quantiles.csv") {
		x := slices.Clone(vecs[r["case"]])
		slices.Sort(x)
		p := r.f(t, "p")
		check(t, fmt.Sprintf("Quantile(%s, %g)", r["case"], p), Quantile(x, p), r.f(t, "value"), 1e-15)
	}
}

func TestGoldenDescribeFivenumBoxplot(t *testing.T) {
	vecs := goldenVectors(t)
	want := map[string]map[string]float64{}
	for _, r := range readGolden(t, "describe.csv") {
		if want[r["case"]] == nil {
			want[r["case"]] = map[string]float64{}
		}
		want[r["case"]][r["stat"]] = r.f(t, "value")
	}
	for name, x := range vecs {
		w := want[name]
		s, err := Describe(x)
		if err != nil {
			t.Fatal(err)
		}
		sorted := slices.Sorted(slices.Values(x))
		f := Fivenum(sorted)
		tk := BoxStats(sorted, 1.5, HingesTukey)
		got := map[string]float64{
			"n": float64(s.N), "mean": s.Mean, "sd": s.SD, "se": s.SE, "min": s.Min,
			"q1": s.Q1, "median": s.Median, "q3": s.Q3, "max": s.Max, "iqr": s.IQR,
			"tukey1": tk.Lower, "tukey2": tk.Q1, "tukey3": tk.Median, "tukey4": tk.Q3, "tukey5": tk.Upper,
			"tukey_nout": float64(len(tk.Outliers)),
			"type7_1":    s.Box.Lower, "type7_2": s.Box.Q1, "type7_3": s.Box.Median,
			"type7_4": s.Box.Q3, "type7_5": s.Box.Upper, "type7_nout": float64(len(s.Box.Outliers)),
		}
		for i, v := range f {
			got[fmt.Sprintf("fivenum%d", i+1)] = v
		}
		if len(got) != len(w) {
			t.Fatalf("%s: %d statistics, fixture has %d", name, len(got), len(w))
		}
		for stat, g := range got {
			check(t, name+"."+stat, g, w[stat], 1e-13)
		}
	}
}

func TestGoldenPairedTTest(t *testing.T) {
	xs, ys := map[string][]float64{}, map[string][]float64{}
	for _, r := range readGolden(t, "pairs.csv") {
		xs[r["case"]] = append(xs[r["case"]], r.f(t, "x"))
		ys[r["case"]] = append(ys[r["case"]], r.f(t, "y"))
	}
	for _, r := range readGolden(t, "ttest.csv") {
		name := fmt.Sprintf("%s@%g", r["case"], r.f(t, "conf"))
		got, err := PairedTTest(xs[r["case"]], ys[r["case"]], r.f(t, "conf"))
		if err != nil || got.Status != TestOK {
			t.Fatalf("%s: err %v status %v", name, err, got.Status)
		}
		if got.N != r.i(t, "n") || got.DF != r.i(t, "df") {
			t.Errorf("%s: n, df = %d, %d; R says %s, %s", name, got.N, got.DF, r["n"], r["df"])
		}
		check(t, name+" mean_diff", got.MeanDiff, r.f(t, "mean_diff"), 1e-12)
		check(t, name+" se", got.SE, r.f(t, "se"), 1e-12)
		check(t, name+" t", got.T, r.f(t, "t"), 1e-12)
		check(t, name+" p", got.P, r.f(t, "p"), 1e-10)
		// The interval bounds are MeanDiff ∓ q·SE: compare on the scale of
		// the half-width so that a bound near 0 is not held to an
		// impossible relative precision.
		lo, hi := r.f(t, "ci_lo"), r.f(t, "ci_hi")
		if !near(got.CILo, lo, 1e-12, (hi-lo)/2) || !near(got.CIHi, hi, 1e-12, (hi-lo)/2) {
			t.Errorf("%s: CI = [%.17g, %.17g], R says [%.17g, %.17g]", name, got.CILo, got.CIHi, lo, hi)
		}
	}
}

func TestGoldenStudentT(t *testing.T) {
	for _, r := range readGolden(t, "pt.csv") {
		tt, df := r.f(t, "t"), r.f(t, "df")
		check(t, fmt.Sprintf("StudentTwoSidedP(%g, %g)", tt, df), StudentTwoSidedP(tt, df), r.f(t, "p"), 1e-10)
	}
	for _, r := range readGolden(t, "qt.csv") {
		p, df := r.f(t, "p"), r.f(t, "df")
		check(t, fmt.Sprintf("StudentQuantile(%g, %g)", p, df), StudentQuantile(p, df), r.f(t, "q"), 1e-12)
	}
}

func TestGoldenHolm(t *testing.T) {
	sets := map[string][]row{}
	var order []string
	for _, r := range readGolden(t, "holm.csv") {
		if sets[r["set"]] == nil {
			order = append(order, r["set"])
		}
		sets[r["set"]] = append(sets[r["set"]], r)
	}
	for _, name := range order {
		var p []float64
		for _, r := range sets[name] {
			p = append(p, r.f(t, "p"))
		}
		got := Holm(p)
		for i, r := range sets[name] {
			check(t, fmt.Sprintf("Holm(%s)[%d]", name, i), got[i], r.f(t, "holm"), 1e-15)
		}
	}
}

func TestGoldenWilson(t *testing.T) {
	for _, r := range readGolden(t, "wilson.csv") {
		x, n, conf := r.i(t, "x"), r.i(t, "n"), r.f(t, "conf")
		lo, hi := Wilson(x, n, conf)
		name := fmt.Sprintf("Wilson(%d, %d, %g)", x, n, conf)
		check(t, name+" lo", lo, r.f(t, "lo"), 1e-13)
		check(t, name+" hi", hi, r.f(t, "hi"), 1e-13)
	}
}
