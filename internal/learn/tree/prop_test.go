package tree

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// cMIA is the paper's C_MIA(1, s, L, p) (Proposition 1): the population
// least-squares risk of the split {X1 ≤ s or NA} vs {X1 > s} when
// Y = X1 ~ U(0,1) and X1 is MCAR with probability p.
func cMIA(s, p float64) float64 {
	a := p/2 + (1-p)*s*s/2
	return 1.0/3 - a*a/(p+(1-p)*s) - (1-p)*(1-s)*(1+s)*(1+s)/4
}

// argminMIA returns s*_L(p) = argmin_s C_MIA(1, s, L, p) and the minimum,
// by a grid search refined by golden-section search (C_MIA is unimodal
// in s on (0, 1)).
func argminMIA(p float64) (float64, float64) {
	best, bs := math.Inf(1), 0.0
	for i := 1; i < 1000; i++ {
		s := float64(i) / 1000
		if c := cMIA(s, p); c < best {
			best, bs = c, s
		}
	}
	lo, hi := bs-1e-3, bs+1e-3
	g := (math.Sqrt(5) - 1) / 2
	for range 100 {
		a, b := hi-g*(hi-lo), lo+g*(hi-lo)
		if cMIA(a, p) < cMIA(b, p) {
			hi = b
		} else {
			lo = a
		}
	}
	s := (lo + hi) / 2
	return s, cMIA(s, p)
}

// TestCMIAClosedForm checks the closed form against facts stated in the
// paper: C_MIA(1, 1/2, L, 0) = 1/48 (the CART optimum without NA),
// C_MIA(1, s, L, 1) = 1/12 = Var(X1) for every s, and the paper's proof
// identity C(1, s) = s(s−1)/4 + 1/12 at p = 0.
func TestCMIAClosedForm(t *testing.T) {
	if got := cMIA(0.5, 0); math.Abs(got-1.0/48) > 1e-15 {
		t.Errorf("C_MIA(1/2, p=0) = %v, want 1/48", got)
	}
	for _, s := range []float64{0.1, 0.5, 0.9} {
		if got := cMIA(s, 1); math.Abs(got-1.0/12) > 1e-15 {
			t.Errorf("C_MIA(%v, p=1) = %v, want 1/12", s, got)
		}
		if got, want := cMIA(s, 0), s*(s-1)/4+1.0/12; math.Abs(got-want) > 1e-15 {
			t.Errorf("C_MIA(%v, p=0) = %v, want %v", s, got, want)
		}
	}
	if s, _ := argminMIA(0); math.Abs(s-0.5) > 1e-6 {
		t.Errorf("argmin at p=0 = %v, want 1/2", s)
	}
}

// prop1Data draws n rows of Proposition 1's model: Y = X1 ~ U(0,1), X1
// MCAR with probability p.
func prop1Data(n int, p float64, rng *rand.Rand) (*mat.Dense, []float64) {
	X := mat.NewDense(n, 1, nil)
	y := make([]float64, n)
	for i := range n {
		x := rng.Float64()
		y[i] = x
		if rng.Float64() < p {
			x = math.NaN()
		}
		X.Set(i, 0, x)
	}
	return X, y
}

func stump(s Strategy) Params {
	p := PaperDefaults()
	p.Strategy, p.MaxDepth = s, 1
	return p
}

// TestProposition1 fits stumps on 10⁵ rows of Proposition 1's model and
// checks the MIA threshold against the numerical argmin of the paper's
// closed form C_MIA(1, s, L, p) (1 − s* when the NA went right), the
// training risk against the minimum of C_MIA, and that available-case
// CART (block, surrogate) keeps splitting at 1/2 whatever p.
func TestProposition1(t *testing.T) {
	const n = 100_000
	for k, p := range []float64{0, 0.2, 0.4, 0.6, 0.8} {
		t.Run(fmt.Sprintf("p=%v", p), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(11, uint64(k)))
			X, y := prop1Data(n, p, rng)
			sL, cmin := argminMIA(p)
			tr, err := Fit(context.Background(), X, y, stump(MIA), rng)
			if err != nil {
				t.Fatal(err)
			}
			nodes := tr.Nodes()
			root := nodes[0]
			want := sL
			if p > 0 && !root.MissingLeft {
				want = 1 - sL
			}
			if root.Feature != 0 || math.Abs(root.Threshold-want) > 0.01 {
				t.Errorf("MIA split x%d < %.4f (NA left %v), want x1 < %.4f", root.Feature+1, root.Threshold, root.MissingLeft, want)
			}
			risk := (nodes[root.Left].Deviance + nodes[root.Right].Deviance) / n
			if math.Abs(risk-cmin) > 0.02*cmin {
				t.Errorf("MIA training risk %.5f, min C_MIA = %.5f", risk, cmin)
			}
			for _, s := range []Strategy{Block, Surrogate} {
				tr, err := Fit(context.Background(), X, y, stump(s), rng)
				if err != nil {
					t.Fatal(err)
				}
				if r := tr.Root(); r.Feature != 0 || math.Abs(r.Threshold-0.5) > 0.01 {
					t.Errorf("%v split x%d < %.4f, want x1 < 0.5", s, r.Feature+1, r.Threshold)
				}
			}
		})
	}
}

// TestStumpVariableSelection reproduces the appendix's variable-selection
// finding for CART stumps (Y = 0.25·X1 + ε, X1, X2 iid N(0,1), NA on X1
// only, n = 50): without NA the informative X1 is chosen most of the time,
// with 75% NA on X1 the uninformative X2 is chosen more often than X1,
// because the available-case gain of X1 is computed on a quarter of the
// rows. 500 stumps per setting; the bounds are about 5 standard errors
// from the observed frequencies (0.72 and 0.39).
func TestStumpVariableSelection(t *testing.T) {
	rng := newRNG(21)
	const n, reps = 50, 500
	freqX1 := func(p float64) float64 {
		hits := 0
		X := mat.NewDense(n, 2, nil)
		y := make([]float64, n)
		for range reps {
			for i := range n {
				x1, x2 := rng.NormFloat64(), rng.NormFloat64()
				y[i] = 0.25*x1 + rng.NormFloat64()
				if rng.Float64() < p {
					x1 = math.NaN()
				}
				X.SetRow(i, []float64{x1, x2})
			}
			tr, err := Fit(context.Background(), X, y, Params{Strategy: Surrogate, MinSplit: 2, MinBucket: 1, MaxDepth: 1}, rng)
			if err != nil {
				t.Fatal(err)
			}
			if tr.Root().Feature == 0 {
				hits++
			}
		}
		return float64(hits) / reps
	}
	if f := freqX1(0); f < 0.6 {
		t.Errorf("no NA: X1 chosen in %.2f of stumps, want most", f)
	}
	if f := freqX1(0.75); f > 0.5 {
		t.Errorf("75%% NA on X1: X1 chosen in %.2f of stumps, want under half", f)
	}
}
