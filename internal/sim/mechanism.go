package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
)

// MARSlope is the constant b of the MAR design: the probability that an
// entry of a masked column is missing is sigmoid(a + b·Z_i), where Z_i is
// the exactly standardised mean of row i's always-observed columns (under
// the Gaussian model Z ~ N(0, 1)) and a is calibrated so that
// E[sigmoid(a + b·Z)] equals the scenario's rate. With b = 2, rows one
// standard deviation above the mean are missing e^2 ≈ 7.4 times more
// often in odds than average rows: a clearly visible but not degenerate
// dependence. The masked columns are independent given Z.
const MARSlope = 2.0

// marDesign holds the per-scenario constants of the MAR mechanism.
type marDesign struct {
	obs      []int   // always-observed columns (the complement of Columns)
	center   float64 // E[Σ_{j∈obs} X_j] = |obs|
	invScale float64 // 1 / sd(Σ_{j∈obs} X_j)
	a, b     float64 // logit(P(M=1 | Z)) = a + b·Z
}

// newMARDesign builds the MAR design of s (Gaussian covariates, at least
// one always-observed column, as Validate guarantees).
func newMARDesign(s Scenario) marDesign {
	var obs []int
	for j := 0; j < s.D; j++ {
		if !slices.Contains(s.Columns, j) {
			obs = append(obs, j)
		}
	}
	k := float64(len(obs))
	// Var(Σ_{j∈obs} X_j) = 1ᵀ Σ_oo 1 = k(1−ρ) + k²ρ.
	sd := math.Sqrt(k*(1-s.Rho) + k*k*s.Rho)
	return marDesign{obs: obs, center: k, invScale: 1 / sd,
		a: marIntercept(s.Rate, MARSlope), b: MARSlope}
}

// z returns the standardised score Z of a complete row.
func (m *marDesign) z(x []float64) float64 {
	sum := 0.0
	for _, j := range m.obs {
		sum += x[j]
	}
	return (sum - m.center) * m.invScale
}

// prob returns P(M_ij = 1 | X_i = x) for every masked column j.
func (m *marDesign) prob(x []float64) float64 {
	return sigmoid(m.a + m.b*m.z(x))
}

func sigmoid(t float64) float64 { return 1 / (1 + math.Exp(-t)) }

// marInterceptCache caches marIntercept per (p, b): the calibration costs
// about a hundred quadratures and is shared by every scenario and worker
// goroutine in the process.
var marInterceptCache sync.Map // [2]float64{p, b} -> float64

// marIntercept returns a such that E[sigmoid(a + b·Z)] = p for Z ~ N(0,1),
// with the expectation computed by quadrature (stdNormalNodes, error
// < 1e-12) and a found by bisection to machine precision. p = 0 gives
// −Inf (nothing is ever masked).
func marIntercept(p, b float64) float64 {
	if p <= 0 {
		return math.Inf(-1)
	}
	key := [2]float64{p, b}
	if v, ok := marInterceptCache.Load(key); ok {
		return v.(float64)
	}
	lo, hi := -1.0, 1.0
	for meanLogistic(lo, b) > p {
		lo *= 2
	}
	for meanLogistic(hi, b) < p {
		hi *= 2
	}
	for i := 0; i < 200 && hi-lo > 0; i++ {
		mid := lo + (hi-lo)/2
		if mid == lo || mid == hi {
			break
		}
		if meanLogistic(mid, b) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	a := lo + (hi-lo)/2
	marInterceptCache.Store(key, a)
	return a
}

// meanLogistic returns E[sigmoid(a + b·Z)] for Z ~ N(0, 1).
func meanLogistic(a, b float64) float64 {
	z, w := stdNormalNodes()
	s := 0.0
	for i := range z {
		s += w[i] * sigmoid(a+b*z[i])
	}
	return s
}

// maskRow applies a row-wise mechanism (MCAR, predictive, MAR) to obs, a
// copy of the complete row full, by setting masked entries to NaN.
// Entries are visited in column order, one uniform draw each.
func (l *law) maskRow(r *rand.Rand, full, obs []float64) {
	var p float64
	switch l.s.Mechanism {
	case MCAR, Predictive:
		p = l.s.Rate
	case MAR:
		p = l.mar.prob(full)
	default:
		return
	}
	for _, j := range l.s.Columns {
		if r.Float64() < p {
			obs[j] = math.NaN()
		}
	}
}

// censorCount returns the number of entries the censoring mechanism masks
// in a column of n values at rate p: ⌊p·n⌋, where p·n is first inflated
// by a relative 1e-12 so that decimal rates count as written (0.29·100 is
// 28.999999999999996 in floating point but counts 29).
func censorCount(p float64, n int) int {
	m := int(math.Floor(p * float64(n) * (1 + 1e-12)))
	return min(max(m, 0), n)
}

// censor applies censoring MNAR to every masked column of X (n × D,
// row-major data, NaN-free on entry), using full for the values: an entry
// is masked when it is strictly greater than the empirical (1−p) quantile
// of its column in this data set, taken as the (n−m)-th order statistic
// with m = censorCount(p, n). This is R's quantile(type = 1) at 1−p, as
// in the authors' code. With distinct values (almost sure for continuous
// covariates) exactly m = ⌊p·n⌋ entries are masked per column, the m
// largest; ties at the threshold can only lower the count. scratch must
// have length ≥ n.
func (l *law) censor(full, obs []float64, n int, scratch []float64) {
	d := l.s.D
	m := censorCount(l.s.Rate, n)
	if m == 0 {
		return
	}
	for _, j := range l.s.Columns {
		col := scratch[:n]
		for i := range col {
			col[i] = full[i*d+j]
		}
		threshold := math.Inf(-1)
		if m < n {
			threshold = nthSmallest(col, n-m-1)
		}
		for i := 0; i < n; i++ {
			if full[i*d+j] > threshold {
				obs[i*d+j] = math.NaN()
			}
		}
	}
}

// nthSmallest returns the k-th smallest value (0-based) of v, which it
// reorders: an order statistic, so the value does not depend on the
// algorithm. Quickselect with a median-of-three pivot (expected O(n),
// against O(n log n) for a sort) and no randomness.
func nthSmallest(v []float64, k int) float64 {
	lo, hi := 0, len(v)-1
	for hi > lo {
		mid := lo + (hi-lo)/2
		if v[mid] < v[lo] {
			v[mid], v[lo] = v[lo], v[mid]
		}
		if v[hi] < v[lo] {
			v[hi], v[lo] = v[lo], v[hi]
		}
		if v[hi] < v[mid] {
			v[hi], v[mid] = v[mid], v[hi]
		}
		pivot := v[mid]
		i, j := lo, hi
		for i <= j {
			for v[i] < pivot {
				i++
			}
			for v[j] > pivot {
				j--
			}
			if i <= j {
				v[i], v[j] = v[j], v[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return v[k]
		}
	}
	return v[k]
}
