package sim

import (
	"errors"
	"math"
	"math/bits"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// enumerateLinearRisk sums P(m)·β_mᵀΣ_{m|o}β_m + σ² over all 2^c MCAR
// patterns, with Σ_{m|o} from the generic Schur complement.
func enumerateLinearRisk(t *testing.T, s Scenario) float64 {
	sigma := equiSigma(s.D, s.Rho)
	beta := make([]float64, s.D)
	copy(beta, linearBeta)
	c := len(s.Columns)
	risk := s.Noise * s.Noise
	for pat := 1; pat < 1<<c; pat++ {
		var miss, obs []int
		isMiss := map[int]bool{}
		for b, j := range s.Columns {
			if pat&(1<<b) != 0 {
				miss = append(miss, j)
				isMiss[j] = true
			}
		}
		for j := 0; j < s.D; j++ {
			if !isMiss[j] {
				obs = append(obs, j)
			}
		}
		_, cov := schur(t, sigma, obs, miss, make([]float64, len(obs)))
		q := 0.0
		for a, j := range miss {
			for b, k := range miss {
				q += beta[j] * cov.At(a, b) * beta[k]
			}
		}
		r := bits.OnesCount(uint(pat))
		risk += math.Pow(s.Rate, float64(r)) * math.Pow(1-s.Rate, float64(c-r)) * q
	}
	return risk
}

// TestLinearBayesRisk checks the closed-form linear Bayes risk against an
// explicit enumeration of the MCAR patterns, against Monte Carlo of the
// Bayes predictor (MCAR, predictive and MAR, 2^18 draws each, within 4.5
// standard errors), and the R² of BayesPredict on a drawn test set
// against BayesR2.
func TestLinearBayesRisk(t *testing.T) {
	enum := []Scenario{
		scenario(t, Linear, nil),
		scenario(t, Linear, func(s *Scenario) { s.Rate = 0.4 }),
		scenario(t, Linear, func(s *Scenario) { s.D, s.Rho, s.Columns = 12, -0.05, []int{0, 2, 3, 11} }),
		scenario(t, Linear, func(s *Scenario) { s.Rho, s.Columns = 0, []int{3} }),
	}
	for _, s := range enum {
		got, se, err := BayesRisk(s)
		want := enumerateLinearRisk(t, s)
		if err != nil || se != 0 || math.Abs(got-want) > 1e-10*want {
			t.Errorf("%s: BayesRisk = %v ± %v (%v), enumeration %v", s.Population(), got, se, err, want)
		}
	}
	mc := []Scenario{
		scenario(t, Linear, nil),
		scenario(t, Linear, func(s *Scenario) { s.Mechanism, s.Rate = Predictive, 0.4 }),
		scenario(t, Linear, func(s *Scenario) {
			s.Mechanism, s.Rate, s.Columns = MAR, 0.3, []int{0, 1, 3, 7}
		}),
	}
	for _, s := range mc {
		exact, _, _ := BayesRisk(s)
		e := mcBayesRisk(s, s.Population(), 1<<18)
		near(t, s.Mechanism+" Monte Carlo risk", e.risk, exact, e.se, 4.5)
	}
	s := scenario(t, Linear, func(s *Scenario) { s.NTest = 100_000 })
	rep, err := Generate(s, 21, 0)
	if err != nil {
		t.Fatal(err)
	}
	pred, err := BayesPredict(s, rep.Test.X)
	if err != nil {
		t.Fatal(err)
	}
	var sq moments
	for i, p := range pred {
		sq.add((rep.Test.Y[i] - p) * (rep.Test.Y[i] - p))
	}
	v, _, _ := Variance(s)
	r2, r2se, _ := BayesR2(s)
	if r2se != 0 {
		t.Errorf("linear BayesR2 stderr = %v, want 0 (exact)", r2se)
	}
	near(t, "empirical Bayes R²", 1-sq.mean()/v, r2, math.Sqrt(sq.variance()/sq.n)/v, 4.5)
}

// TestQuadraticBayesRisk checks the Monte Carlo Bayes risk of the
// quadratic model under MCAR and predictive missingness against a closed
// form derived independently: given x_o the missing X_j are jointly
// Gaussian with common mean μ and covariance (v, c) (equiCond), so
// Var(Σ_{j∈m}X_j² | x_o) = r(2v² + 4μ²v) + r(r−1)(2c² + 4μ²c), and
// E[μ²] = 1 + kρ²/q with k observed coordinates, q = 1 − ρ + kρ.
func TestQuadraticBayesRisk(t *testing.T) {
	for _, mech := range []string{MCAR, Predictive} {
		s := scenario(t, Quadratic, func(s *Scenario) { s.Mechanism, s.Rate = mech, 0.3 })
		want := s.Noise * s.Noise
		for r := 1; r <= 3; r++ {
			k := float64(s.D - r)
			rho, rf := s.Rho, float64(r)
			q := 1 - rho + k*rho
			v, c, mu2 := 1-k*rho*rho/q, rho*(1-rho)/q, 1+k*rho*rho/q
			want += binomPMF(3, r, s.Rate) * (rf*(2*v*v+4*mu2*v) + rf*(rf-1)*(2*c*c+4*mu2*c))
		}
		if mech == MCAR { // the production path: 2^20 draws, cached
			got, se, err := BayesRisk(s)
			if err != nil {
				t.Fatal(err)
			}
			near(t, mech+" quadratic Bayes risk", got, want, se, 4.5)
			again, _, _ := BayesRisk(s)
			if math.Float64bits(again) != math.Float64bits(got) {
				t.Error("BayesRisk is not cached/deterministic")
			}
			continue
		}
		e := mcBayesRisk(s, s.Population(), 1<<18)
		near(t, mech+" quadratic Bayes risk", e.risk, want, e.se, 4.5)
	}
}

// orthogonalityZ returns the largest |z|-score of mean(e·g) over groups of
// rows sharing the missingness of groupCols and test functions g in
// {1, prediction, observed X_j for j in groupCols}, where e = Y −
// prediction. A conditional expectation E[Y | x_o, m] makes every such
// mean zero; a wrong predictor does not.
func orthogonalityZ(sm Sample, pred []float64, groupCols []int) float64 {
	type acc struct{ m []moments }
	nf := 2 + len(groupCols)
	groups := map[int]*acc{}
	for i, p := range pred {
		key := 0
		for b, j := range groupCols {
			if sm.Mask(i, j) {
				key |= 1 << b
			}
		}
		g := groups[key]
		if g == nil {
			g = &acc{m: make([]moments, nf)}
			groups[key] = g
		}
		e := sm.Y[i] - p
		g.m[0].add(e)
		g.m[1].add(e * p)
		for b, j := range groupCols {
			if !sm.Mask(i, j) {
				g.m[2+b].add(e * sm.X.At(i, j))
			}
		}
	}
	worst := 0.0
	for _, g := range groups {
		for _, m := range g.m {
			if m.n < 200 {
				continue
			}
			se := math.Sqrt(m.variance() / m.n)
			worst = max(worst, math.Abs(m.mean())/se)
		}
	}
	return worst
}

// TestBayesOrthogonality checks that BayesPredict is the conditional
// expectation: its residuals are orthogonal to functions of the observed
// entries and the mask, per missingness group, for the Gaussian models
// under MCAR, MAR and predictive missingness and for Model 4.
func TestBayesOrthogonality(t *testing.T) {
	cases := []struct {
		s     Scenario
		n     int
		group []int
	}{
		{scenario(t, Quadratic, nil), 40_000, []int{0, 1, 2}},
		{scenario(t, Quadratic, func(s *Scenario) { s.Mechanism, s.Rate = MAR, 0.4 }), 40_000, []int{0, 1, 2}},
		{scenario(t, Quadratic, func(s *Scenario) { s.Mechanism = Predictive }), 40_000, []int{0, 1, 2}},
		{scenario(t, Friedman, func(s *Scenario) { s.Rate = 0.4 }), 40_000, []int{0, 1, 2}},
		{scenario(t, Friedman, func(s *Scenario) { s.Mechanism, s.Columns = MAR, []int{0, 1, 2, 3, 4} }), 40_000, []int{0, 1, 2}},
		{scenario(t, Friedman, func(s *Scenario) { s.Rho, s.Noise = -0.05, 1 }), 40_000, []int{0, 1}},
		{scenario(t, NonlinearHigh, func(s *Scenario) { s.Rate = 0.4 }), 4_000, []int{0, 1}},
		{scenario(t, Nonlinear, nil), 4_000, []int{0, 1}},
	}
	for _, c := range cases {
		s := c.s
		s.NTest = c.n
		rep, err := Generate(s, 31, 0)
		if err != nil {
			t.Fatal(err)
		}
		pred, err := BayesPredict(s, rep.Test.X)
		if err != nil {
			t.Fatal(err)
		}
		z := orthogonalityZ(rep.Test, pred, c.group)
		t.Logf("%s/%s: max |z| = %.2f", s.Model, s.Mechanism, z)
		if z > 4.5 {
			t.Errorf("%s/%s: residual correlates with the observed data (max |z| = %.1f)", s.Model, s.Mechanism, z)
		}
	}
}

// TestOrthogonalityHasPower runs the orthogonality check on the plug-in
// predictor f(E[X | x_o]) (conditional mean imputation) of the quadratic
// model, which is not E[Y | x_o] (it misses Var(X_j | x_o)): the check
// must reject it decisively, or passing it would mean nothing.
func TestOrthogonalityHasPower(t *testing.T) {
	s := scenario(t, Quadratic, func(s *Scenario) { s.NTest = 40_000 })
	rep, _ := Generate(s, 31, 0)
	n, d := rep.Test.X.Dims()
	plug := make([]float64, n)
	row := make([]float64, d)
	for i := range plug {
		mat.Row(row, i, rep.Test.X)
		k, sum := 0, 0.0
		for _, v := range row {
			if !math.IsNaN(v) {
				k, sum = k+1, sum+v-1
			}
		}
		c := equiConditional(s.Rho, k, sum)
		for j := 0; j < 3; j++ {
			x := row[j]
			if math.IsNaN(x) {
				x = c.mean
			}
			plug[i] += x * x
		}
	}
	z := orthogonalityZ(rep.Test, plug, []int{0, 1, 2})
	t.Logf("control (plug-in imputation): max |z| = %.1f", z)
	if z < 10 {
		t.Errorf("control: plug-in imputation passes the orthogonality check (max |z| = %.1f); the check has no power", z)
	}
}

// toyDraw draws a large test set of a toy model and its Bayes predictions.
func toyDraw(t *testing.T, s Scenario) (Sample, []float64) {
	t.Helper()
	s.NTest = 100_000
	rep, err := Generate(s, 41, 0)
	if err != nil {
		t.Fatal(err)
	}
	pred, err := BayesPredict(s, rep.Test.X)
	if err != nil {
		t.Fatal(err)
	}
	return rep.Test, pred
}

// TestToyBayesValues checks the Bayes values of the paper's examples by
// simulation: the empirical mean of Y among rows where X1 is missing must
// match the Bayes value (1/3 in Example 1, 3/2 in Example 3) and reject
// the mean-imputation plug-in value (1/4, 1/2), and BayesPredict must
// return exactly the Bayes value there and f(x) elsewhere.
func TestToyBayesValues(t *testing.T) {
	cases := []struct {
		model        string
		bayes, plug  float64
		observedPred func(x float64) float64
	}{
		{Example1, 1.0 / 3, 0.25, func(x float64) float64 { return x * x }},
		{Example3, 1.5, 0.5, func(x float64) float64 { return x }},
		{Prop1, 0.5, math.NaN(), func(x float64) float64 { return x }},
	}
	for _, c := range cases {
		sm, pred := toyDraw(t, scenario(t, c.model, func(s *Scenario) { s.Noise = 0.1 }))
		var miss moments
		for i, p := range pred {
			x := sm.X.At(i, 0)
			if math.IsNaN(x) {
				miss.add(sm.Y[i])
				if p != c.bayes {
					t.Fatalf("%s: prediction %v for a missing X1, want %v", c.model, p, c.bayes)
				}
			} else if p != c.observedPred(x) {
				t.Fatalf("%s: prediction %v for X1 = %v", c.model, p, x)
			}
		}
		se := math.Sqrt(miss.variance() / miss.n)
		near(t, c.model+" E[Y | X1 missing]", miss.mean(), c.bayes, se, 4.5)
		if !math.IsNaN(c.plug) && math.Abs(miss.mean()-c.plug) < 20*se {
			t.Errorf("%s: E[Y | X1 missing] = %v is not distinguishable from the plug-in %v", c.model, miss.mean(), c.plug)
		}
	}
}

// TestToyBayesConditional checks Example 2, Proposition 2 and the stump
// setting, whose Bayes predictor uses the other covariate.
func TestToyBayesConditional(t *testing.T) {
	// Example 2: X1 = X2, so E[Y | X1, X2 missing] = X1 + X1² and the
	// residual is the noise alone: mean 0, variance σ².
	s := scenario(t, Example2, nil)
	sm, pred := toyDraw(t, s)
	var res moments
	for i, p := range pred {
		if sm.Mask(i, 1) {
			res.add(sm.Y[i] - p)
		}
	}
	near(t, "example2 residual mean", res.mean(), 0, math.Sqrt(res.variance()/res.n), 4.5)
	near(t, "example2 residual var", res.variance(), s.Noise*s.Noise, res.varianceSE(), 4.5)

	// Proposition 2 (noise 0): with X1 missing and X2 ≠ 0, X1 = X2 exactly;
	// with X2 = 0, E[Y] = 1/2.
	sm, pred = toyDraw(t, scenario(t, Prop2, func(s *Scenario) { s.Rate, s.Eta = 0.5, 0.4 }))
	var zero moments
	for i, p := range pred {
		switch {
		case !sm.Mask(i, 0):
			continue
		case sm.X.At(i, 1) != 0:
			if p != sm.Y[i] {
				t.Fatalf("prop2: X2 = %v, prediction %v, Y = %v", sm.X.At(i, 1), p, sm.Y[i])
			}
		default:
			zero.add(sm.Y[i])
			if p != 0.5 {
				t.Fatalf("prop2: prediction %v with X2 = 0", p)
			}
		}
	}
	near(t, "prop2 E[Y | X1 missing, X2 = 0]", zero.mean(), 0.5, math.Sqrt(zero.variance()/zero.n), 4.5)

	// Stump: X1 ⊥ X2, so E[Y | X1 missing] = 0.
	sm, pred = toyDraw(t, scenario(t, Stump, func(s *Scenario) { s.Rate = 0.5 }))
	if z := orthogonalityZ(sm, pred, []int{0}); z > 4.5 {
		t.Errorf("stump: max |z| = %.1f", z)
	}
}

// TestHiddenQuadratureAccuracy checks Model 4's posterior quadrature
// against a rule with five times more cells, on drawn rows with random
// patterns and on extreme rows (all observed where the posterior is
// narrowest, all missing, a single non-monotone feature observed).
func TestHiddenQuadratureAccuracy(t *testing.T) {
	fine := newHiddenTable(5*hiddenCells, hiddenNodes)
	coef := friedmanHigh
	s := scenario(t, NonlinearHigh, func(s *Scenario) { s.Rate, s.NTest = 0.5, 40 })
	rep, _ := Generate(s, 51, 0)
	var rows [][]float64
	for i := 0; i < 40; i++ {
		rows = append(rows, mat.Row(nil, i, rep.Test.X))
	}
	g := make([]float64, 10)
	hiddenFeatures(-2.9995, g)
	narrow := append([]float64(nil), g...)
	narrow[0] += 0.03
	allMissing := make([]float64, 10)
	only6 := make([]float64, 10)
	for j := range allMissing {
		allMissing[j], only6[j] = math.NaN(), math.NaN()
	}
	only6[5] = 1.6
	rows = append(rows, narrow, allMissing, only6)
	var scratch, scratchFine []float64
	worst := 0.0
	for _, x := range rows {
		got := hiddenPosteriorMean(hiddenRule(), hiddenCells, hiddenNodes, &coef, x, &scratch)
		want := hiddenPosteriorMean(fine, 5*hiddenCells, hiddenNodes, &coef, x, &scratchFine)
		worst = max(worst, math.Abs(got-want)/(1+math.Abs(want)))
		if math.Abs(got-want) > 1e-8*(1+math.Abs(want)) {
			t.Errorf("x = %v: %v vs fine rule %v", x, got, want)
		}
	}
	t.Logf("largest relative difference to the fine rule: %.2g", worst)
}

// TestBayesErrors checks the refusals of BayesPredict.
func TestBayesErrors(t *testing.T) {
	for _, s := range []Scenario{
		scenario(t, Friedman, func(s *Scenario) { s.Mechanism = MNAR }),
		scenario(t, Quadratic, func(s *Scenario) { s.Mechanism, s.Rho = MNAR, -0.05 }),
	} {
		if HasBayes(s) {
			t.Errorf("HasBayes(%s, MNAR, ρ = %v) = true", s.Model, s.Rho)
		}
		if _, err := BayesPredict(s, mat.NewDense(1, s.D, nil)); !errors.Is(err, ErrNoBayes) {
			t.Errorf("%s MNAR: %v", s.Model, err)
		}
		if _, _, err := BayesRisk(s); !errors.Is(err, ErrNoBayes) {
			t.Errorf("%s MNAR risk: %v", s.Model, err)
		}
	}
	for _, m := range []string{Quadratic, Linear} {
		if !HasBayes(scenario(t, m, func(s *Scenario) { s.Mechanism = MNAR })) {
			t.Errorf("HasBayes(%s, MNAR) = false", m)
		}
	}
	s := scenario(t, Quadratic, nil)
	if _, err := BayesPredict(s, mat.NewDense(1, 8, nil)); !errors.Is(err, ErrInvalid) {
		t.Errorf("wrong width: %v", err)
	}
	for _, m := range Models {
		if !HasBayes(scenario(t, m, nil)) {
			t.Errorf("HasBayes(%s defaults) = false", m)
		}
	}
}
