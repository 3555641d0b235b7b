package impute

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// DefaultShrink is the paper's covariance shrinkage fraction (Section
// 5.2): Σ is replaced by 0.99·Σ + 0.01·tr(Σ)·I before imputing.
const DefaultShrink = 0.01

// Gaussian imputes each missing entry by its conditional expectation
// given the row's observed entries under a Gaussian whose mean and
// covariance EM estimates on the training matrix (the paper's "impute
// Gaussian", fitted with R's norm there). Before imputing, the
// covariance is shrunk to (1−Shrink)·Σ + Shrink·tr(Σ)·I as in the paper.
// A row with every entry missing is imputed by μ.
//
// The zero value does not shrink; NewGaussian returns the paper's
// configuration.
type Gaussian struct {
	// Shrink is the shrinkage fraction in [0, 1]; 0 imputes with the raw
	// EM covariance.
	Shrink float64
	// EM controls the estimation; zero fields take the defaults.
	EM EMOptions
}

// NewGaussian returns the paper's Gaussian imputer: DefaultShrink,
// DefaultTol, DefaultMaxIter.
func NewGaussian() Gaussian { return Gaussian{Shrink: DefaultShrink} }

// GaussianFit is a fitted Gaussian imputer.
type GaussianFit struct {
	// Mu is the EM mean and Sigma the shrunk covariance used to impute.
	Mu    []float64
	Sigma *mat.SymDense
	// Estimate is EM's raw result (unshrunk covariance, iterations,
	// convergence flag).
	Estimate *Estimate
}

// Fit runs EM on X and shrinks the covariance.
func (g Gaussian) Fit(ctx context.Context, X *mat.Dense) (Transformer, error) {
	if !(g.Shrink >= 0 && g.Shrink <= 1) {
		return nil, fmt.Errorf("impute: Gaussian shrink %v is outside [0, 1]: %w", g.Shrink, learnerr.ErrSetting)
	}
	est, err := EM(ctx, X, g.EM)
	if err != nil {
		return nil, err
	}
	return &GaussianFit{Mu: est.Mu, Sigma: Shrink(est.Sigma, g.Shrink), Estimate: est}, nil
}

// Shrink returns (1−s)·Σ + s·tr(Σ)·I.
func Shrink(sigma *mat.SymDense, s float64) *mat.SymDense {
	d := sigma.SymmetricDim()
	tr := 0.0
	for j := range d {
		tr += sigma.At(j, j)
	}
	out := mat.NewSymDense(d, nil)
	for a := range d {
		for b := a; b < d; b++ {
			v := (1 - s) * sigma.At(a, b)
			if a == b {
				v += s * tr
			}
			out.SetSym(a, b, v)
		}
	}
	return out
}

// Transform imputes every NA of X by its conditional expectation given
// the row's observed entries under N(Mu, Sigma).
func (g *GaussianFit) Transform(X *mat.Dense) (*mat.Dense, error) {
	if err := checkCols(X, len(g.Mu)); err != nil {
		return nil, err
	}
	out := mat.DenseCopyOf(X)
	d := len(g.Mu)
	sigma := symRaw(g.Sigma)
	var c cond
	for _, p := range groupPatterns(X) {
		if len(p.mis) == 0 {
			continue
		}
		if err := c.set(g.Mu, sigma, d, p.obs, p.mis); err != nil {
			return nil, err
		}
		for _, i := range p.rows {
			row := out.RawRowView(i)
			c.fill(row, row)
		}
	}
	return out, nil
}

// pattern is a set of rows sharing their observed and missing columns.
type pattern struct {
	obs, mis, rows []int
}

// groupPatterns groups the rows of X by missingness pattern, patterns in
// order of first appearance so that sums run in a deterministic order.
func groupPatterns(X *mat.Dense) []pattern {
	n, d := X.Dims()
	index := map[string]int{}
	var pats []pattern
	key := make([]byte, d)
	for i := range n {
		row := X.RawRowView(i)
		for j, v := range row {
			key[j] = '0'
			if math.IsNaN(v) {
				key[j] = '1'
			}
		}
		k, ok := index[string(key)]
		if !ok {
			k = len(pats)
			index[string(key)] = k
			var p pattern
			for j, c := range key {
				if c == '1' {
					p.mis = append(p.mis, j)
				} else {
					p.obs = append(p.obs, j)
				}
			}
			pats = append(pats, p)
		}
		pats[k].rows = append(pats[k].rows, i)
	}
	return pats
}

// cond is the Gaussian conditional law of x_mis given x_obs:
// mean mu_m + coef·(x_o − mu_o), covariance cov. Its buffers are reused
// from one pattern to the next.
type cond struct {
	mu       []float64
	obs, mis []int
	coef     []float64 // |mis| × |obs| row-major: Σ_mo Σ_oo⁻¹
	cov      []float64 // |mis| × |mis| row-major: Σ_mm − Σ_mo Σ_oo⁻¹ Σ_om
	soo, l   []float64 // scratch: Σ_oo and its Cholesky factor
}

// set computes the conditional law for one pattern under N(mu, sigma),
// sigma d×d row-major, with one Cholesky factorisation of Σ_oo.
func (c *cond) set(mu, sigma []float64, d int, obs, mis []int) error {
	c.mu, c.obs, c.mis = mu, obs, mis
	no, nm := len(obs), len(mis)
	c.coef, c.cov = resize(c.coef, nm*no), resize(c.cov, nm*nm)
	for a, ja := range mis {
		for b, jb := range mis {
			c.cov[a*nm+b] = sigma[ja*d+jb]
		}
	}
	if no == 0 {
		return nil
	}
	c.soo, c.l = resize(c.soo, no*no), resize(c.l, no*no)
	for a, ja := range obs {
		for b, jb := range obs {
			c.soo[a*no+b] = sigma[ja*d+jb]
		}
	}
	if err := cholJitter(c.soo, c.l, no); err != nil {
		return err
	}
	for a, ja := range mis {
		w := c.coef[a*no : (a+1)*no] // Σ_oo⁻¹ Σ_o,ja
		for b, jb := range obs {
			w[b] = sigma[jb*d+ja]
		}
		solveLower(c.l, no, w)
		solveUpper(c.l, no, w)
		for b, jb := range mis {
			s := 0.0
			for t, o := range obs {
				s += sigma[jb*d+o] * w[t]
			}
			c.cov[b*nm+a] -= s
		}
	}
	return nil
}

func resize(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}

// fill writes src into dst (they may alias) with the missing entries
// replaced by their conditional expectation.
func (c *cond) fill(dst, src []float64) {
	copy(dst, src)
	no := len(c.obs)
	for a, j := range c.mis {
		v := c.mu[j]
		w := c.coef[a*no : (a+1)*no]
		for b, o := range c.obs {
			v += w[b] * (src[o] - c.mu[o])
		}
		dst[j] = v
	}
}
