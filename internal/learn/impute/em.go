package impute

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// EM defaults: the tolerance the paper's code passed to R's norm::em.norm
// (sqrt of the float64 machine epsilon) and norm's iteration cap.
const (
	DefaultTol     = 1.4901161193847656e-08
	DefaultMaxIter = 1000
)

// EMOptions controls EM. Zero fields take the defaults.
type EMOptions struct {
	// Tol stops EM once no parameter moves by more than Tol on the scale
	// of the data: |Δμ_j| ≤ Tol·s_j and |ΔΣ_jk| ≤ Tol·s_j·s_k, where s_j
	// is the observed standard deviation of column j (1 if undefined).
	// Default DefaultTol.
	Tol float64
	// MaxIter caps the number of EM updates. Default DefaultMaxIter.
	MaxIter int
	// LogLik records the observed-data log-likelihood ℓ(θ_t) of every
	// iterate in Estimate.LogLik (costs about one extra E-step each).
	LogLik bool
}

// Estimate is the result of EM: the maximum-likelihood mean and
// covariance (divisor n, no shrinkage) of a Gaussian fitted to an
// incomplete matrix under MAR.
type Estimate struct {
	Mu    []float64
	Sigma *mat.SymDense
	// Iter is the number of EM updates performed; Converged reports that
	// the last one met the tolerance (if not, Mu and Sigma are the last
	// iterate, as norm's em.norm returns after maxits).
	Iter      int
	Converged bool
	// LogLik[t] is ℓ(θ_t) for the starting point t = 0 and every iterate
	// before the last update; nil unless EMOptions.LogLik.
	LogLik []float64
}

// EM estimates the mean and covariance of a multivariate Gaussian from
// X (n × d, NaN = NA) by the EM algorithm of the paper's Appendix
// "Example of EM algorithm" extended to d dimensions: the E-step fills
// the sufficient statistics Σx and Σxxᵀ with the conditional
// expectations E[x_m | x_o] = μ_m + Σ_mo Σ_oo⁻¹ (x_o − μ_o) and adds the
// conditional covariances Σ_mm − Σ_mo Σ_oo⁻¹ Σ_om; the M-step sets
// μ = Σx/n and Σ = Σxxᵀ/n − μμᵀ. Rows are grouped by missingness pattern
// so each pattern costs one Cholesky factorisation of Σ_oo per
// iteration. The start is norm's: observed column means and variances,
// zero covariances. A column with no observed entry keeps μ_j = 0,
// Σ_jj = 1 and zero covariances (it is not identified).
//
// A Σ_oo that is numerically singular (some observed column has less
// than 1e-14 of its variance unexplained by the others, e.g. two
// observed columns that are exact copies) is factorised with a jitter of
// eps times each diagonal entry, eps = 1e-12 raised ×100 up to 1e-4;
// An error wrapping learnerr.ErrNumerical is returned if that fails.
func EM(ctx context.Context, X *mat.Dense, opt EMOptions) (*Estimate, error) {
	if err := checkTrain(ctx, X); err != nil {
		return nil, err
	}
	if opt.Tol <= 0 {
		opt.Tol = DefaultTol
	}
	if opt.MaxIter <= 0 {
		opt.MaxIter = DefaultMaxIter
	}
	st := newEMState(X)
	mu, sigma, scale := startValues(X)
	est := &Estimate{}
	for est.Iter < opt.MaxIter {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if opt.LogLik {
			ll, err := st.logLik(mu, sigma)
			if err != nil {
				return nil, err
			}
			est.LogLik = append(est.LogLik, ll)
		}
		nmu, nsigma, err := st.update(mu, sigma)
		if err != nil {
			return nil, err
		}
		est.Iter++
		done := maxChange(mu, nmu, sigma, nsigma, scale) <= opt.Tol
		mu, sigma = nmu, nsigma
		if done {
			est.Converged = true
			break
		}
	}
	est.Mu, est.Sigma = mu, mat.NewSymDense(st.d, sigma)
	return est, nil
}

// ObservedLogLik returns the observed-data log-likelihood of X under
// N(mu, sigma), Σ_i log φ(x_{i,o}; μ_o, Σ_oo), including the 2π terms;
// fully missing rows contribute 0. It uses the jitter rule of EM.
func ObservedLogLik(X *mat.Dense, mu []float64, sigma mat.Symmetric) (float64, error) {
	if X == nil || X.IsEmpty() {
		return 0, fmt.Errorf("impute: no data: %w", learnerr.ErrInput)
	}
	if err := checkCols(X, len(mu)); err != nil {
		return 0, err
	}
	if sigma.SymmetricDim() != len(mu) {
		return 0, fmt.Errorf("impute: sigma is %d×%d for %d means: %w", sigma.SymmetricDim(), sigma.SymmetricDim(), len(mu), learnerr.ErrInput)
	}
	return newEMState(X).logLik(mu, symRaw(sigma))
}

// emState holds the data grouped by pattern and the sufficient
// statistics of the complete rows, which do not change across iterations.
type emState struct {
	X        *mat.Dense
	n, d     int
	pats     []pattern
	complete []int     // rows with no NA
	s1       []float64 // Σx over complete rows
	s2       []float64 // Σxxᵀ over complete rows, d×d row-major, upper triangle
}

func newEMState(X *mat.Dense) *emState {
	n, d := X.Dims()
	st := &emState{X: X, n: n, d: d, s1: make([]float64, d), s2: make([]float64, d*d)}
	for _, p := range groupPatterns(X) {
		if len(p.mis) == 0 {
			st.complete = p.rows
			continue
		}
		st.pats = append(st.pats, p)
	}
	for _, i := range st.complete {
		accumulate(st.s1, st.s2, X.RawRowView(i))
	}
	return st
}

// update performs one E-step and M-step from (mu, sigma), sigma d×d
// row-major; it returns new slices.
func (st *emState) update(mu, sigma []float64) ([]float64, []float64, error) {
	d := st.d
	t1, t2 := append([]float64(nil), st.s1...), append([]float64(nil), st.s2...)
	xhat := make([]float64, d)
	var c cond
	for _, p := range st.pats {
		if err := c.set(mu, sigma, d, p.obs, p.mis); err != nil {
			return nil, nil, err
		}
		for _, i := range p.rows {
			c.fill(xhat, st.X.RawRowView(i))
			accumulate(t1, t2, xhat)
		}
		k, nm := float64(len(p.rows)), len(p.mis)
		for a, ja := range p.mis {
			for b, jb := range p.mis {
				if ja <= jb {
					t2[ja*d+jb] += k * c.cov[a*nm+b]
				}
			}
		}
	}
	n := float64(st.n)
	nmu, nsigma := make([]float64, d), make([]float64, d*d)
	for j := range d {
		nmu[j] = t1[j] / n
	}
	for a := range d {
		for b := a; b < d; b++ {
			v := t2[a*d+b]/n - nmu[a]*nmu[b]
			nsigma[a*d+b], nsigma[b*d+a] = v, v
		}
	}
	return nmu, nsigma, nil
}

// logLik evaluates the observed-data log-likelihood at (mu, sigma).
func (st *emState) logLik(mu, sigma []float64) (float64, error) {
	all := make([]int, st.d)
	for j := range all {
		all[j] = j
	}
	ll := 0.0
	pats := append([]pattern{{obs: all, rows: st.complete}}, st.pats...)
	for _, p := range pats {
		l, err := patternLogLik(st.X, p.rows, p.obs, mu, sigma, st.d)
		if err != nil {
			return 0, err
		}
		ll += l
	}
	return ll, nil
}

// patternLogLik is Σ_rows log φ(x_o; μ_o, Σ_oo) for rows sharing obs.
func patternLogLik(X *mat.Dense, rows, obs []int, mu, sigma []float64, d int) (float64, error) {
	no := len(obs)
	if len(rows) == 0 || no == 0 {
		return 0, nil
	}
	soo, l, z := make([]float64, no*no), make([]float64, no*no), make([]float64, no)
	for a, ja := range obs {
		for b, jb := range obs {
			soo[a*no+b] = sigma[ja*d+jb]
		}
	}
	if err := cholJitter(soo, l, no); err != nil {
		return 0, err
	}
	logdet := 0.0
	for a := range no {
		logdet += 2 * math.Log(l[a*no+a])
	}
	quad := 0.0
	for _, i := range rows {
		row := X.RawRowView(i)
		for a, j := range obs {
			z[a] = row[j] - mu[j]
		}
		solveLower(l, no, z)
		for _, v := range z {
			quad += v * v
		}
	}
	k := float64(len(rows))
	return -0.5 * (k*float64(no)*math.Log(2*math.Pi) + k*logdet + quad), nil
}

// startValues returns norm's starting point and the per-column scales of
// the convergence test.
func startValues(X *mat.Dense) (mu, sigma, scale []float64) {
	n, d := X.Dims()
	mu, scale, sigma = make([]float64, d), make([]float64, d), make([]float64, d*d)
	obs := make([]float64, 0, n)
	for j := range d {
		obs = observed(X, j, obs[:0])
		v := 1.0
		if len(obs) > 0 {
			m, s2 := 0.0, 0.0
			for _, x := range obs {
				m += x
			}
			m /= float64(len(obs))
			for _, x := range obs {
				s2 += (x - m) * (x - m)
			}
			mu[j] = m
			if s2 > 0 {
				v = s2 / float64(len(obs))
			}
		}
		sigma[j*d+j] = v
		scale[j] = math.Sqrt(v)
	}
	return mu, sigma, scale
}

// maxChange is the largest scaled parameter change between two iterates.
func maxChange(mu, nmu, sigma, nsigma, scale []float64) float64 {
	m, d := 0.0, len(mu)
	for a := range d {
		m = math.Max(m, math.Abs(nmu[a]-mu[a])/scale[a])
		for b := a; b < d; b++ {
			m = math.Max(m, math.Abs(nsigma[a*d+b]-sigma[a*d+b])/(scale[a]*scale[b]))
		}
	}
	return m
}

// accumulate adds x to s1 and the upper triangle of xxᵀ to s2.
func accumulate(s1, s2, x []float64) {
	d := len(x)
	for a, xa := range x {
		s1[a] += xa
		row := s2[a*d : (a+1)*d]
		for b := a; b < d; b++ {
			row[b] += xa * x[b]
		}
	}
}

// symRaw returns the d×d row-major entries of a symmetric matrix.
func symRaw(s mat.Symmetric) []float64 {
	d := s.SymmetricDim()
	out := make([]float64, d*d)
	for a := range d {
		for b := range d {
			out[a*d+b] = s.At(a, b)
		}
	}
	return out
}
