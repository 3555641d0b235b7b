package ampute

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// sampleSize returns n, or n/10 under -short.
func sampleSize(n int) int {
	if testing.Short() {
		return n / 10
	}
	return n
}

// gaussian draws n rows of q standard normal columns with AR(1)
// correlation rho between neighbouring columns.
func gaussian(n, q int, rho float64, seed uint64) *mat.Dense {
	r := rand.New(rand.NewPCG(seed, 17))
	Z := mat.NewDense(n, q, nil)
	s := math.Sqrt(1 - rho*rho)
	for i := 0; i < n; i++ {
		row := Z.RawRowView(i)
		row[0] = r.NormFloat64()
		for j := 1; j < q; j++ {
			row[j] = rho*row[j-1] + s*r.NormFloat64()
		}
	}
	return Z
}

// singletons returns the groups of q numeric features, one column each.
func singletons(q int) [][]int {
	g := make([][]int, q)
	for j := range g {
		g[j] = []int{j}
	}
	return g
}

// rng returns a PCG stream for a test.
func rng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 99)) }

// fitApply fits s on Z and applies it to Z with a second stream.
func fitApply(t *testing.T, Z *mat.Dense, groups [][]int, s Spec, seed uint64) (*Model, *Mask) {
	t.Helper()
	m, err := Fit(Z, groups, s, rng(seed))
	if err != nil {
		t.Fatal(err)
	}
	mask, err := m.Apply(Z, rng(seed+1))
	if err != nil {
		t.Fatal(err)
	}
	return m, mask
}

// logit is a logistic regression of y on the columns xs with an intercept,
// fitted by iteratively reweighted least squares with gonum.
type logit struct {
	beta []float64  // intercept first, then one per column of xs
	cov  *mat.Dense // inverse Fisher information at beta
}

// t returns the Wald t statistic of coefficient j (0 is the intercept).
func (l logit) t(j int) float64 { return l.beta[j] / math.Sqrt(l.cov.At(j, j)) }

// wald returns the Wald χ² statistic of the joint null beta[idx] = 0.
func (l logit) wald(tb testing.TB, idx ...int) float64 {
	k := len(idx)
	sub := mat.NewDense(k, k, nil)
	b := mat.NewVecDense(k, nil)
	for a, i := range idx {
		b.SetVec(a, l.beta[i])
		for c, j := range idx {
			sub.Set(a, c, l.cov.At(i, j))
		}
	}
	var x mat.VecDense
	if err := x.SolveVec(sub, b); err != nil {
		tb.Fatal(err)
	}
	return mat.Dot(b, &x)
}

// fitLogit fits P(y = 1) = σ(β₀ + Σ β_j xs_j) by Newton–Raphson.
func fitLogit(tb testing.TB, y []bool, xs ...[]float64) logit {
	tb.Helper()
	n, p := len(y), len(xs)+1
	X := mat.NewDense(n, p, nil)
	for i := 0; i < n; i++ {
		X.Set(i, 0, 1)
		for j, x := range xs {
			X.Set(i, j+1, x[i])
		}
	}
	beta := mat.NewVecDense(p, nil)
	var info mat.SymDense
	for iter := 0; iter < 50; iter++ {
		var eta mat.VecDense
		eta.MulVec(X, beta)
		grad := mat.NewVecDense(p, nil)
		info.Reset()
		info.ReuseAsSym(p)
		for i := 0; i < n; i++ {
			pi := 1 / (1 + math.Exp(-eta.AtVec(i)))
			yi := 0.0
			if y[i] {
				yi = 1
			}
			row := X.RawRowView(i)
			for a := 0; a < p; a++ {
				grad.SetVec(a, grad.AtVec(a)+row[a]*(yi-pi))
				for b := a; b < p; b++ {
					info.SetSym(a, b, info.At(a, b)+row[a]*row[b]*pi*(1-pi))
				}
			}
		}
		var chol mat.Cholesky
		if !chol.Factorize(&info) {
			tb.Fatal("logistic regression: information matrix not positive definite")
		}
		var step mat.VecDense
		if err := chol.SolveVecTo(&step, grad); err != nil {
			tb.Fatal(err)
		}
		beta.AddVec(beta, &step)
		if mat.Norm(&step, math.Inf(1)) < 1e-10 {
			var cov mat.SymDense
			if err := chol.InverseTo(&cov); err != nil {
				tb.Fatal(err)
			}
			return logit{beta: mat.Col(nil, 0, beta), cov: mat.DenseCopyOf(&cov)}
		}
	}
	tb.Fatal("logistic regression did not converge")
	return logit{}
}

// col returns column j of Z.
func col(Z *mat.Dense, j int) []float64 { return mat.Col(nil, j, Z) }

// maskCol returns the mask of feature f as a []bool.
func maskCol(m *Mask, f int) []bool {
	y := make([]bool, m.Rows)
	for i := range y {
		y[i] = m.Amputed(i, f)
	}
	return y
}

// near fails unless |got − want| ≤ k·se.
func near(t *testing.T, what string, got, want, se, k float64) {
	t.Helper()
	if math.Abs(got-want) > k*se {
		t.Errorf("%s = %.5f, want %.5f ± %.1f·%.5f (off by %.1f se)", what, got, want, k, se, math.Abs(got-want)/se)
	}
}
