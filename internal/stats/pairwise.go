package stats

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// PairTest is the paired t-test of two pipelines of one family on one
// scenario, on the R² of the repetitions both completed.
type PairTest struct {
	Scenario string
	Family   string // GroupFunc of both pipelines
	// A and B are the compared pipelines, A < B; differences are R²(A) − R²(B),
	// so MeanDiff > 0 means A scored higher.
	A, B string
	TTest
	// PHolm is P adjusted by Holm's method over the tests of the same
	// (Scenario, Family) that have a p-value; NaN when P is NaN.
	PHolm float64
}

// PairwiseTests runs a paired t-test (PairedTTest, two-sided, confidence
// level conf) for every pair of pipelines in the same family and
// scenario, pairing their R² by Rep. Repetitions where either pipeline
// failed or is absent are dropped from that pair only. The paper tested
// each pair at 0.05 without a multiplicity correction; PHolm adds one
// within each (scenario, family) matrix. Tests on R² and on MSE give the
// same T and P, since R² = 1 − MSE/Var(Y) with Var(Y) fixed per scenario.
//
// Results are sorted by Scenario, Family, A, B. Errors are Validate's
// or wrap ErrConfLevel.
func PairwiseTests(recs []Record, family GroupFunc, conf float64) ([]PairTest, error) {
	if err := Validate(recs); err != nil {
		return nil, err
	}
	if !(conf > 0 && conf < 1) {
		return nil, fmt.Errorf("%w: got %v", ErrConfLevel, conf)
	}
	var out []PairTest
	for _, fam := range families(recs, family) {
		start := len(out)
		for i, a := range fam.cells {
			for _, b := range fam.cells[i+1:] {
				x, y := pairUp(a.recs, b.recs)
				t, _ := PairedTTest(x, y, conf) // lengths equal, values finite
				out = append(out, PairTest{Scenario: fam.scenario, Family: fam.name,
					A: a.pipeline, B: b.pipeline, TTest: t})
			}
		}
		adjustHolm(out[start:])
	}
	return out, nil
}

// family is the cells of one (scenario, family), sorted by pipeline.
type family struct {
	scenario, name string
	cells          []cell
}

// families groups the (scenario, pipeline) cells of recs by scenario and
// family, sorted by scenario, family name, pipeline.
func families(recs []Record, group GroupFunc) []family {
	var out []family
	idx := map[[2]string]int{}
	for _, c := range cells(recs) { // sorted by scenario, pipeline
		k := [2]string{c.scenario, group.of(c.pipeline)}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, family{scenario: k[0], name: k[1]})
		}
		out[i].cells = append(out[i].cells, c)
	}
	sortFamilies(out)
	return out
}

// pairUp returns the R² of the repetitions that both a and b (each in
// Rep order) completed, as aligned slices.
func pairUp(a, b []Record) (x, y []float64) {
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i].Rep < b[j].Rep:
			i++
		case a[i].Rep > b[j].Rep:
			j++
		default:
			if !a[i].Failed && !b[j].Failed {
				x, y = append(x, a[i].R2), append(y, b[j].R2)
			}
			i, j = i+1, j+1
		}
	}
	return x, y
}

// adjustHolm fills PHolm for one family of tests.
func adjustHolm(tests []PairTest) {
	p := make([]float64, len(tests))
	for i, t := range tests {
		p[i] = t.P
	}
	for i, h := range Holm(p) {
		tests[i].PHolm = h
		if math.IsNaN(tests[i].P) {
			tests[i].PHolm = math.NaN()
		}
	}
}

func sortFamilies(fs []family) {
	slices.SortStableFunc(fs, func(a, b family) int {
		return cmp.Or(strings.Compare(a.scenario, b.scenario), strings.Compare(a.name, b.name))
	})
}
