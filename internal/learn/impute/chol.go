package impute

import (
	"fmt"
	"math"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// Small dense kernels on row-major k×k slices for the per-pattern work
// of EM and Gaussian imputation, where gonum's per-call allocations and
// condition estimates dominated the run time (hundreds of patterns ×
// tens of iterations).

// minPivot is the smallest accepted ratio L_jj² / a_jj: the fraction of
// column j's variance not explained by the columns before it (1 − R²_j).
// Below it the block is treated as numerically singular. The ratio is
// scale-invariant, unlike a condition number of the raw covariance.
const minPivot = 1e-14

// cholLower overwrites the lower triangle of the k×k symmetric a with
// its Cholesky factor L (a = LLᵀ); the strict upper triangle is left
// untouched. It reports false if some pivot ratio is below minPivot.
func cholLower(a []float64, k int) bool {
	for j := range k {
		rj := a[j*k : j*k+j]
		v := a[j*k+j]
		for _, l := range rj {
			v -= l * l
		}
		if !(v > minPivot*a[j*k+j]) || !(v > 0) || math.IsInf(v, 0) {
			return false
		}
		ljj := math.Sqrt(v)
		a[j*k+j] = ljj
		for i := j + 1; i < k; i++ {
			ri := a[i*k : i*k+j]
			s := a[i*k+j]
			for t, l := range ri {
				s -= l * rj[t]
			}
			a[i*k+j] = s / ljj
		}
	}
	return true
}

// cholJitter factorises the symmetric k×k block s into l (both row-major,
// length k·k). When s is numerically singular it retries with
// s + eps·diag(max(s_jj, f)) for eps = 1e-12, 1e-10, …, 1e-4, where f is
// 1e-8 times the mean positive diagonal (1 if none): a jitter relative to
// each column's own variance, so the rule does not depend on units.
func cholJitter(s, l []float64, k int) error {
	copy(l, s)
	if cholLower(l, k) {
		return nil
	}
	f, m := 0.0, 0
	for j := range k {
		if v := s[j*k+j]; v > 0 {
			f, m = f+v, m+1
		}
	}
	f = 1e-8 * f / float64(max(m, 1))
	if m == 0 {
		f = 1
	}
	for eps := 1e-12; eps <= 1e-4*(1+1e-9); eps *= 100 {
		copy(l, s)
		for j := range k {
			l[j*k+j] += eps * math.Max(s[j*k+j], f)
		}
		if cholLower(l, k) {
			return nil
		}
	}
	return fmt.Errorf("impute: a %d×%d block is not positive definite even with jitter: %w", k, k, learnerr.ErrNumerical)
}

// solveLower solves L z = b in place (L from cholLower).
func solveLower(l []float64, k int, b []float64) {
	for i := range k {
		s := b[i]
		for t, v := range l[i*k : i*k+i] {
			s -= v * b[t]
		}
		b[i] = s / l[i*k+i]
	}
}

// solveUpper solves Lᵀ x = b in place (L from cholLower).
func solveUpper(l []float64, k int, b []float64) {
	for i := k - 1; i >= 0; i-- {
		s := b[i]
		for t := i + 1; t < k; t++ {
			s -= l[t*k+i] * b[t]
		}
		b[i] = s / l[i*k+i]
	}
}
