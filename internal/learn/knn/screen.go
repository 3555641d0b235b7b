package knn

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

// Screening modes, cheapest first.
const (
	screenNone = iota // every distance is computed exactly
	screen64          // float64 BLAS screen
	screen32          // float32 BLAS screen
)

// Largest squared norms ‖x‖², ‖q‖² for which each screen cannot
// overflow.
const (
	maxNorm32 = 1e30
	maxNorm64 = 1e300
)

// screener bounds squared distances from below for all training rows at
// once. For a query q and row x_j it computes, with BLAS,
//
//	acc_j = ‖x_j‖²·(1−K) − 2·q·x_j,
//
// so that acc_j + ‖q‖²·(1−K) = F_j − K·(‖q‖² + ‖x_j‖²), where
// F_j = ‖q‖² + ‖x_j‖² − 2·q·x_j equals the squared distance d_j in exact
// arithmetic. With p columns and unit roundoff u, every rounding in F_j
// (including, for the float32 screen, rounding x and q to float32) is
// covered by |F_j − d_j| ≤ (2p+8)·u·(‖q‖² + ‖x_j‖²); K is twice that,
// K = (4p+16)·u. Hence acc_j > thr·(1+K) − ‖q‖²·(1−K) implies
// d_j > thr·(1+K), and the exactly summed distance is then above thr too
// (its own relative error is below (p+2)·u ≪ K): the row cannot be
// offered and is skipped. An absolute allowance, (p+4)·2⁻¹⁴⁰ for float32
// and (p+4)·2⁻¹⁰⁶⁰ for float64, covers products and conversions that
// underflow, where relative bounds do not hold.
type screener struct {
	mode  int
	slack float64 // K
	abs   float64 // absolute allowance for underflow
	xxw   []float64
	xt32  []float32 // p × n: column c of X in row c
	w32   []float32
}

// newScreener chooses the cheapest screen that cannot overflow on the
// training rows.
func newScreener(x []float64, n, p int) screener {
	maxXX := 0.0
	for j := range n {
		maxXX = math.Max(maxXX, sqNorm(x[j*p:j*p+p]))
	}
	switch {
	case maxXX <= maxNorm32:
		return newScreenerMode(x, n, p, screen32)
	case maxXX <= maxNorm64:
		return newScreenerMode(x, n, p, screen64)
	}
	return screener{mode: screenNone}
}

// newScreenerMode builds the screen of the given mode (32 or 64).
func newScreenerMode(x []float64, n, p, mode int) screener {
	if mode == screen32 {
		sc := screener{mode: screen32, slack: float64(4*p+16) * 0x1p-24, abs: float64(p+4) * 0x1p-140}
		sc.xt32, sc.w32 = make([]float32, p*n), make([]float32, n)
		for j := range n {
			row := x[j*p : j*p+p]
			for c, v := range row {
				sc.xt32[c*n+j] = float32(v)
			}
			sc.w32[j] = float32(sqNorm(row) * (1 - sc.slack))
		}
		return sc
	}
	sc := screener{mode: screen64, slack: float64(4*p+16) * 0x1p-53, abs: float64(p+4) * 0x1p-1060,
		xxw: make([]float64, n)}
	for j := range n {
		sc.xxw[j] = sqNorm(x[j*p:j*p+p]) * (1 - sc.slack)
	}
	return sc
}

func sqNorm(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return s
}

// modeFor returns the screen to use for a query with squared norm qq.
func (sc *screener) modeFor(qq float64) int {
	switch {
	case sc.mode == screen32 && qq <= maxNorm32:
		return screen32
	case sc.mode == screen64 && qq <= maxNorm64:
		return screen64
	}
	return screenNone
}

// fill64 sets acc_j = xxw_j − 2·q·x_j.
func (sc *screener) fill64(acc []float64, m *Model, q []float64) {
	copy(acc, sc.xxw)
	blas64.Gemv(blas.NoTrans, -2,
		blas64.General{Rows: m.n, Cols: m.p, Stride: m.p, Data: m.x},
		blas64.Vector{N: m.p, Inc: 1, Data: q},
		1, blas64.Vector{N: m.n, Inc: 1, Data: acc})
}

// fill32 sets acc_j = w32_j − 2·q·x_j in float32, one axpy per column.
func (sc *screener) fill32(acc []float32, q []float64) {
	n := len(acc)
	copy(acc, sc.w32)
	y := blas32.Vector{N: n, Inc: 1, Data: acc}
	for c, v := range q {
		blas32.Axpy(-2*float32(v), blas32.Vector{N: n, Inc: 1, Data: sc.xt32[c*n : c*n+n]}, y)
	}
}
