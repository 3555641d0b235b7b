package impute

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// gaussianSample draws n rows of N(mu, sigma) and masks each entry of the
// columns in cols with probability p.
func gaussianSample(rng *rand.Rand, n int, mu []float64, sigma *mat.SymDense, p float64, cols []int) *mat.Dense {
	d := len(mu)
	var ch mat.Cholesky
	if !ch.Factorize(sigma) {
		panic("sigma not positive definite")
	}
	var L mat.TriDense
	ch.LTo(&L)
	X := mat.NewDense(n, d, nil)
	z := make([]float64, d)
	for i := range n {
		for j := range z {
			z[j] = rng.NormFloat64()
		}
		row := X.RawRowView(i)
		for a := range d {
			v := mu[a]
			for b := 0; b <= a; b++ {
				v += L.At(a, b) * z[b]
			}
			row[a] = v
		}
		for _, j := range cols {
			if rng.Float64() < p {
				row[j] = math.NaN()
			}
		}
	}
	return X
}

func equicorrelated(d int, rho float64) *mat.SymDense {
	s := mat.NewSymDense(d, nil)
	for a := range d {
		for b := a; b < d; b++ {
			v := rho
			if a == b {
				v = 1
			}
			s.SetSym(a, b, v)
		}
	}
	return s
}

func near(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// TestEMBivariateMonotone checks the EM fixed point against the
// closed-form MLE of the paper's Appendix "Example of EM algorithm" for
// (X1, X2) with X1 complete and X2 observed on r rows (Anderson 1957;
// Little & Rubin 2002, §7.2): μ̂1 = mean of all x1; β̂21.1 = s12/s11 and
// β̂20.1 = x̄2 − β̂21.1 x̄1 on the r complete rows (divisor r); μ̂2 =
// β̂20.1 + β̂21.1 μ̂1; σ̂11 = all-row variance of x1 (divisor n);
// σ̂12 = β̂21.1 σ̂11; σ̂22 = s22.1 + β̂21.1² σ̂11 with s22.1 = s22 − s12²/s11.
func TestEMBivariateMonotone(t *testing.T) {
	cases := []struct {
		name    string
		n, r    int
		rho, mu float64
		seed    uint64
	}{
		{"n200 r120 rho0.5", 200, 120, 0.5, 1, 1},
		{"n500 r100 rho-0.8", 500, 100, -0.8, -3, 2},
		{"n50 r45 rho0.2", 50, 45, 0.2, 10, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(c.seed, 7))
			sigma := mat.NewSymDense(2, []float64{2, c.rho * math.Sqrt(2*3), c.rho * math.Sqrt(2*3), 3})
			X := gaussianSample(rng, c.n, []float64{c.mu, -c.mu}, sigma, 0, nil)
			for i := c.r; i < c.n; i++ {
				X.Set(i, 1, math.NaN())
			}
			wantMu, wantSigma := monotoneMLE(X, c.r)
			est, err := EM(context.Background(), X, EMOptions{Tol: 1e-14, MaxIter: 100000})
			if err != nil {
				t.Fatal(err)
			}
			if !est.Converged {
				t.Fatalf("EM did not converge in %d iterations", est.Iter)
			}
			for a := range 2 {
				if !near(est.Mu[a], wantMu[a], 1e-8) {
					t.Errorf("mu[%d] = %.12g, closed form %.12g", a, est.Mu[a], wantMu[a])
				}
				for b := range 2 {
					if !near(est.Sigma.At(a, b), wantSigma[a][b], 1e-8) {
						t.Errorf("sigma[%d][%d] = %.12g, closed form %.12g", a, b, est.Sigma.At(a, b), wantSigma[a][b])
					}
				}
			}
		})
	}
}

// monotoneMLE is the closed form above, computed without any EM code.
func monotoneMLE(X *mat.Dense, r int) ([]float64, [2][2]float64) {
	n, _ := X.Dims()
	mu1 := 0.0
	for i := range n {
		mu1 += X.At(i, 0)
	}
	mu1 /= float64(n)
	var x1, x2 float64
	for i := range r {
		x1 += X.At(i, 0)
		x2 += X.At(i, 1)
	}
	x1, x2 = x1/float64(r), x2/float64(r)
	var s11, s12, s22 float64
	for i := range r {
		a, b := X.At(i, 0)-x1, X.At(i, 1)-x2
		s11 += a * a / float64(r)
		s12 += a * b / float64(r)
		s22 += b * b / float64(r)
	}
	b21 := s12 / s11
	b20 := x2 - b21*x1
	v11 := 0.0
	for i := range n {
		v11 += (X.At(i, 0) - mu1) * (X.At(i, 0) - mu1) / float64(n)
	}
	v12 := b21 * v11
	v22 := s22 - s12*s12/s11 + b21*b21*v11
	return []float64{mu1, b20 + b21*mu1}, [2][2]float64{{v11, v12}, {v12, v22}}
}

type golden struct {
	Mu           []float64   `json:"mu"`
	Sigma        [][]float64 `json:"sigma"`
	LogLik       float64     `json:"loglik"`
	Shrink       float64     `json:"shrink"`
	SigmaShrunk  [][]float64 `json:"sigma_shrunk"`
	ImputedTrain [][]float64 `json:"imputed_train"`
	ImputedTest  [][]float64 `json:"imputed_test"`
}

func readCSV(t *testing.T, path string) *mat.Dense {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows [][]float64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var row []float64
		for _, s := range strings.Split(sc.Text(), ",") {
			v := math.NaN()
			if s != "NA" {
				if v, err = strconv.ParseFloat(s, 64); err != nil {
					t.Fatal(err)
				}
			}
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	return dense(rows...)
}

func readGolden(t *testing.T) (train, test *mat.Dense, g golden) {
	t.Helper()
	b, err := os.ReadFile("testdata/em_d5_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return readCSV(t, "testdata/em_d5_train.csv"), readCSV(t, "testdata/em_d5_test.csv"), g
}

// TestEMGolden compares with testdata/gen_em_golden.py, an independent
// row-by-row numpy EM, on d = 5 with a general (non-monotone) pattern,
// a fully missing training row and unseen test patterns.
func TestEMGolden(t *testing.T) {
	train, test, g := readGolden(t)
	est, err := EM(context.Background(), train, EMOptions{Tol: 1e-13, MaxIter: 100000})
	if err != nil || !est.Converged {
		t.Fatalf("EM: %v, converged %v", err, est != nil && est.Converged)
	}
	for a := range g.Mu {
		if !near(est.Mu[a], g.Mu[a], 1e-9) {
			t.Errorf("mu[%d] = %.12g, numpy %.12g", a, est.Mu[a], g.Mu[a])
		}
		for b := range g.Mu {
			if !near(est.Sigma.At(a, b), g.Sigma[a][b], 1e-9) {
				t.Errorf("sigma[%d][%d] = %.12g, numpy %.12g", a, b, est.Sigma.At(a, b), g.Sigma[a][b])
			}
		}
	}
	ll, err := ObservedLogLik(train, est.Mu, est.Sigma)
	if err != nil || !near(ll, g.LogLik, 1e-10) {
		t.Errorf("loglik %.12g (%v), scipy %.12g", ll, err, g.LogLik)
	}
	tr, err := Gaussian{Shrink: g.Shrink, EM: EMOptions{Tol: 1e-13, MaxIter: 100000}}.Fit(context.Background(), train)
	if err != nil {
		t.Fatal(err)
	}
	gf := tr.(*GaussianFit)
	if !same(mat.NewDense(5, 5, symRaw(gf.Sigma)), dense(g.SigmaShrunk...), 1e-9) {
		t.Errorf("shrunk sigma\n%v\nwant %v", mat.Formatted(gf.Sigma), g.SigmaShrunk)
	}
	for _, c := range []struct {
		name string
		X    *mat.Dense
		want [][]float64
	}{{"train", train, g.ImputedTrain}, {"test", test, g.ImputedTest}} {
		got, err := tr.Transform(c.X)
		if err != nil {
			t.Fatal(err)
		}
		if !same(got, dense(c.want...), 1e-8) {
			t.Errorf("%s imputation differs from numpy", c.name)
		}
	}
}

// TestEMLogLikMonotone checks the defining EM property: the observed
// log-likelihood never decreases from one iterate to the next.
func TestEMLogLikMonotone(t *testing.T) {
	train, _, g := readGolden(t)
	est, err := EM(context.Background(), train, EMOptions{LogLik: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(est.LogLik) != est.Iter || est.Iter < 5 {
		t.Fatalf("%d log-likelihoods for %d iterations", len(est.LogLik), est.Iter)
	}
	for k := 1; k < len(est.LogLik); k++ {
		if est.LogLik[k] < est.LogLik[k-1]-1e-9 {
			t.Errorf("loglik decreased at %d: %.12g → %.12g", k, est.LogLik[k-1], est.LogLik[k])
		}
	}
	if last := est.LogLik[len(est.LogLik)-1]; last > g.LogLik+1e-9 || !near(last, g.LogLik, 1e-6) {
		t.Errorf("final loglik %.12g, maximum %.12g", last, g.LogLik)
	}
}

// TestEMRecoversGaussian draws a large MCAR sample from a known Gaussian
// and checks each estimate within 4.5 standard errors. The standard
// errors use the complete-data formulas (mean σ_jj/m, covariance
// (σ_jj σ_kk + σ_jk²)/m) with m = n·(1−p)², the expected number of rows
// observing a pair, which is conservative under MCAR.
func TestEMRecoversGaussian(t *testing.T) {
	const n, p = 20000, 0.3
	mu := []float64{1, -2, 0.5, 4}
	sigma := mat.NewSymDense(4, []float64{
		2, 0.8, -0.5, 0.3,
		0.8, 1, 0.2, 0,
		-0.5, 0.2, 1.5, 0.6,
		0.3, 0, 0.6, 0.7,
	})
	X := gaussianSample(rand.New(rand.NewPCG(11, 12)), n, mu, sigma, p, []int{0, 1, 2, 3})
	est, err := EM(context.Background(), X, EMOptions{})
	if err != nil || !est.Converged {
		t.Fatalf("EM: %v", err)
	}
	neff := n * (1 - p) * (1 - p)
	for a := range 4 {
		if se := math.Sqrt(sigma.At(a, a) / neff); math.Abs(est.Mu[a]-mu[a]) > 4.5*se {
			t.Errorf("mu[%d] = %.4f, true %.4f (se %.4f)", a, est.Mu[a], mu[a], se)
		}
		for b := a; b < 4; b++ {
			s := sigma.At(a, b)
			se := math.Sqrt((sigma.At(a, a)*sigma.At(b, b) + s*s) / neff)
			if math.Abs(est.Sigma.At(a, b)-s) > 4.5*se {
				t.Errorf("sigma[%d][%d] = %.4f, true %.4f (se %.4f)", a, b, est.Sigma.At(a, b), s, se)
			}
		}
	}
}

// TestEMComplete: without NA, EM returns the sample mean and the
// divisor-n sample covariance after one update and stops at the second.
func TestEMComplete(t *testing.T) {
	X := dense([]float64{1, 2}, []float64{3, 0}, []float64{2, 7}, []float64{6, 3})
	est, err := EM(context.Background(), X, EMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Means 3, 3; deviations (−2,−1), (0,−3), (−1,4), (3,0).
	want := [][]float64{{(4 + 0 + 1 + 9) / 4.0, (2 + 0 - 4 + 0) / 4.0}, {-0.5, (1 + 9 + 16 + 0) / 4.0}}
	if est.Mu[0] != 3 || est.Mu[1] != 3 || est.Iter != 2 || !est.Converged {
		t.Fatalf("mu %v after %d iterations", est.Mu, est.Iter)
	}
	for a := range 2 {
		for b := range 2 {
			if !near(est.Sigma.At(a, b), want[a][b], 1e-14) {
				t.Errorf("sigma[%d][%d] = %v, want %v", a, b, est.Sigma.At(a, b), want[a][b])
			}
		}
	}
}
