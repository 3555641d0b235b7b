package report

import "math"

// Closed forms of the paper's Appendix "Theoretical comparison of CART
// versus MIA" (Propositions 1 and 2), model Y = X1 ~ U(0,1) with X1
// missing completely at random with probability p, and (Proposition 2)
// X2 = X1·1{W=1}, P(W=0) = η. Every formula of that appendix lives in
// this file, as printed in the propositions, so a correction found by
// simulation (internal/learn/tree checks them) is made here only.
//
// Known inconsistency in the paper: the proof of Proposition 2 writes
// R_block = −11/48 + (3p+2)/(8(2p+1)), which agrees with the statement
// C_MIA(1, 1/2, L, p) at p = 0 (1/48) but not elsewhere (it gives −1/48
// at p = 1 where C_MIA(1, 1/2, L, 1) = 1/12). RiskBlock follows the
// statement.

// CMIA is C_MIA(1, s, L, p) of Proposition 1: the population MIA
// splitting criterion (mean squared error after the split) at threshold s
// on X1 when the missing values are sent left,
//
//	1/3 − (p/2 + (1−p)s²/2)² / (p + (1−p)s) − (1−p)(1−s)((1+s)/2)².
//
// The middle term is taken as 0 when its denominator is 0 (s = 0, p = 0:
// the left cell is empty). Sending missing values right gives
// C_MIA(1, 1−s, L, p) by symmetry. s and p are in [0, 1].
func CMIA(s, p float64) float64 {
	left := 0.0
	if den := p + (1-p)*s; den > 0 {
		num := p/2 + (1-p)*s*s/2
		left = num * num / den
	}
	h := (1 + s) / 2
	return 1.0/3 - left - (1-p)*(1-s)*h*h
}

// MIAThreshold returns s*_MIA,L(p) = argmin over s ∈ [0, 1] of CMIA(s, p)
// and the minimum value: a grid of 1001 points brackets the minimum,
// then bisection on the analytic derivative dCMIA/ds refines it to
// machine precision (a search on the values alone cannot do better than
// ~1e-8, the criterion being flat at its minimum).
// s*_MIA,R(p) = 1 − s*_MIA,L(p). At p ≥ 1 the criterion is the constant
// 1/12 and the threshold is NaN (every s is optimal; s* → 2/3 as p → 1).
func MIAThreshold(p float64) (s, c float64) {
	if p >= 1 {
		return math.NaN(), CMIA(0.5, 1)
	}
	const n = 1000
	best, bc := 0, math.Inf(1)
	for i := 0; i <= n; i++ {
		if v := CMIA(float64(i)/n, p); v < bc {
			best, bc = i, v
		}
	}
	lo, hi := float64(max(best-1, 0))/n, float64(min(best+1, n))/n
	if !(dCMIA(lo, p) < 0 && dCMIA(hi, p) > 0) {
		return float64(best) / n, bc // minimum at an end of [0, 1]
	}
	for range 200 {
		mid := (lo + hi) / 2
		if mid == lo || mid == hi {
			break
		}
		if dCMIA(mid, p) < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	s = (lo + hi) / 2
	return s, math.Min(CMIA(s, p), bc)
}

// dCMIA is dCMIA/ds divided by (1−p) > 0: with A = p/2 + (1−p)s²/2 and
// B = p + (1−p)s, −A(2sB − A)/B² − (1+s)(1−3s)/4.
func dCMIA(s, p float64) float64 {
	a := p/2 + (1-p)*s*s/2
	b := p + (1-p)*s
	return -a*(2*s*b-a)/(b*b) - (1+s)*(1-3*s)/4
}

// RiskMIA is R(f*_MIA) of Proposition 2: min_s C_MIA(1, s, L, p) when
// p ≤ η (MIA splits on X1) and min_s C_MIA(1, s, L, η) when p > η (it
// splits on X2, whose "missing" share is η).
func RiskMIA(p, eta float64) float64 {
	if p > eta {
		p = eta
	}
	_, c := MIAThreshold(p)
	return c
}

// RiskBlock is R(f*_block) = C_MIA(1, 1/2, L, p) of Proposition 2: CART's
// split at 1/2 with every missing value propagated to one side.
func RiskBlock(p float64) float64 { return CMIA(0.5, p) }

// RiskProb is R(f*_prob) = −p²/16 + p/8 + 1/48 of Proposition 2: CART's
// split at 1/2 with missing values sent left or right at random.
func RiskProb(p float64) float64 { return -p*p/16 + p/8 + 1.0/48 }

// RiskSurrogate is R(f*_surr) of Proposition 2, CART's split at 1/2 with
// missing values routed by the surrogate split X2 ≤ 1/2, CORRECTED: with
// q = pη,
//
//	R_surr = 1/48 + 3q/48 + q(1−q)/(16(1+q)).
//
// The paper prints 1/48 + 6ηp/48: its proof gives the left leaf the mean
// 1/4, but that leaf also receives every row missing X1 with W = 0
// (X2 = 0), whose Y is uniform on (0, 1). The left leaf holds mass
// (1−q)/2 of U(0, ½) and q of U(0, 1): mean (1+3q)/(4(1+q)), second moment
// (1+7q)/(12(1+q)); the right leaf is U(½, 1) with mass (1−q)/2. The
// simulation in internal/learn/tree confirms this value and rejects the
// printed one (η = 0.75, p = 0.7: 0.0637 against 0.0865). The two agree
// at q = 0 and q = 1.
func RiskSurrogate(p, eta float64) float64 {
	q := p * eta
	return 1.0/48 + 3*q/48 + q*(1-q)/(16*(1+q))
}

// RiskSurrogatePrinted is the paper's printed (incorrect) surrogate risk
// 1/48 + 6ηp/48, kept so the figure can show the discrepancy.
func RiskSurrogatePrinted(p, eta float64) float64 { return 1.0/48 + 6*eta*p/48 }
