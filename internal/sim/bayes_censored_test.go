package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

func censored(t testing.TB, model string, rho, rate float64, cols []int) Scenario {
	return scenario(t, model, func(s *Scenario) {
		s.Mechanism, s.Rho, s.Rate = MNAR, rho, rate
		if cols != nil {
			s.Columns = cols
		}
	})
}

// TestCensoredIndependentClosedForm checks the censored Bayes predictor at
// ρ = 0, where a censored X_j ~ N(1, 1) given X_j > c has the textbook
// truncated-normal moments E[X] = 1 + λ, E[X²] = 2 + 2λ + αλ with
// α = c − 1 and λ = φ(α)/(1 − Φ(α)), computed here from gonum's normal.
func TestCensoredIndependentClosedForm(t *testing.T) {
	for _, p := range []float64{0.05, 0.2, 0.5, 0.8, 0.99} {
		alpha := distuv.UnitNormal.Quantile(1 - p)
		lam := distuv.UnitNormal.Prob(alpha) / distuv.UnitNormal.Survival(alpha)
		m1, m2 := 1+lam, 2+2*lam+alpha*lam
		q := censored(t, Quadratic, 0, p, nil)
		lin := censored(t, Linear, 0, p, []int{1, 3})
		nan := math.NaN()
		cases := []struct {
			s    Scenario
			row  []float64
			want float64
		}{
			{q, []float64{nan, 0.3, nan, 5, 5, 5, 5, 5, 5}, 2*m2 + 0.09},
			{q, []float64{nan, nan, nan, 0, 0, 0, 0, 0, 0}, 3 * m2},
			{lin, []float64{1, nan, 1, nan, 1, 1, 1, 1, 1, 1}, 1 - 1 - 0.5 - 1 + 0.3 + 1.7 + 0.4 - 0.3 + (2+3)*m1},
		}
		for i, c := range cases {
			got, err := BayesPredict(c.s, mat.NewDense(1, len(c.row), c.row))
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got[0]-c.want) > 1e-10*(1+math.Abs(c.want)) {
				t.Errorf("p = %v case %d: %.15g, closed form %.15g", p, i, got[0], c.want)
			}
		}
	}
}

// TestCensoredQuadratureRule checks the adaptive Gauss–Hermite rule of the
// common factor against a brute-force composite Gauss–Legendre rule over
// z ∈ [−60, 60] (3000 panels of 8 nodes, no recentring), in the hard
// corners: strong correlation, many censored coordinates, rows far on
// either side of the threshold (where the posterior of Z sits at z ≈ 20).
func TestCensoredQuadratureRule(t *testing.T) {
	x, w := hermiteNodes()
	worst := 0.0
	for _, rho := range []float64{0, 0.05, 0.5, 0.9, 0.98} {
		for _, r := range []int{1, 3, 9} {
			for _, dev := range []float64{-6, -1, 0, 2, 8} {
				for _, cut := range []float64{-1, 1, 1.84, 4} {
					c := equiConditional(rho, 10-r, dev)
					g1, g2 := truncatedMoments(c, 1-rho, cut, r, x, w)
					f1, f2 := bruteMoments(c, 1-rho, cut, r)
					d := max(math.Abs(g1-f1)/(1+math.Abs(f1)), math.Abs(g2-f2)/(1+math.Abs(f2)))
					worst = max(worst, d)
					if !(d < 1e-9) {
						t.Errorf("ρ=%v r=%d dev=%v cut=%v: (%v, %v) vs brute force (%v, %v)", rho, r, dev, cut, g1, g2, f1, f2)
					}
				}
			}
		}
	}
	t.Logf("largest relative difference to brute force: %.2g", worst)
}

// tail is P(W > α) from erfc (gonum's Survival is 1 − erf: 0 beyond α ≈ 8).
func tail(alpha float64) float64 { return math.Erfc(alpha/math.Sqrt2) / 2 }

// TestNormalTail checks normTail on both sides of their
// switch to the continued fraction at α = 35, against the asymptotic
// series Φ̄(α)/φ(α) = (1/α)(1 − 1/α² + 3/α⁴ − … + 10395/α¹² − …), whose
// truncation error there is below 1e-13 relative.
func TestNormalTail(t *testing.T) {
	for _, a := range []float64{30, 34.999, 35, 35.001, 40, 100, 1e4} {
		a2 := a * a
		series := (1 - 1/a2 + 3/math.Pow(a2, 2) - 15/math.Pow(a2, 3) + 105/math.Pow(a2, 4) -
			945/math.Pow(a2, 5) + 10395/math.Pow(a2, 6)) / a
		wantLog := -a2/2 - 0.5*math.Log(2*math.Pi) + math.Log(series)
		gotLog, gotLam := normTail(a)
		if math.Abs(gotLog-wantLog) > 1e-12*math.Abs(wantLog) {
			t.Errorf("log tail at %v = %.17g, series %.17g", a, gotLog, wantLog)
		}
		if math.Abs(gotLam*series-1) > 1e-12 {
			t.Errorf("inverse Mills ratio at %v = %.17g, series %.17g", a, gotLam, 1/series)
		}
	}
	for _, a := range []float64{-40, -5, 0, 1, 5} {
		want := distuv.UnitNormal.Prob(a) / tail(a)
		if _, got := normTail(a); math.Abs(got-want) > 1e-13*(1+want) {
			t.Errorf("inverse Mills ratio at %v = %v, want %v", a, got, want)
		}
	}
}

// bruteMoments is truncatedMoments by a fixed composite rule in z.
func bruteMoments(c equiCond, v, cut float64, r int) (e1, e2 float64) {
	const panels, per, lim = 3000, 8, 60.0
	xs, ws := make([]float64, per), make([]float64, per)
	s, b := math.Sqrt(v), math.Sqrt(c.cv)
	var zs, lw []float64
	top := math.Inf(-1)
	for p := range panels {
		lo := -lim + float64(p)*2*lim/panels
		quad.Legendre{}.FixedLocations(xs, ws, lo, lo+2*lim/panels)
		for i, z := range xs {
			l := math.Log(ws[i]) - z*z/2 + float64(r)*math.Log(tail((cut-c.mean-b*z)/s))
			zs, lw = append(zs, z), append(lw, l)
			top = max(top, l)
		}
	}
	var tot float64
	for i, z := range zs {
		wt := math.Exp(lw[i] - top)
		a := c.mean + b*z
		alpha := (cut - a) / s
		lam := 0.0
		if surv := tail(alpha); surv > 0 {
			lam = distuv.UnitNormal.Prob(alpha) / surv
		}
		tot += wt
		e1 += wt * (a + s*lam)
		e2 += wt * (a*a + 2*a*s*lam + v*(1+alpha*lam))
	}
	return e1 / tot, e2 / tot
}

// TestCensoredAgainstRejection checks the truncated conditional moments by
// an independent route: the conditional Gaussian of the missing block from
// gonum's dense algebra (not the equicorrelated closed form), sampled by
// Cholesky and kept only when every censored entry exceeds the threshold.
func TestCensoredAgainstRejection(t *testing.T) {
	nan := math.NaN()
	rows := [][]float64{
		{nan, 1.2, nan, 0.4, 2.0, nan, 1.0, 0.1, 1.6},
		{nan, nan, nan, 1.3, 1.1, 1.6, 0.9, 1.5, 1.2},
		{0.5, nan, 1.4, 1.1, 0.9, 1.3, 0.2, 0.8, 1.0},
	}
	for _, rho := range []float64{0.3, 0.8} {
		s := censored(t, Quadratic, rho, 0.5, seq(9))
		cut := CensorThreshold(0.5)
		for ri, row := range rows {
			got, err := BayesPredict(s, mat.NewDense(1, 9, row))
			if err != nil {
				t.Fatal(err)
			}
			mean, se := rejectionQuadratic(t, rho, cut, row, rand.New(rand.NewPCG(7, uint64(ri))))
			near(t, "quadratic censored Bayes", got[0], mean, se, 4)
		}
	}
}

// rejectionQuadratic estimates E[X1² + X2² + X3² | x_o, X_m > cut] by
// rejection sampling, returning the mean and its standard error.
func rejectionQuadratic(t *testing.T, rho, cut float64, row []float64, r *rand.Rand) (mean, se float64) {
	t.Helper()
	var o, m []int
	for j, v := range row {
		if math.IsNaN(v) {
			m = append(m, j)
		} else {
			o = append(o, j)
		}
	}
	sig := func(a, b []int) *mat.Dense {
		out := mat.NewDense(len(a), len(b), nil)
		for i, ai := range a {
			for j, bj := range b {
				v := rho
				if ai == bj {
					v = 1
				}
				out.Set(i, j, v)
			}
		}
		return out
	}
	cmean, ccov := mat.NewVecDense(len(m), nil), mat.DenseCopyOf(sig(m, m))
	for i := range m {
		cmean.SetVec(i, 1)
	}
	if len(o) > 0 {
		var soo mat.Dense
		if err := soo.Inverse(sig(o, o)); err != nil {
			t.Fatal(err)
		}
		var k mat.Dense
		k.Mul(sig(m, o), &soo)
		dev := mat.NewVecDense(len(o), nil)
		for i, j := range o {
			dev.SetVec(i, row[j]-1)
		}
		var shift mat.VecDense
		shift.MulVec(&k, dev)
		cmean.AddVec(cmean, &shift)
		var reduce mat.Dense
		reduce.Mul(&k, sig(o, m))
		ccov.Sub(ccov, &reduce)
	}
	var chol mat.Cholesky
	if !chol.Factorize(mat.NewSymDense(len(m), ccov.RawMatrix().Data)) {
		t.Fatal("conditional covariance not positive definite")
	}
	var lower mat.TriDense
	chol.LTo(&lower)
	var sum, sumSq float64
	kept := 0
	z, x := mat.NewVecDense(len(m), nil), mat.NewVecDense(len(m), nil)
	for tries := 0; kept < 40000; tries++ {
		if tries > 4e6 {
			t.Fatalf("acceptance %d/%d too low for rejection sampling", kept, tries)
		}
		for i := range m {
			z.SetVec(i, r.NormFloat64())
		}
		x.MulVec(&lower, z)
		x.AddVec(x, cmean)
		ok := true
		for i := range m {
			ok = ok && x.AtVec(i) > cut
		}
		if !ok {
			continue
		}
		y := 0.0
		for j := 0; j < 3; j++ {
			v := row[j]
			for i, mj := range m {
				if mj == j {
					v = x.AtVec(i)
				}
			}
			y += v * v
		}
		sum += y
		sumSq += y * y
		kept++
	}
	n := float64(kept)
	mean = sum / n
	return mean, math.Sqrt((sumSq/n - mean*mean) / n)
}

// TestCensoredBayesRisk draws a large data set with the empirical-quantile
// censoring of Generate and checks three properties of the population
// Bayes predictor on it: its test MSE matches BayesRisk, its residuals
// average zero within each number of censored entries (orthogonality to
// the mask), and it beats the Gaussian conditional mean that ignores what
// censoring says (the MCAR formula applied to MNAR data).
func TestCensoredBayesRisk(t *testing.T) {
	if testing.Short() {
		t.Skip("1M-row Monte Carlo")
	}
	for _, model := range []string{Quadratic, Linear} {
		s := censored(t, model, 0.5, 0.3, nil)
		s.NTest = 200000
		rep, err := Generate(s, 11, 0)
		if err != nil {
			t.Fatal(err)
		}
		pred, err := BayesPredict(s, rep.Test.X)
		if err != nil {
			t.Fatal(err)
		}
		risk, rse, err := BayesRisk(s)
		if err != nil {
			t.Fatal(err)
		}
		naive := newLaw(s)
		var sq, sqNaive float64
		byCount := map[int][3]float64{} // sum, sum of squares, count of residuals
		for i, p := range pred {
			row := rep.Test.X.RawRowView(i)
			e := rep.Test.Y[i] - p
			en := rep.Test.Y[i] - naive.bayesGaussian(row)
			sq += e * e
			sqNaive += en * en
			k := 0
			for _, v := range row {
				if math.IsNaN(v) {
					k++
				}
			}
			c := byCount[k]
			byCount[k] = [3]float64{c[0] + e, c[1] + e*e, c[2] + 1}
		}
		n := float64(len(pred))
		mse := sq / n
		near(t, model+" test MSE vs BayesRisk", mse, risk, math.Hypot(rse, 2*risk/math.Sqrt(n)), 4)
		if !(sqNaive/n > 1.2*mse) {
			t.Errorf("%s: the predictor ignoring censoring has MSE %.4g, Bayes %.4g: censoring should matter", model, sqNaive/n, mse)
		}
		for k, c := range byCount {
			if c[2] < 1000 {
				continue
			}
			m := c[0] / c[2]
			near(t, fmt.Sprintf("%s mean residual with %d censored", model, k), m, 0, math.Sqrt((c[1]/c[2]-m*m)/c[2]), 4)
		}
		t.Logf("%s: Bayes risk %.5g ± %.2g, test MSE %.5g, ignoring censoring %.5g", model, risk, rse, mse, sqNaive/n)
	}
}
