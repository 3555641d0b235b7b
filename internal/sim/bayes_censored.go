package sim

import (
	"math"
	"sync"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/stat/distuv"
)

// censoredNodes is the number of Gauss–Hermite nodes of the integral over
// the common factor of the censored coordinates (see truncatedMoments).
// The integrand is smooth and, after recentring on its mode, close to
// Gaussian; the tests check 48 nodes against a 4000-node composite
// Gauss–Legendre rule to 1e-9 relative.
const censoredNodes = 48

// hermiteNodes returns the censoredNodes-point Gauss–Hermite rule for
// ∫ g(x)·e^{−x²} dx (gonum's quad.Hermite). Shared; do not modify.
var hermiteNodes = sync.OnceValues(func() ([]float64, []float64) {
	x, w := make([]float64, censoredNodes), make([]float64, censoredNodes)
	quad.Hermite{}.FixedLocations(x, w, math.Inf(-1), math.Inf(1))
	return x, w
})

// hasCensoredBayes reports whether BayesPredict covers s under censoring
// MNAR: the quadratic and linear models with ρ ≥ 0 (a non-negative
// conditional covariance between the censored coordinates, which is what
// lets them share one common factor; see bayesCensored).
func hasCensoredBayes(s Scenario) bool {
	return (s.Model == Quadratic || s.Model == Linear) && s.Rho >= 0
}

// CensorThreshold returns the population censoring threshold of a column
// at missing rate p: the (1−p) quantile 1 + Φ⁻¹(1−p) of the N(1, 1)
// marginal shared by every Gaussian covariate (Σ has unit diagonal);
// +Inf at p = 0. A data set censors at its empirical (1−p) quantile
// instead, which converges to this value at rate n^{−1/2}.
func CensorThreshold(p float64) float64 {
	if p <= 0 {
		return math.Inf(1)
	}
	return 1 + distuv.UnitNormal.Quantile(1-p)
}

// bayesCensored returns E[f(X) | x_o, M = m] under population censoring
// at threshold c for the quadratic and linear models. Every missing entry
// is then known to exceed c, so the missing block has the law of
// N(μ_{m|o}, Σ_{m|o}) (equiCond) truncated to the orthant {X_j > c}.
// For the equicorrelated Σ with ρ ≥ 0, Σ_{m|o} = (1−ρ)·I + κ·11ᵀ with
// κ = ρ(1−ρ)/q ≥ 0, so X_j = μ + √κ·Z + √(1−ρ)·W_j with Z, W_j iid
// N(0, 1): given Z = z the truncated coordinates are independent
// univariate truncated normals, and Z has the posterior density
// ∝ φ(z)·Φ̄(α(z))^r, α(z) = (c − μ − √κ·z)/√(1−ρ), for r missing entries.
// With λ = φ(α)/Φ̄(α) (the inverse Mills ratio) and a = μ + √κ·z, s = √(1−ρ):
//
//	E[X_j | z]  = a + s·λ,
//	E[X_j² | z] = a² + 2·a·s·λ + s²·(1 + α·λ),
//
// and the Z-integral is a Gauss–Hermite sum with log-space weights, so the
// result is exact up to the quadrature (< 1e-9, see censoredNodes).
func (l *law) bayesCensored(x []float64) float64 {
	k, r, sum := 0, 0, 0.0
	for _, v := range x {
		if math.IsNaN(v) {
			r++
			continue
		}
		k++
		sum += v - 1
	}
	if r == 0 || math.IsInf(l.cut, -1) {
		return l.bayesGaussian(x)
	}
	x0, w := hermiteNodes()
	e1, e2 := truncatedMoments(equiConditional(l.s.Rho, k, sum), 1-l.s.Rho, l.cut, r, x0, w)
	y := 0.0
	switch l.s.Model {
	case Quadratic:
		for j := 0; j < 3; j++ {
			if math.IsNaN(x[j]) {
				y += e2
			} else {
				y += x[j] * x[j]
			}
		}
	case Linear:
		for j, b := range linearBeta {
			if math.IsNaN(x[j]) {
				y += b * e1
			} else {
				y += b * x[j]
			}
		}
	}
	return y
}

// truncatedMoments returns E[X_j] and E[X_j²] of one of r exchangeable
// coordinates X_j = c.mean + √c.cv·Z + √v·W_j, conditioned on all r
// exceeding cut (see bayesCensored; v = 1−ρ is the idiosyncratic
// variance). The posterior of Z, ∝ exp(g(z)) with
// g(z) = −z²/2 + r·log Φ̄(α(z)), is log-concave (log Φ̄ is concave and α
// is affine in z) but can sit far out in the tail when many correlated
// entries are censored, so the rule (x, w) — Gauss–Hermite for the weight
// e^{−x²} — is recentred on the mode ẑ of g and scaled by
// σ̂ = (−g″(ẑ))^{−1/2}: z = ẑ + √2·σ̂·x (adaptive Gauss–Hermite).
func truncatedMoments(c equiCond, v, cut float64, r int, x, w []float64) (e1, e2 float64) {
	s, b := math.Sqrt(v), math.Sqrt(max(c.cv, 0))
	post := censoredPosterior{mean: c.mean, s: s, b: b, cut: cut, r: float64(r)}
	mode, scale := post.laplace()
	// Log-space weights: Φ̄(α)^r underflows for rows far below the cut.
	// One tail evaluation per node gives both the weight and λ.
	top := math.Inf(-1)
	var bufW, bufL [censoredNodes]float64
	logw, lams := bufW[:0], bufL[:0]
	for i, xi := range x {
		z := mode + math.Sqrt2*scale*xi
		logTail, lam := normTail(post.alpha(z))
		lw := math.Log(w[i]) + xi*xi - z*z/2 + post.r*logTail
		logw, lams = append(logw, lw), append(lams, lam)
		top = max(top, lw)
	}
	var tot float64
	for i, xi := range x {
		wt := math.Exp(logw[i] - top)
		if wt < 1e-300 {
			continue
		}
		a := c.mean + b*(mode+math.Sqrt2*scale*xi)
		alpha, lam := (cut-a)/s, lams[i]
		tot += wt
		e1 += wt * (a + s*lam)
		e2 += wt * (a*a + 2*a*s*lam + v*(1+alpha*lam))
	}
	return e1 / tot, e2 / tot
}

// censoredPosterior is the unnormalised log posterior
// g(z) = −z²/2 + r·log Φ̄(α(z)) of the common factor Z given that r
// coordinates mean + b·Z + s·W_j all exceed cut.
type censoredPosterior struct{ mean, s, b, cut, r float64 }

func (p censoredPosterior) alpha(z float64) float64 { return (p.cut - p.mean - p.b*z) / p.s }

// laplace returns the mode of g and (−g″)^{−1/2} there, by Newton's
// method from 0 with g′(z) = −z + r·(b/s)·λ(α) and
// g″(z) = −1 − r·(b/s)²·λ(λ − α) ∈ (−1 − r(b/s)², −1): g is strictly
// concave, so Newton converges; 50 steps bound a pathological row.
func (p censoredPosterior) laplace() (mode, scale float64) {
	k := p.b / p.s
	z, h := 0.0, -1.0
	for range 50 {
		a := p.alpha(z)
		_, lam := normTail(a)
		g1 := -z + p.r*k*lam
		h = -1 - p.r*k*k*lam*(lam-a)
		step := g1 / h
		z -= step
		if math.Abs(step) < 1e-12*(1+math.Abs(z)) {
			break
		}
	}
	return z, 1 / math.Sqrt(-h)
}

// normTail returns log Φ̄(α) = log P(W > α), W ~ N(0, 1), and the
// inverse Mills ratio λ = φ(α)/Φ̄(α) (the mean of W truncated to (α, ∞);
// → 0 as α → −∞, → α as α → +∞), accurate in both tails: from one erfc
// while it is representable, then from the continued fraction of the
// Mills ratio.
func normTail(alpha float64) (logTail, lam float64) {
	if alpha < 35 {
		tail := 0.5 * math.Erfc(alpha/math.Sqrt2)
		return math.Log(tail), math.Exp(-alpha*alpha/2) / math.Sqrt(2*math.Pi) / tail
	}
	r := millsCF(alpha)
	return -alpha*alpha/2 - 0.5*math.Log(2*math.Pi) + math.Log(r), 1 / r
}

// millsCF returns the Mills ratio Φ̄(α)/φ(α) for α ≥ 35 by Laplace's
// continued fraction 1/(α + 1/(α + 2/(α + 3/(α + …)))), evaluated bottom
// up; 40 terms are exact to rounding this far out.
func millsCF(alpha float64) float64 {
	f := alpha
	for k := 40; k >= 1; k-- {
		f = alpha + float64(k)/f
	}
	return 1 / f
}
