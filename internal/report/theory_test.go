package report

import (
	"math"
	"math/rand/v2"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// Hand values of C_MIA(1, s, L, p).
func TestCMIAHandValues(t *testing.T) {
	cases := []struct {
		name string
		s, p float64
		want float64
	}{
		// p = 0: no missing value, CART's criterion s(s−1)/4 + 1/12
		// (proof of Proposition 1), 1/48 at s = 1/2.
		{"p0 s1/2", 0.5, 0, 1.0 / 48},
		{"p0 s0.2", 0.2, 0, 0.2*(0.2-1)/4 + 1.0/12},
		{"p0 s0.9", 0.9, 0, 0.9*(0.9-1)/4 + 1.0/12},
		// s = 0, p = 0: empty left cell, one cell with Var(U) = 1/12.
		{"p0 s0", 0, 0, 1.0 / 12},
		// p = 1: every point is missing and sent left: Var(U) = 1/12 for any s.
		{"p1 s0.3", 0.3, 1, 1.0 / 12},
		{"p1 s0.8", 0.8, 1, 1.0 / 12},
		// s = 1/2, p = 1/2: 1/3 − (5/16)²/(3/4) − (1/2)(1/2)(9/16) = 1/16.
		{"p1/2 s1/2", 0.5, 0.5, 1.0 / 16},
		// s = 1: the right cell is empty, the left holds everything: 1/12.
		{"p0.3 s1", 1, 0.3, 1.0 / 12},
	}
	for _, c := range cases {
		if got := CMIA(c.s, c.p); !near(got, c.want, 1e-15) {
			t.Errorf("%s: CMIA(%v, %v) = %.17g, want %.17g", c.name, c.s, c.p, got, c.want)
		}
	}
	// At s = 1/2 the criterion simplifies by hand to
	// 1/3 − (3p+1)²/(32(1+p)) − 9(1−p)/32.
	for _, p := range []float64{0, 0.1, 0.25, 0.5, 0.75, 0.9, 1} {
		want := 1.0/3 - (3*p+1)*(3*p+1)/(32*(1+p)) - 9*(1-p)/32
		if got := RiskBlock(p); !near(got, want, 1e-15) {
			t.Errorf("RiskBlock(%v) = %.17g, want %.17g", p, got, want)
		}
	}
}

// The criterion is the population mean squared error after the split:
// a large seeded Monte Carlo sample must agree.
func TestCMIAMonteCarlo(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 200000
	for _, c := range []struct{ s, p float64 }{{0.5, 0.2}, {0.62, 0.5}, {0.3, 0.8}} {
		var sumL, sumR, sqL, sqR, nL, nR float64
		for range n {
			x := rng.Float64()
			left := rng.Float64() < c.p || x <= c.s // missing values go left
			if left {
				sumL, sqL, nL = sumL+x, sqL+x*x, nL+1
			} else {
				sumR, sqR, nR = sumR+x, sqR+x*x, nR+1
			}
		}
		mse := (sqL - sumL*sumL/nL + sqR - sumR*sumR/nR) / n
		// The criterion is ~0.03–0.08; the MC standard error is ~1e-4.
		if got := CMIA(c.s, c.p); !near(mse, got, 6e-4) {
			t.Errorf("s=%v p=%v: Monte Carlo %.5f, CMIA %.5f", c.s, c.p, mse, got)
		}
	}
}

func TestMIAThreshold(t *testing.T) {
	// p = 0: s* = 1/2, C = 1/48 (Proposition 1, no missing values).
	if s, c := MIAThreshold(0); !near(s, 0.5, 1e-12) || !near(c, 1.0/48, 1e-15) {
		t.Errorf("MIAThreshold(0) = %v, %v; want 1/2, 1/48", s, c)
	}
	// p = 1/2: setting dC/ds = 0 and multiplying by −8(1+s)² gives
	// 4s(1+s²)(1+s) − (1+s²)² + (1+s)³(1−3s) = 0, whose root in [0,1] is
	// the golden ratio conjugate (√5−1)/2 (s² = 1−s makes it vanish).
	golden := (math.Sqrt(5) - 1) / 2
	if s, _ := MIAThreshold(0.5); !near(s, golden, 1e-12) {
		t.Errorf("MIAThreshold(1/2) = %.12f, want (√5−1)/2 = %.12f", s, golden)
	}
	// p → 1: with ε = 1−p, C ≈ 1/12 − ε·g(s) with g'(s) = s(2−3s)/4, so
	// s* → 2/3.
	if s, _ := MIAThreshold(0.9999); !near(s, 2.0/3, 1e-4) {
		t.Errorf("MIAThreshold(0.9999) = %v, want → 2/3", s)
	}
	// p = 1: every s is optimal.
	if s, c := MIAThreshold(1); !math.IsNaN(s) || !near(c, 1.0/12, 1e-15) {
		t.Errorf("MIAThreshold(1) = %v, %v; want NaN, 1/12", s, c)
	}
	// s* increases with p (missing values sent left widen the left cell)
	// and is a minimum: no grid point does better.
	prev := 0.0
	for i := 0; i < 100; i++ {
		p := float64(i) / 100
		s, c := MIAThreshold(p)
		if s < prev-1e-9 {
			t.Errorf("s*(%v) = %v < s*(previous) = %v", p, s, prev)
		}
		prev = s
		for j := 0; j <= 400; j++ {
			if v := CMIA(float64(j)/400, p); v < c-1e-15 {
				t.Fatalf("p=%v: CMIA(%v) = %v below the returned minimum %v", p, float64(j)/400, v, c)
			}
		}
	}
}

func TestRisks(t *testing.T) {
	// Probabilistic split, by hand: 1/48 at p = 0, Var(U) = 1/12 at p = 1,
	// 13/192 at p = 1/2.
	for _, c := range []struct{ p, want float64 }{{0, 1.0 / 48}, {1, 1.0 / 12}, {0.5, 13.0 / 192}} {
		if got := RiskProb(c.p); !near(got, c.want, 1e-15) {
			t.Errorf("RiskProb(%v) = %v, want %v", c.p, got, c.want)
		}
	}
	// Surrogate with η = 1: X2 ≡ 0 sends every missing X1 left, and the
	// left leaf's mean moves with them (the paper's proof keeps it at 1/4).
	// With η = 0 the surrogate is X1 itself: R = 1/48.
	for _, p := range []float64{0, 0.3, 1} {
		// Direct leaf moments with q = p (η = 1): left leaf (1−q)/2 of
		// U(0,½) plus q of U(0,1), right leaf (1−q)/2 of U(½,1).
		if got, want := RiskSurrogate(p, 1), (1+7*p)/24-(1+3*p)*(1+3*p)/(32*(1+p))+(1-p)/96; !near(got, want, 1e-15) {
			t.Errorf("RiskSurrogate(%v, 1) = %v, want %v", p, got, want)
		}
		if p > 0 && p < 1 && !(RiskSurrogate(p, 1) < RiskSurrogatePrinted(p, 1)) {
			t.Errorf("RiskSurrogate(%v, 1) = %v not below the printed %v", p, RiskSurrogate(p, 1), RiskSurrogatePrinted(p, 1))
		}
		if got := RiskSurrogate(p, 0); !near(got, 1.0/48, 1e-15) {
			t.Errorf("RiskSurrogate(%v, 0) = %v, want 1/48", p, got)
		}
	}
	// MIA splits on X1 while p ≤ η, on X2 (missing share η) beyond.
	_, c25 := MIAThreshold(0.25)
	_, c10 := MIAThreshold(0.1)
	if got := RiskMIA(0.9, 0.25); got != c25 {
		t.Errorf("RiskMIA(0.9, 0.25) = %v, want min C(η=0.25) = %v", got, c25)
	}
	if got := RiskMIA(0.1, 0.25); got != c10 {
		t.Errorf("RiskMIA(0.1, 0.25) = %v, want min C(p=0.1) = %v", got, c10)
	}
	// Proposition 2's ordering: R_MIA ≤ R_block ≤ R_prob for every p, η.
	for i := 0; i <= 20; i++ {
		p := float64(i) / 20
		for _, eta := range []float64{0, 0.25, 0.5, 0.75, 1} {
			m, b, pr := RiskMIA(p, eta), RiskBlock(p), RiskProb(p)
			if m > b+1e-15 || b > pr+1e-15 {
				t.Errorf("p=%v η=%v: R_MIA %v, R_block %v, R_prob %v not ordered", p, eta, m, b, pr)
			}
		}
	}
}

// dCMIA is the derivative of CMIA over (1−p): compare with a central
// finite difference.
func TestDCMIA(t *testing.T) {
	const h = 1e-6
	for _, p := range []float64{0, 0.2, 0.5, 0.9} {
		for _, s := range []float64{0.1, 0.4, 0.6, 0.95} {
			fd := (CMIA(s+h, p) - CMIA(s-h, p)) / (2 * h) / (1 - p)
			if got := dCMIA(s, p); !near(got, fd, 1e-7) {
				t.Errorf("dCMIA(%v, %v) = %v, finite difference %v", s, p, got, fd)
			}
		}
	}
}
