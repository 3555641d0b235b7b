package sim

import (
	"fmt"
	"math"
)

// Monte Carlo sizes of BayesRisk: BayesRiskDraws rows for every model
// except Model 4 (nonlinear, nonlinear-high), whose predictor integrates
// over the hidden variable for each row and uses BayesRiskDrawsHidden,
// and censoring MNAR, whose predictor integrates over the common factor
// of the censored entries (about 4 µs a row) and uses
// BayesRiskDrawsCensored (the quadratic model's Bayes R² then has a
// standard error of about 1e-3).
const (
	BayesRiskDraws         = 1 << 20
	BayesRiskDrawsHidden   = 1 << 15
	BayesRiskDrawsCensored = 1 << 18
)

// riskChunk is the number of rows drawn at once by the Monte Carlo.
const riskChunk = 4096

type riskEstimate struct{ risk, se float64 }

var bayesRiskCache onceCache[riskEstimate]

// BayesRisk returns the population mean squared error E[(Y − f̃(X̃))²] of
// the Bayes predictor f̃ = BayesPredict of s (noise included: it is at
// least σ²) and its standard error.
//
// For the linear model the risk is exact (stderr 0): under none, MCAR,
// predictive and MAR the conditional covariance Σ_{m|o} of a pattern does
// not depend on x_o, so
//
//	risk = σ² + Σ_patterns P(M = m) · β_mᵀ Σ_{m|o} β_m,
//
// summed in closed form over the number r of missing columns among the k
// masked ones (linearBayesRisk); censoring truncates Σ_{m|o}, so linear
// MNAR takes the Monte Carlo route. Otherwise the risk is estimated once per
// s.Population() (sample sizes play no part) from BayesRiskDraws rows
// (BayesRiskDrawsHidden for Model 4) of the stream
// Stream(0, s.Population(), 0, "bayes-risk") (BayesRiskDrawsCensored
// under censoring MNAR), cached process-wide, with
// stderr = sd of the squared errors / √draws. Errors wrap ErrInvalid or
// ErrNoBayes.
func BayesRisk(s Scenario) (risk, stderr float64, err error) {
	if err := s.Validate(); err != nil {
		return 0, 0, err
	}
	if !HasBayes(s) {
		return 0, 0, fmt.Errorf("%w: mechanism %q", ErrNoBayes, s.Mechanism)
	}
	if s.Model == Linear && s.Mechanism != MNAR {
		return linearBayesRisk(s), 0, nil
	}
	key := s.Population()
	draws := BayesRiskDraws
	switch {
	case s.Model == Nonlinear || s.Model == NonlinearHigh:
		draws = BayesRiskDrawsHidden
	case s.Mechanism == MNAR:
		draws = BayesRiskDrawsCensored
	}
	e := bayesRiskCache.get(key, func() riskEstimate { return mcBayesRisk(s, key, draws) })
	return e.risk, e.se, nil
}

// BayesR2 returns the population R² of the Bayes predictor,
// 1 − BayesRisk(s)/Var(Y), with its standard error (delta method over the
// Monte Carlo errors of both terms; 0 when both are exact). It is the
// Bayes-rate line of the learning curves.
func BayesR2(s Scenario) (r2, stderr float64, err error) {
	risk, rse, err := BayesRisk(s)
	if err != nil {
		return 0, 0, err
	}
	v, err := VarianceInfo(s)
	if err != nil {
		return 0, 0, err
	}
	r2 = 1 - risk/v.Value
	stderr = math.Hypot(rse/v.Value, risk*v.StdErr/(v.Value*v.Value))
	return r2, stderr, nil
}

// mcBayesRisk estimates the Bayes risk of s by Monte Carlo over draws rows
// (a multiple of riskChunk) of the stream keyed by key. Censoring MNAR is
// the population mechanism here: an entry is masked above the fixed
// threshold CensorThreshold(p), not above a per-chunk empirical quantile.
func mcBayesRisk(s Scenario, key string, draws int) riskEstimate {
	l := newLaw(s)
	r := Stream(0, key, 0, "bayes-risk")
	d := s.D
	full := make([]float64, riskChunk*d)
	obs := make([]float64, riskChunk*d)
	y := make([]float64, riskChunk)
	var sum, sumSq float64
	for done := 0; done < draws; done += riskChunk {
		l.fill(r, full, obs, y)
		if s.Mechanism == MNAR {
			l.censorAt(full, obs)
		}
		var cs, css float64
		for i := range y {
			e := y[i] - l.bayesRow(obs[i*d:(i+1)*d])
			cs += e * e
			css += e * e * e * e
		}
		sum += cs
		sumSq += css
	}
	n := float64(draws)
	mean := sum / n
	sd := math.Sqrt(max(sumSq/n-mean*mean, 0) * n / (n - 1))
	return riskEstimate{risk: mean, se: sd / math.Sqrt(n)}
}

// linearBayesRisk returns the exact Bayes risk of the linear model. For a
// pattern m with r missing columns (k = D − r observed), Σ_{m|o} =
// (1−ρ)·I + κ_r·11ᵀ with κ_r = ρ(1−ρ)/(1−ρ+kρ) (see equiCond), so
// β_mᵀΣ_{m|o}β_m = (1−ρ)Σ_{j∈m}β_j² + κ_r(Σ_{j∈m}β_j)². P(M = m) depends
// only on r, and summing over the C(c, r) patterns of size r among the c
// masked columns gives, with T1 = Σ_{j∈C}β_j and T2 = Σ_{j∈C}β_j²,
//
//	Σ_{|m|=r} P(m)·β_mᵀΣ_{m|o}β_m = P(|M|=r)·[(1−ρ+κ_r)·(r/c)·T2 + κ_r·r(r−1)/(c(c−1))·(T1² − T2)].
func linearBayesRisk(s Scenario) float64 {
	risk := s.Noise * s.Noise
	c := len(s.Columns)
	if s.Mechanism == None || s.Rate == 0 || c == 0 {
		return risk
	}
	var t1, t2 float64
	for _, j := range s.Columns {
		if j < len(linearBeta) {
			t1 += linearBeta[j]
			t2 += linearBeta[j] * linearBeta[j]
		}
	}
	rho, cf := s.Rho, float64(c)
	for r := 1; r <= c; r++ {
		rf := float64(r)
		q := 1 - rho + float64(s.D-r)*rho
		kappa := rho * (1 - rho) / q
		term := (1 - rho + kappa) * rf / cf * t2
		if c > 1 {
			term += kappa * rf * (rf - 1) / (cf * (cf - 1)) * (t1*t1 - t2)
		}
		risk += missingCountProb(s, r) * term
	}
	return risk
}

// missingCountProb returns P(|M| = r), the probability that exactly r of
// the scenario's c masked columns are missing in a row: Binomial(c, p)
// under MCAR and predictive; under MAR the columns are independent given
// Z, so it is E_Z[Binomial(c, sigmoid(a + bZ)) pmf at r], computed by
// quadrature (stdNormalNodes).
func missingCountProb(s Scenario, r int) float64 {
	c := len(s.Columns)
	if s.Mechanism != MAR {
		return binomPMF(c, r, s.Rate)
	}
	a := marIntercept(s.Rate, MARSlope)
	z, w := stdNormalNodes()
	sum := 0.0
	for i := range z {
		sum += w[i] * binomPMF(c, r, sigmoid(a+MARSlope*z[i]))
	}
	return sum
}

// binomPMF returns C(n, r)·p^r·(1−p)^(n−r), computed in logs.
func binomPMF(n, r int, p float64) float64 {
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	l := lg(n) - lg(r) - lg(n-r)
	if r > 0 {
		l += float64(r) * math.Log(p)
	}
	if n > r {
		l += float64(n-r) * math.Log1p(-p)
	}
	return math.Exp(l)
}

// censorAt masks, in obs, every entry of a masked column whose value in
// full exceeds the population threshold l.cut (row-major, D columns).
func (l *law) censorAt(full, obs []float64) {
	d := l.s.D
	for i := 0; i < len(full); i += d {
		for _, j := range l.s.Columns {
			if full[i+j] > l.cut {
				obs[i+j] = math.NaN()
			}
		}
	}
}
