package impute

import (
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Bayesian ridge defaults: scikit-learn 1.2.1's BayesianRidge() (n_iter,
// tol, and the four Gamma hyper-prior parameters alpha_1, alpha_2,
// lambda_1, lambda_2).
const (
	ridgeMaxIter = 300
	ridgeTol     = 1e-3
	ridgePrior   = 1e-6
	// ridgeWellConditioned is the smallest eigenvalue ratio of the
	// centred Gram matrix at which its eigenvalues are used as the
	// squared singular values; below it they are recomputed by an SVD
	// of the centred design (see fitRidge).
	ridgeWellConditioned = 1e-6
)

// ridgeModel is a fitted Bayesian ridge regression: ŷ = Intercept + x·Coef.
type ridgeModel struct {
	Coef      []float64
	Intercept float64
	// Alpha and Lambda are the estimated noise and weight precisions;
	// Iter is the number of evidence updates performed.
	Alpha, Lambda float64
	Iter          int
}

// predict returns the model's prediction for the predictors x.
func (m *ridgeModel) predict(x []float64) float64 {
	return floats.Dot(x, m.Coef) + m.Intercept
}

// ridgeDesign is a centred design for fitRidge: Cols[a] is predictor a
// minus its mean Mean[a] over the n rows, Y the centred target and YMean
// its mean.
type ridgeDesign struct {
	Cols  [][]float64
	Mean  []float64
	Y     []float64
	YMean float64
}

// fitRidge fits scikit-learn 1.2.1's BayesianRidge() with its defaults
// (fit_intercept, no sample weights) on a centred design. It runs the
// same evidence-maximisation iterations (MacKay's updates as in
// Tipping's Appendix A): from α = 1/(Var(y) + ε), λ = 1, each iteration
// sets the posterior mean w = (XᵀX + (λ/α)·I)⁻¹Xᵀy and the residual sum
// of squares r, then γ = Σ α s²/(λ + α s²) over the squared singular
// values s² of X, λ = (γ + 2λ₁)/(‖w‖² + 2λ₂), α = (n − γ + 2α₁)/(r + 2α₂),
// stopping after at most 300 iterations or when, from the second
// iteration on, Σ|Δw| < 10⁻³; w is then recomputed from the last α, λ.
//
// It differs from scikit-learn only in how it gets s² and the singular
// vectors: from the eigendecomposition of the p × p Gram matrix XᵀX
// (about five times cheaper than an SVD of X in pure Go) when n > p and
// that matrix's eigenvalues span less than 1/ridgeWellConditioned, and
// otherwise from a thin SVD of X as scikit-learn, so that near-zero
// singular values, which the Gram matrix only knows to ε·‖XᵀX‖, keep
// their accuracy (a constant predictor, n ≤ p). Both give the same
// posterior mean to rounding: the fixtures agree to 1e-13.
func fitRidge(des *ridgeDesign) *ridgeModel {
	n, p := len(des.Y), len(des.Cols)
	sp := ridgeSpectrum(des)
	m := &ridgeModel{Alpha: 1 / (variance(des.Y) + eps64), Lambda: 1}
	coef, old := make([]float64, p), make([]float64, p)
	resid := make([]float64, n)
	for m.Iter < ridgeMaxIter {
		rss := sp.coef(des, m.Lambda/m.Alpha, coef, resid)
		gamma := 0.0
		for _, e := range sp.s2 {
			gamma += m.Alpha * e / (m.Lambda + m.Alpha*e)
		}
		m.Lambda = (gamma + 2*ridgePrior) / (floats.Dot(coef, coef) + 2*ridgePrior)
		m.Alpha = (float64(n) - gamma + 2*ridgePrior) / (rss + 2*ridgePrior)
		m.Iter++
		if m.Iter > 1 && floats.Distance(old, coef, 1) < ridgeTol {
			break
		}
		copy(old, coef)
	}
	sp.coef(des, m.Lambda/m.Alpha, coef, resid)
	m.Coef = coef
	m.Intercept = des.YMean - floats.Dot(des.Mean, coef)
	return m
}

// eps64 is the float64 machine epsilon, numpy's finfo(float64).eps.
const eps64 = 0x1p-52

// spectrum is what the evidence iterations need of the centred design
// X (n × p): its m = min(n, p) (or p) squared singular values s2, the
// p × m matrix v of the matching right singular vectors (columns) and
// z = diag(s)·Uᵀy = VᵀXᵀy, so that the posterior mean for the ratio
// r = λ/α is V diag(1/(s² + r)) z.
type spectrum struct {
	s2 []float64
	v  *mat.Dense
	z  []float64
}

// coef sets coef to the posterior mean for the ratio r = λ/α and returns
// the residual sum of squares ‖y − X·coef‖² (resid is scratch of length
// n).
func (sp *spectrum) coef(des *ridgeDesign, r float64, coef, resid []float64) float64 {
	w := make([]float64, len(sp.z))
	for k, zk := range sp.z {
		w[k] = zk / (sp.s2[k] + r)
	}
	for a := range coef {
		coef[a] = floats.Dot(sp.v.RawRowView(a), w)
	}
	copy(resid, des.Y)
	for a, col := range des.Cols {
		floats.AddScaled(resid, -coef[a], col)
	}
	return floats.Dot(resid, resid)
}

// ridgeSpectrum returns the spectrum of the centred design: from the
// eigendecomposition of XᵀX when n > p and its eigenvalues span less
// than 1/ridgeWellConditioned, else from an SVD of X (ridgeSVD).
func ridgeSpectrum(des *ridgeDesign) *spectrum {
	p, n := len(des.Cols), len(des.Y)
	if n <= p {
		return ridgeSVD(des)
	}
	g := mat.NewSymDense(p, nil)
	for a := range p {
		for b := a; b < p; b++ {
			g.SetSym(a, b, floats.Dot(des.Cols[a], des.Cols[b]))
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(g, true) {
		return ridgeSVD(des)
	}
	s2 := eig.Values(nil)
	if hi := floats.Max(s2); !(hi > 0 && floats.Min(s2) >= ridgeWellConditioned*hi) {
		return ridgeSVD(des)
	}
	sp := &spectrum{s2: s2, v: mat.NewDense(p, p, nil), z: make([]float64, p)}
	eig.VectorsTo(sp.v)
	xty := make([]float64, p)
	for a, c := range des.Cols {
		xty[a] = floats.Dot(c, des.Y)
	}
	for k := range p {
		for a := range p {
			sp.z[k] += sp.v.At(a, k) * xty[a]
		}
	}
	return sp
}

// ridgeSVD is ridgeSpectrum by a thin SVD X = U diag(s) Vᵀ, as
// scikit-learn: z = VᵀXᵀy when n > p and diag(s)·Uᵀy otherwise (its two
// formulas for the posterior mean), so that the directions of
// (numerically) zero singular values get no rounding noise.
func ridgeSVD(des *ridgeDesign) *spectrum {
	n, p := len(des.Y), len(des.Cols)
	x := mat.NewDense(n, p, nil)
	for a, col := range des.Cols {
		for i, v := range col {
			x.Set(i, a, v)
		}
	}
	m := min(n, p)
	sp := &spectrum{s2: make([]float64, m), v: mat.NewDense(p, m, nil), z: make([]float64, m)}
	var svd mat.SVD
	if !svd.Factorize(x, mat.SVDThin) {
		return sp // never seen on finite data: w = 0
	}
	s := svd.Values(nil)
	var u mat.Dense
	svd.UTo(&u)
	svd.VTo(sp.v)
	xty := make([]float64, p)
	for a, c := range des.Cols {
		xty[a] = floats.Dot(c, des.Y)
	}
	for k := range m {
		sp.s2[k] = s[k] * s[k]
		if n > p {
			sp.z[k] = floats.Dot(mat.Col(nil, k, sp.v), xty)
		} else {
			sp.z[k] = s[k] * floats.Dot(mat.Col(nil, k, &u), des.Y)
		}
	}
	return sp
}

// variance returns numpy's var(y): the mean squared deviation from the
// mean (divisor n).
func variance(y []float64) float64 {
	m := floats.Sum(y) / float64(len(y))
	s := 0.0
	for _, v := range y {
		s += (v - m) * (v - m)
	}
	return s / float64(len(y))
}
