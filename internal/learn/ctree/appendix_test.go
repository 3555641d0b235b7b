package ctree

import (
	"cmp"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// stumpData draws the paper's selection model (Appendix "Variable
// selection properties of the tree methods with missing values"): X1, X2
// iid N(0, 1), Y = 0.25·X1 + ε, ε ~ N(0, 1), with X1 MCAR at rate q.
func stumpData(n int, q float64, rng *rand.Rand) (*mat.Dense, []float64) {
	X := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for i := range n {
		x1, x2 := rng.NormFloat64(), rng.NormFloat64()
		y[i] = 0.25*x1 + rng.NormFloat64()
		if rng.Float64() < q {
			x1 = math.NaN()
		}
		X.Set(i, 0, x1)
		X.Set(i, 1, x2)
	}
	return X, y
}

// TestAppendixStumpSelection reproduces the appendix experiment at n = 50
// with 75% MCAR on X1 only: conditional-tree stumps (mincriterion 0,
// minsplit 2, minbucket 1, depth 1, so the stump splits on the variable
// with the smallest adjusted p-value) select the informative X1 more often
// than X2, while CART stumps (cartStump, rpart's available-case
// criterion) select the noise X2 more often than X1, as the paper
// reports. Over 2000 seeded repetitions every margin is several binomial
// standard errors (≈ 0.011) wide.
func TestAppendixStumpSelection(t *testing.T) {
	const reps, n, q = 2000, 50, 0.75
	rng := rand.New(rand.NewPCG(2019, 2))
	cp := Params{TestType: Bonferroni, MinSplit: 2, MinBucket: 1, MaxDepth: 1, SplitTry: 2}
	var ctX1, ctX2, cartX1, cartX2 int
	for range reps {
		X, y := stumpData(n, q, rng)
		ct, err := Fit(context.Background(), X, y, cp, rng)
		if err != nil {
			t.Fatal(err)
		}
		switch ct.Root().Feature {
		case 0:
			ctX1++
		case 1:
			ctX2++
		}
		switch cartStump(X, y) {
		case 0:
			cartX1++
		case 1:
			cartX2++
		}
	}
	fct, fcart := float64(ctX1)/reps, float64(cartX1)/reps
	t.Logf("ctree stumps: X1 %d, X2 %d; CART stumps: X1 %d, X2 %d (of %d)", ctX1, ctX2, cartX1, cartX2, reps)
	if ctX1+ctX2 < reps*95/100 {
		t.Errorf("ctree split only %d of %d stumps", ctX1+ctX2, reps)
	}
	if fct < 0.55 || ctX1 <= ctX2 {
		t.Errorf("ctree selects X1 in %.3f of stumps (X2 %d), want clearly above one half", fct, ctX2)
	}
	if fcart > fct-0.1 || cartX1 >= cartX2 {
		t.Errorf("CART selects X1 in %.3f of stumps (X2 %d), ctree %.3f: want CART below one half and well below ctree",
			fcart, cartX2, fct)
	}
}

// cartStump returns the variable of rpart's root split with minbucket 1:
// for each variable, the largest drop in the sum of squares of y over the
// rows observing it, from splitting them at one of their values; the
// largest drop wins. (rpart scores a variable on its observed rows only,
// which is what penalises the 75%-missing X1.)
func cartStump(X *mat.Dense, y []float64) int {
	n, d := X.Dims()
	best, arg := 0.0, -1
	for j := range d {
		var xs, ys []float64
		for i := range n {
			if v := X.At(i, j); !math.IsNaN(v) {
				xs, ys = append(xs, v), append(ys, y[i])
			}
		}
		if gain := bestSSEDrop(xs, ys); gain > best {
			best, arg = gain, j
		}
	}
	return arg
}

// bestSSEDrop is the largest Σ(y − ȳ)² − SSE_L − SSE_R over cuts between
// distinct sorted values of x.
func bestSSEDrop(x, y []float64) float64 {
	idx := make([]int, len(x))
	var tot float64
	for i := range idx {
		idx[i] = i
		tot += y[i]
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(x[a], x[b]) })
	m := float64(len(x))
	var sl, best float64
	for k := 0; k+1 < len(idx); k++ {
		sl += y[idx[k]]
		if x[idx[k]] == x[idx[k+1]] {
			continue
		}
		nl := float64(k + 1)
		// SS drop of a two-group split: nL·nR/n·(ȳL − ȳR)².
		dl := sl/nl - (tot-sl)/(m-nl)
		best = max(best, nl*(m-nl)/m*dl*dl)
	}
	return best
}
