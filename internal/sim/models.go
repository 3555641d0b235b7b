package sim

import (
	"math"
	"math/rand/v2"
)

// linearBeta is the coefficient vector of the paper's Model 2. For d > 10
// the extra coefficients are 0.
var linearBeta = []float64{1, 2, -1, 3, -0.5, -1, 0.3, 1.7, 0.4, -0.3}

// Coefficients (c1, c2, c3, c4) of the Friedman-type target
// c1·sin(πX1X2) + c2·(X3−0.5)² + c3·X4 + c4·X5.
var (
	friedmanHigh = [4]float64{10, 20, 10, 5}
	friedmanLow  = [4]float64{1, 2, 1, 0.5}
)

// Model 4 constants: the hidden variable H ~ U(hiddenLo, hiddenHi) and the
// standard deviation of the independent Gaussian noise on each feature.
const (
	hiddenLo     = -3.0
	hiddenHi     = 0.0
	featureNoise = 0.05
)

// hiddenFeatures writes the ten noiseless Model 4 features g_j(h) into g,
// exactly as printed in the paper (Section 5, Model 4):
//
//	X1 = h², X2 = sin h, X3 = tanh(h)·e^h·sin h, X4 = sin(h−1) + cos³(h−3),
//	X5 = (1−h)³, X6 = √(sin(h²)+2), X7 = h−3, X8 = (1−h)·sin h·cosh h,
//	X9 = 1/(sin 2h − 2), X10 = h⁴.
//
// The authors' R code (nprost/supervised_missing, make_data6) differs in
// two places, sin(h−2) for X4 and −h⁴ for X10; we follow the paper.
func hiddenFeatures(h float64, g []float64) {
	sh := math.Sin(h)
	c3 := math.Cos(h - 3)
	g[0] = h * h
	g[1] = sh
	g[2] = math.Tanh(h) * math.Exp(h) * sh
	g[3] = math.Sin(h-1) + c3*c3*c3
	g[4] = (1 - h) * (1 - h) * (1 - h)
	g[5] = math.Sqrt(math.Sin(h*h) + 2)
	g[6] = h - 3
	g[7] = (1 - h) * sh * math.Cosh(h)
	g[8] = 1 / (math.Sin(2*h) - 2)
	g[9] = h * h * h * h
}

// law holds the constants of one validated scenario's data-generating
// process, precomputed once so that drawing a row allocates nothing. A
// law is not safe for concurrent use (scratch); each call builds its own.
type law struct {
	s          Scenario
	sqrtA, eqC float64    // Σ^{1/2} = sqrtA·I + eqC·11ᵀ (equicorrelation)
	coef       [4]float64 // Friedman-type coefficients
	mar        marDesign  // only for mechanism MAR
	cut        float64    // population censoring threshold, only for MNAR
	scratch    []float64  // Model 4 Bayes predictor workspace
}

// newLaw precomputes the constants of s, which must be valid.
func newLaw(s Scenario) *law {
	l := &law{s: s}
	if gaussianCovariates(s.Model) {
		l.sqrtA, l.eqC = equiSqrt(s.Rho, s.D)
	}
	switch s.Model {
	case Friedman, NonlinearHigh:
		l.coef = friedmanHigh
	case Nonlinear:
		l.coef = friedmanLow
	}
	if s.Mechanism == MAR {
		l.mar = newMARDesign(s)
	}
	if s.Mechanism == MNAR {
		l.cut = CensorThreshold(s.Rate)
	}
	return l
}

// equiSqrt returns (a, c) with (a·I + c·11ᵀ)² = ρ·11ᵀ + (1−ρ)·I in
// dimension d: a = √(1−ρ), c = (√(1+(d−1)ρ) − √(1−ρ))/d. This symmetric
// square root is exact for every ρ in (−1/(d−1), 1), including negative
// correlations, and costs O(d) per row.
func equiSqrt(rho float64, d int) (a, c float64) {
	a = math.Sqrt(1 - rho)
	c = (math.Sqrt(1+float64(d-1)*rho) - a) / float64(d)
	return a, c
}

// drawX writes one row of complete covariates into x (length D).
func (l *law) drawX(r *rand.Rand, x []float64) {
	switch l.s.Model {
	case Quadratic, Linear, Friedman:
		sum := 0.0
		for j := range x {
			z := r.NormFloat64()
			x[j] = z
			sum += z
		}
		shift := 1 + l.eqC*sum
		for j := range x {
			x[j] = shift + l.sqrtA*x[j]
		}
	case Nonlinear, NonlinearHigh:
		h := hiddenLo + (hiddenHi-hiddenLo)*r.Float64()
		hiddenFeatures(h, x)
		for j := range x {
			x[j] += featureNoise * r.NormFloat64()
		}
	case Example2:
		u := r.Float64()
		x[0], x[1] = u, u
	case Prop2:
		u := r.Float64()
		x[0], x[1] = u, u
		if r.Float64() < l.s.Eta { // W = 0 with probability η
			x[1] = 0
		}
	case Stump:
		x[0], x[1] = r.NormFloat64(), r.NormFloat64()
	default: // Example1, Example3, Prop1: X1 ~ U(0, 1)
		x[0] = r.Float64()
	}
}

// signal returns f(x), the noiseless part of Y that depends on the
// complete covariates only (Example 3's mask term and the predictive
// mechanism's 2·ΣM_j are added by maskEffect).
func (l *law) signal(x []float64) float64 {
	switch l.s.Model {
	case Quadratic:
		return x[0]*x[0] + x[1]*x[1] + x[2]*x[2]
	case Linear:
		y := 0.0
		for j, b := range linearBeta {
			y += b * x[j]
		}
		return y
	case Friedman, Nonlinear, NonlinearHigh:
		c := &l.coef
		t := x[2] - 0.5
		return c[0]*math.Sin(math.Pi*x[0]*x[1]) + c[1]*t*t + c[2]*x[3] + c[3]*x[4]
	case Example1:
		return x[0] * x[0]
	case Example2:
		return x[0] + x[1]*x[1]
	case Stump:
		return 0.25 * x[0]
	default: // Example3 (mask term added separately), Prop1, Prop2
		return x[0]
	}
}

// maskEffect returns the part of E[Y | X, M] that depends on the mask:
// 2·X1·M1 for Example 3 (Y = X1·(1+2M1) + ε) and 2·Σ_j M_j over the
// scenario's columns for the predictive mechanism. obs is the row with
// NaN where masked; full is the complete row.
func (l *law) maskEffect(full, obs []float64) float64 {
	e := 0.0
	if l.s.Model == Example3 && math.IsNaN(obs[0]) {
		e += 2 * full[0]
	}
	if l.s.Mechanism == Predictive {
		for _, j := range l.s.Columns {
			if math.IsNaN(obs[j]) {
				e += 2
			}
		}
	}
	return e
}
