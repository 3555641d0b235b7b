package linear

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// pivotQR is a Householder QR factorisation with R's "limited column
// pivoting" (LINPACK dqrdc2 as modified for R, which lm and glm.fit use
// through Cdqrls): columns are taken left to right, and a column whose
// norm, after the reflections of the columns before it, has fallen below
// tol times its original norm is moved to the right-hand end and left
// out of the solution. The rank is the number of columns kept.
//
// Columns are stored contiguously: a[j*n : (j+1)*n] is column j.
type pivotQR struct {
	n, p  int
	a     []float64 // reflectors below the diagonal, R on and above it
	aux   []float64 // first component of each reflector (dqrdc2's qraux)
	norm  []float64 // current norms of the columns not yet reduced
	orig  []float64 // original column norms (1 for a zero column)
	piv   []int     // piv[j]: the original index of column j
	rank  int
	coefs []float64
}

func newPivotQR(n, p int) *pivotQR {
	return &pivotQR{n: n, p: p, a: make([]float64, n*p), aux: make([]float64, p),
		norm: make([]float64, p), orig: make([]float64, p), piv: make([]int, p), coefs: make([]float64, p)}
}

// col returns rows from..n-1 of column j.
func (q *pivotQR) col(j, from int) []float64 { return q.a[j*q.n+from : (j+1)*q.n] }

// factor factorises the matrix held in q.a (column-major, n × p).
func (q *pivotQR) factor(tol float64) {
	n, p := q.n, q.p
	for j := range p {
		q.piv[j] = j
		q.norm[j] = norm2(q.col(j, 0))
		q.orig[j] = q.norm[j]
		if q.orig[j] == 0 {
			q.orig[j] = 1
		}
	}
	kept := p
	for l := range min(n, p) {
		for l < kept && q.norm[l] < q.orig[l]*tol {
			q.moveToEnd(l)
			kept--
		}
		if l != n-1 {
			q.reflect(l)
		}
	}
	q.rank = min(kept, n)
}

// moveToEnd rotates column l (and its bookkeeping) to position p−1.
func (q *pivotQR) moveToEnd(l int) {
	n := q.n
	tmp := append([]float64(nil), q.col(l, 0)...)
	copy(q.a[l*n:], q.a[(l+1)*n:])
	copy(q.a[(q.p-1)*n:], tmp)
	for _, s := range [][]float64{q.aux, q.norm, q.orig} {
		v := s[l]
		copy(s[l:], s[l+1:])
		s[q.p-1] = v
	}
	v := q.piv[l]
	copy(q.piv[l:], q.piv[l+1:])
	q.piv[q.p-1] = v
}

// reflect builds the Householder reflector of column l (rows l..n−1),
// applies it to the columns to its right and downdates their norms.
func (q *pivotQR) reflect(l int) {
	v := q.col(l, l)
	nrm := norm2(v)
	if nrm == 0 {
		return
	}
	if v[0] != 0 {
		nrm = math.Copysign(nrm, v[0])
	}
	floats.Scale(1/nrm, v)
	v[0]++
	for j := l + 1; j < q.p; j++ {
		c := q.col(j, l)
		t := -dot(v, c) / v[0]
		axpy(t, v, c)
		if q.norm[j] == 0 {
			continue
		}
		r := c[0] / q.norm[j]
		tt := math.Max(1-r*r, 0)
		if tt >= 1e-6 {
			q.norm[j] *= math.Sqrt(tt)
		} else {
			q.norm[j] = norm2(c[1:])
		}
	}
	q.aux[l] = v[0]
	v[0] = -nrm
}

// solve returns the least-squares coefficients for right-hand side y
// (overwritten with Qᵀy) in the original column order; the columns left
// out get 0, as dqrls sets them. It returns false if a diagonal element
// of R is 0.
func (q *pivotQR) solve(y []float64) ([]float64, bool) {
	n, k := q.n, q.rank
	for j := range min(k, n-1) {
		if q.aux[j] == 0 {
			continue
		}
		v := q.col(j, j)
		d := v[0]
		v[0] = q.aux[j]
		t := -dot(v, y[j:]) / v[0]
		axpy(t, v, y[j:])
		v[0] = d
	}
	b := q.coefs
	clear(b)
	sol := make([]float64, k)
	copy(sol, y[:k])
	for j := k - 1; j >= 0; j-- {
		d := q.a[j*n+j]
		if d == 0 {
			return nil, false
		}
		sol[j] /= d
		if j > 0 {
			axpy(-sol[j], q.a[j*n:j*n+j], sol[:j])
		}
	}
	for j, v := range sol {
		b[q.piv[j]] = v
	}
	return b, true
}

// dot is Σ x_i·y_i, in four interleaved partial sums (as vectorised
// BLAS such as R's OpenBLAS sum), products rounded before adding.
func dot(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += float64(x[i] * y[i])
		s1 += float64(x[i+1] * y[i+1])
		s2 += float64(x[i+2] * y[i+2])
		s3 += float64(x[i+3] * y[i+3])
	}
	for ; i < len(x); i++ {
		s0 += float64(x[i] * y[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// axpy sets y += a·x.
func axpy(a float64, x, y []float64) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += float64(a * v)
	}
}

// norm2 is the Euclidean norm of v: √(vᵀv) when that neither overflows
// nor loses digits to underflow, else gonum's scaled computation.
func norm2(v []float64) float64 {
	if s := dot(v, v); s < 1e300 && s > 1e-290 {
		return math.Sqrt(s)
	}
	return floats.Norm(v, 2)
}
