package sim

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/mat"
)

// equiSigma returns the d × d matrix ρ11ᵀ + (1−ρ)I.
func equiSigma(d int, rho float64) *mat.SymDense {
	s := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			v := rho
			if i == j {
				v = 1
			}
			s.SetSym(i, j, v)
		}
	}
	return s
}

// schur returns the conditional mean and covariance of X_m given
// X_o = xo for X ~ N(1, Σ), by the textbook Schur complement with a
// Cholesky solve (no use of the equicorrelated structure).
func schur(t testing.TB, sigma *mat.SymDense, obs, miss []int, xo []float64) ([]float64, *mat.Dense) {
	t.Helper()
	sub := func(rows, cols []int) *mat.Dense {
		m := mat.NewDense(max(len(rows), 1), max(len(cols), 1), nil)
		for i, r := range rows {
			for j, c := range cols {
				m.Set(i, j, sigma.At(r, c))
			}
		}
		return m
	}
	smm := sub(miss, miss)
	mean := make([]float64, len(miss))
	for i := range mean {
		mean[i] = 1
	}
	if len(obs) == 0 {
		return mean, smm
	}
	soo := mat.NewSymDense(len(obs), nil)
	for i, r := range obs {
		for j, c := range obs {
			soo.SetSym(i, j, sigma.At(r, c))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(soo) {
		t.Fatal("Σ_oo not positive definite")
	}
	dev := mat.NewVecDense(len(obs), nil)
	for i := range obs {
		dev.SetVec(i, xo[i]-1)
	}
	smo := sub(miss, obs)
	var w mat.VecDense
	if err := ch.SolveVecTo(&w, dev); err != nil {
		t.Fatal(err)
	}
	var shift mat.VecDense
	shift.MulVec(smo, &w)
	for i := range mean {
		mean[i] += shift.AtVec(i)
	}
	var sol, corr mat.Dense
	if err := ch.SolveTo(&sol, smo.T()); err != nil {
		t.Fatal(err)
	}
	corr.Mul(smo, &sol)
	smm.Sub(smm, &corr)
	return mean, smm
}

// TestEquiConditionalSchur checks the closed-form conditional law of the
// equicorrelated Gaussian against the generic Schur complement.
func TestEquiConditionalSchur(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		d   int
		rho float64
	}{{9, 0.5}, {10, -0.1}, {5, 0.95}, {12, 0}} {
		sigma := equiSigma(c.d, c.rho)
		for trial := 0; trial < 20; trial++ {
			var obs, miss []int
			var xo []float64
			sum := 0.0
			for j := 0; j < c.d; j++ {
				if r.Float64() < 0.5 || (j == c.d-1 && len(miss) == 0) {
					miss = append(miss, j)
					continue
				}
				v := 1 + 2*r.NormFloat64()
				obs, xo, sum = append(obs, j), append(xo, v), sum+v-1
			}
			mean, cov := schur(t, sigma, obs, miss, xo)
			got := equiConditional(c.rho, len(obs), sum)
			for i := range miss {
				if math.Abs(mean[i]-got.mean) > 1e-12 {
					t.Errorf("d=%d ρ=%v: mean %v vs Schur %v", c.d, c.rho, got.mean, mean[i])
				}
				for j := range miss {
					want, g := cov.At(i, j), got.cv
					if i == j {
						g = got.vr
					}
					if math.Abs(g-want) > 1e-12 {
						t.Errorf("d=%d ρ=%v k=%d: cov(%d,%d) %v vs Schur %v", c.d, c.rho, len(obs), i, j, g, want)
					}
				}
			}
		}
	}
}

// bruteSinProduct integrates sin(π·X1·X2) against N(m, C) by a tensor
// composite Gauss–Legendre rule over ±10 standard deviations of the
// Cholesky coordinates (1-D when a variance is zero).
func bruteSinProduct(m1, m2, c11, c12, c22 float64) float64 {
	const panels, per, lim = 120, 8, 10.0
	xs, ws := make([]float64, 0, panels*per), make([]float64, 0, panels*per)
	x, w := make([]float64, per), make([]float64, per)
	width := 2 * lim / panels
	for p := 0; p < panels; p++ {
		lo := -lim + float64(p)*width
		quad.Legendre{}.FixedLocations(x, w, lo, lo+width)
		for i := range x {
			xs = append(xs, x[i])
			ws = append(ws, w[i]*math.Exp(-x[i]*x[i]/2)/math.Sqrt(2*math.Pi))
		}
	}
	l11 := math.Sqrt(c11)
	var l21, l22 float64
	if l11 > 0 {
		l21 = c12 / l11
	}
	l22 = math.Sqrt(math.Max(c22-l21*l21, 0))
	sum := 0.0
	for i, z1 := range xs {
		x1 := m1 + l11*z1
		if l22 == 0 {
			sum += ws[i] * math.Sin(math.Pi*x1*(m2+l21*z1))
			continue
		}
		for j, z2 := range xs {
			sum += ws[i] * ws[j] * math.Sin(math.Pi*x1*(m2+l21*z1+l22*z2))
		}
	}
	if l11 == 0 && l22 == 0 {
		return math.Sin(math.Pi * m1 * m2)
	}
	if l11 == 0 { // only X2 random: integrate over z2 alone
		sum = 0
		for j, z2 := range xs {
			sum += ws[j] * math.Sin(math.Pi*m1*(m2+l22*z2))
		}
	}
	return sum
}

// TestExpSinProduct checks the closed form of E[sin(πX1X2)] against
// brute-force quadrature for both-missing, one-missing and degenerate
// conditional laws, including strong correlation.
func TestExpSinProduct(t *testing.T) {
	cases := [][5]float64{
		{1, 1, 1, 0.5, 1},
		{0.3, 1.7, 0.6, 0.2, 0.4},
		{1.2, 0.8, 0.3, -0.25, 0.5},
		{1, 1, 0.99, 0.98, 0.99},
		{1.4, 0.6, 0, 0, 0.75}, // X1 observed
		{0.5, 2.1, 0.4, 0, 0},  // X2 observed
		{0.7, 1.3, 0, 0, 0},    // both observed
		{2, -1, 0.0025, 0, 0.0025},
	}
	for _, c := range cases {
		got := expSinProduct(c[0], c[1], c[2], c[3], c[4])
		want := bruteSinProduct(c[0], c[1], c[2], c[3], c[4])
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("E[sin(πX1X2)] for m=(%v,%v) C=(%v,%v,%v): closed form %.12g, quadrature %.12g",
				c[0], c[1], c[2], c[3], c[4], got, want)
		}
	}
}

// TestHiddenRowMatchesProductCF checks the real-arithmetic specialisation
// of Model 4's conditional mean against the general complex formula.
func TestHiddenRowMatchesProductCF(t *testing.T) {
	const tau2 = featureNoise * featureNoise
	r := rand.New(rand.NewPCG(3, 4))
	coef := friedmanHigh
	for trial := 0; trial < 200; trial++ {
		x := make([]float64, 10)
		g := make([]float64, 10)
		for j := range x {
			x[j], g[j] = 3*r.NormFloat64(), 3*r.NormFloat64()
			if r.Float64() < 0.5 {
				x[j] = math.NaN()
			}
		}
		row := newHiddenRow(x)
		got := row.mean(&coef, g)
		mv := func(j int) (float64, float64) {
			if math.IsNaN(x[j]) {
				return g[j], tau2
			}
			return x[j], 0
		}
		m1, v1 := mv(0)
		m2, v2 := mv(1)
		m3, v3 := mv(2)
		m4, _ := mv(3)
		m5, _ := mv(4)
		want := coef[0]*expSinProduct(m1, m2, v1, 0, v2) + coef[1]*((m3-0.5)*(m3-0.5)+v3) + coef[2]*m4 + coef[3]*m5
		if math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
			t.Fatalf("x=%v g=%v: %v vs %v", x, g, got, want)
		}
	}
}
