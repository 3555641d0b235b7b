package stats

import (
	"math"

	"gonum.org/v1/gonum/mathext"
)

// maxSeriesDF bounds the integer degrees of freedom for which the exact
// finite series of the central t probability is used (its cost is ν/2
// multiply-adds); larger or fractional ν use the incomplete beta.
const maxSeriesDF = 20000

// StudentTwoSidedP returns P(|T| ≥ |t|) for T ~ Student t with df > 0
// (finite) degrees of freedom, R's 2·pt(−|t|, df): 1 at t = 0, 0 at
// t = ±Inf, NaN for NaN t or df ≤ 0.
//
// When the answer is ≥ 0.01 it is 1 − C with C = P(|T| < |t|) from the
// exact finite series of Abramowitz & Stegun 26.7.3–4 (integer df ≤
// 20000) or the incomplete beta I_{t²/(ν+t²)}(½, ν/2); smaller tails are
// I_{ν/(ν+t²)}(ν/2, ½) directly (gonum mathext). Measured relative error
// against R 4.2: ≲5e-14 for ν ≤ 100, ≲3e-13 for ν ≤ 1000, ≲1.2e-12 for
// ν ≤ 5000 (the incomplete beta's lgamma terms limit large ν).
func StudentTwoSidedP(t, df float64) float64 {
	if math.IsNaN(t) || !(df > 0) || math.IsInf(df, 0) {
		return math.NaN()
	}
	if math.IsInf(t, 0) {
		return 0
	}
	t = math.Abs(t)
	t2 := t * t
	if c, ok := studentCentral(t, df); ok && c <= 0.99 {
		return 1 - c
	}
	if t2 < df {
		if c := mathext.RegIncBeta(0.5, df/2, t2/(df+t2)); c <= 0.99 {
			return 1 - c
		}
	}
	return mathext.RegIncBeta(df/2, 0.5, df/(df+t2))
}

// StudentQuantile returns the p-quantile of Student's t with df > 0
// (finite) degrees of freedom, R's qt(p, df); ±Inf at p = 1 and 0, NaN
// for p outside [0, 1] or bad df. It starts from gonum's inverse
// incomplete beta and takes Newton steps on the central probability
// (exact series for integer df ≤ 20000) when 2(1−p) ≥ 0.01, on the tail
// probability of StudentTwoSidedP otherwise. For 0.5 < p ≤ 0.995 this is
// within ≲3e-14 (relative) of R for ν ≤ 1000 and ≲2e-13 for ν ≤ 5000, where gonum's
// inverse alone is off by up to ~1e-12; further out it inherits
// StudentTwoSidedP's ≲1e-12 relative tail error.
func StudentQuantile(p, df float64) float64 {
	switch {
	case !(p >= 0 && p <= 1) || !(df > 0) || math.IsInf(df, 0):
		return math.NaN()
	case p == 0.5:
		return 0
	case p < 0.5:
		return -StudentQuantile(1-p, df)
	case p == 1:
		return math.Inf(1)
	}
	alpha := 2 * (1 - p) // two-sided tail probability of the answer
	x := mathext.InvRegIncBeta(df/2, 0.5, alpha)
	t := math.Sqrt(df * (1 - x) / x)
	central := 2*p - 1
	for range 8 {
		// Both residuals increase with t at rate 2·pdf(t).
		var resid float64
		if c, ok := studentCentral(t, df); ok && alpha >= 0.01 {
			resid = c - central
		} else {
			resid = alpha - StudentTwoSidedP(t, df)
		}
		step := resid / (2 * studentPDF(t, df))
		if math.IsNaN(step) || math.IsInf(step, 0) {
			break
		}
		t -= step
		if math.Abs(step) <= 1e-16*t {
			break
		}
	}
	return t
}

// studentCentral returns P(|T| < t) for t ≥ 0 by the finite series of
// Abramowitz & Stegun 26.7.3 (odd ν) and 26.7.4 (even ν), with
// θ = atan(t/√ν); ok is false unless df is an integer in [1, maxSeriesDF].
// All terms are positive, so the sum is accurate to a few ulps times √ν
// in absolute terms.
func studentCentral(t, df float64) (c float64, ok bool) {
	if df != math.Trunc(df) || df < 1 || df > maxSeriesDF {
		return 0, false
	}
	nu := int(df)
	c2 := df / (df + t*t) // cos²θ
	if nu%2 == 0 {
		u, s := 1.0, 1.0
		for k := 1; k <= nu/2-1; k++ {
			u *= c2 * float64(2*k-1) / float64(2*k)
			s += u
		}
		return t / math.Sqrt(df+t*t) * s, true // sinθ · Σ
	}
	theta := math.Atan(t / math.Sqrt(df))
	if nu == 1 {
		return 2 / math.Pi * theta, true
	}
	v, s := 1.0, 1.0
	for k := 1; k <= (nu-3)/2; k++ {
		v *= c2 * float64(2*k) / float64(2*k+1)
		s += v
	}
	return 2 / math.Pi * (theta + t*math.Sqrt(df)/(df+t*t)*s), true // θ + sinθcosθ·Σ
}

// studentPDF is the density of Student's t with df degrees of freedom.
func studentPDF(t, df float64) float64 {
	lg1, _ := math.Lgamma((df + 1) / 2)
	lg2, _ := math.Lgamma(df / 2)
	return math.Exp(lg1 - lg2 - 0.5*math.Log(df*math.Pi) - (df+1)/2*math.Log1p(t*t/df))
}
