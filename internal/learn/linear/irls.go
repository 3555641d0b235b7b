package linear

import (
	"context"
	"fmt"
	"math"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// The logit link as R 4.2's stats package computes it (C_logit_linkinv,
// C_logit_mu_eta): beyond |η| > 30 the inverse link is pinned at
// ε/(1+ε) or 1/(1+ε) and its derivative at ε (ε = 2⁻⁵², DBL_EPSILON),
// so fitted probabilities are never exactly 0 or 1.
const (
	logitThresh = 30.0
	dblEps      = 0x1p-52
)

// logitInv is the inverse logit with R's clamping.
func logitInv(eta float64) float64 {
	var t float64
	switch {
	case eta < -logitThresh:
		t = dblEps
	case eta > logitThresh:
		t = 1 / dblEps
	default:
		t = crExp(eta)
	}
	return t / (1 + t)
}

// logitBoth returns logitInv(η) and dμ/dη with R's clamping (both as
// R 4.2 computes them), from one exp.
func logitBoth(eta float64) (mu, muEta float64) {
	if eta > logitThresh || eta < -logitThresh {
		return logitInv(eta), dblEps
	}
	e := crExp(eta)
	o := 1 + e
	return e / o, e / float64(o*o)
}

// binomDev is the binomial deviance Σ 2·(y log(y/μ) + (1−y) log((1−y)/(1−μ)))
// for 0/1 responses, summed with compensation (R sums in long double).
// It feeds only the convergence rule and Value, so it uses math.Log,
// within an ulp of the correctly rounded log (μ is never subnormal).
func binomDev(y, mu []float64) float64 {
	var s, c float64
	for i, m := range mu {
		var d float64
		if y[i] != 0 {
			d = 2 * math.Log(1/m)
		} else {
			d = 2 * math.Log(1/(1-m))
		}
		s, c = twoSum(s, c, d)
	}
	return s + c
}

// twoSum adds d to the compensated sum (s, c) (Neumaier's variant).
func twoSum(s, c, d float64) (float64, float64) {
	t := s + d
	if math.Abs(s) >= math.Abs(d) {
		c += (s - t) + d
	} else {
		c += (d - t) + s
	}
	return t, c
}

// irlsFit is the result of binomial IRLS.
type irlsFit struct {
	coef      []float64 // intercept first; 0 for columns glm leaves NA
	iter      int
	converged bool
	deviance  float64
	extreme   bool // some fitted μ within 10ε of 0 or 1 (glm's warning)
}

// fitBinomial runs glm.fit's IRLS for family = binomial on the design Z
// (n × q, column-major, intercept first) and 0/1 responses y. It follows
// glm.fit step for step: starting values μ = (y + ½)/2, working response
// z = η + (y − μ)/μ'(η), weights w = μ'(η)/√(μ(1−μ)), the weighted least
// squares by pivoting QR with tolerance min(1e−7, ε/1000), and the stop
// |dev − dev_old|/(|dev| + 0.1) < ε. A step with non-finite coefficients
// ends the iteration with the previous coefficients, as glm does (an
// error if it is the first).
func fitBinomial(ctx context.Context, Z []float64, n, q int, y []float64, eps float64, maxit int) (*irlsFit, error) {
	eta, mu, muEta := make([]float64, n), make([]float64, n), make([]float64, n)
	for i, v := range y {
		m := (v + 0.5) / 2
		eta[i] = crLog(m / (1 - m))
		mu[i], muEta[i] = logitBoth(eta[i])
	}
	devOld := binomDev(y, mu)
	qr := newPivotQR(n, q)
	z := make([]float64, n)
	coef := make([]float64, q)
	fit := &irlsFit{}
	tol := math.Min(1e-7, eps/1000)
	for iter := 1; iter <= maxit; iter++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		fit.iter = iter
		weightedLS(qr, Z, z, y, eta, mu, muEta)
		qr.factor(tol)
		b, ok := qr.solve(z)
		if !ok || !allFinite(b) {
			if iter == 1 {
				return nil, fmt.Errorf("linear: non-finite coefficients at the first IRLS iteration: %w", learnerr.ErrNumerical)
			}
			break
		}
		copy(coef, b)
		linPred(eta, Z, n, coef)
		for i, e := range eta {
			mu[i], muEta[i] = logitBoth(e)
		}
		dev := binomDev(y, mu)
		fit.deviance = dev
		if math.Abs(dev-devOld)/(0.1+math.Abs(dev)) < eps {
			fit.converged = true
			break
		}
		devOld = dev
	}
	fit.coef, fit.extreme = coef, anyExtreme(mu)
	return fit, nil
}

// anyExtreme reports whether some μ is within 10ε of 0 or 1, glm's test
// for its warning "fitted probabilities numerically 0 or 1 occurred".
func anyExtreme(mu []float64) bool {
	for _, m := range mu {
		if m > 1-10*dblEps || m < 10*dblEps {
			return true
		}
	}
	return false
}

// weightedLS fills qr's matrix with the rows of Z scaled by the IRLS
// weights and z with the weighted working response.
func weightedLS(qr *pivotQR, Z, z, y, eta, mu, muEta []float64) {
	n := len(y)
	for i := range n {
		d := muEta[i]
		v := mu[i] * (1 - mu[i])
		w := math.Sqrt(float64(d*d) / v)
		z[i] = (eta[i] + (y[i]-mu[i])/d) * w
		for j := range qr.p {
			qr.a[j*n+i] = Z[j*n+i] * w
		}
	}
}

// linPred sets eta = Z·coef (Z column-major, n rows).
func linPred(eta, Z []float64, n int, coef []float64) {
	clear(eta)
	for j, b := range coef {
		if b != 0 {
			axpy(b, Z[j*n:(j+1)*n], eta)
		}
	}
}

func allFinite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
