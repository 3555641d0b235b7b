package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// Pairs are formed on the repetitions both pipelines completed; a pair
// with fewer than 2 such repetitions gets no test and does not count in
// the Holm family.
func TestPairwiseTestsPairingAndFamilies(t *testing.T) {
	r := func(rep int, p string, r2 float64) Record {
		return Record{Scenario: "s", Rep: rep, Pipeline: p, R2: r2, MSE: 1 - r2}
	}
	recs := []Record{
		r(1, "tree/a", 0.50), r(2, "tree/a", 0.60), r(3, "tree/a", 0.55), r(4, "tree/a", 0.70),
		r(1, "tree/b", 0.40), r(2, "tree/b", 0.45), r(3, "tree/b", 0.47), // rep 4 absent
		r(4, "tree/c", 0.9), // only rep 4: one pair with tree/a, none with tree/b
		r(1, "forest/a", 0.8), r(2, "forest/a", 0.7),
	}
	recs = append(recs, Record{Scenario: "s", Rep: 4, Pipeline: "tree/b", Failed: true, R2: math.NaN()})
	tests, err := PairwiseTests(recs, PrefixGroup("/"), 0.95)
	if err != nil {
		t.Fatal(err)
	}
	// forest has one pipeline: no pair. tree: (a,b), (a,c), (b,c).
	if len(tests) != 3 {
		t.Fatalf("got %d tests: %+v", len(tests), tests)
	}
	ab, ac, bc := tests[0], tests[1], tests[2]
	if ab.A != "tree/a" || ab.B != "tree/b" || ac.B != "tree/c" || bc.A != "tree/b" {
		t.Fatalf("order: %s-%s, %s-%s, %s-%s", ab.A, ab.B, ac.A, ac.B, bc.A, bc.B)
	}
	// a − b on reps 1..3: 0.10, 0.15, 0.08.
	want, _ := PairedTTest([]float64{0.50, 0.60, 0.55}, []float64{0.40, 0.45, 0.47}, 0.95)
	if ab.N != 3 || ab.Family != "tree" || ab.T != want.T || ab.P != want.P {
		t.Errorf("a-b = %+v, want %+v", ab.TTest, want)
	}
	if ac.Status != TestTooFew || ac.N != 1 || bc.Status != TestTooFew || bc.N != 0 {
		t.Errorf("a-c %v n %d, b-c %v n %d; want too-few", ac.Status, ac.N, bc.Status, bc.N)
	}
	// Only one p-value in the family → Holm leaves it as is; no-test rows stay NaN.
	if ab.PHolm != ab.P || !math.IsNaN(ac.PHolm) || !math.IsNaN(bc.PHolm) {
		t.Errorf("PHolm = %v, %v, %v", ab.PHolm, ac.PHolm, bc.PHolm)
	}
	if _, err := PairwiseTests(recs, nil, 0); !errors.Is(err, ErrConfLevel) {
		t.Errorf("conf 0: err = %v", err)
	}
}

// Outputs are a function of the set of records, not of their order.
func TestOutputsIgnoreInputOrder(t *testing.T) {
	recs := goldenRecords(t)
	point := func(s string) (string, int, bool) { return s, 100, true }
	run := func(recs []Record) []any {
		sum, err1 := Summarize(recs, PrefixGroup("/"))
		rel, err2 := RelativeR2(recs, PrefixGroup("/"))
		pw, err3 := PairwiseTests(recs, PrefixGroup("/"), 0.95)
		lc, err4 := LearningCurves(recs, CurveOptions{Point: point})
		if err := errors.Join(err1, err2, err3, err4); err != nil {
			t.Fatal(err)
		}
		return []any{sum, rel, pw, lc}
	}
	want := run(recs)
	rng := rand.New(rand.NewPCG(42, 43))
	for range 3 {
		s := slices.Clone(recs)
		rng.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
		// reflect.DeepEqual treats NaN ≠ NaN; the golden set has no NaN outputs.
		if got := run(s); !reflect.DeepEqual(got, want) {
			t.Fatal("outputs changed when the records were shuffled")
		}
	}
}
