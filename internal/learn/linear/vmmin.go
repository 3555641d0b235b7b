package linear

import (
	"context"
	"math"
)

// Line-search constants of R's variable-metric minimiser (vmmin in R's
// optim.c, which nnet calls): step reduction, acceptance (Armijo)
// fraction, and the offset of the "parameter did not change" test.
const (
	vmStepRedn = 0.2
	vmAccTol   = 0.0001
	vmRelTest  = 10.0
)

// vmResult is the outcome of bfgs.
type vmResult struct {
	value float64 // the final objective value (vmmin's Fmin)
	iter  int     // gradient evaluations (vmmin's iteration count)
	fail  bool    // stopped at maxit (nnet's convergence = 1)
}

// objective is what bfgs minimises.
type objective interface {
	value(w []float64) float64
	grad(w, g []float64)
}

// bfgs minimises fn over the coordinates of w where free is true (the
// others stay fixed), starting from w, which it overwrites with the
// result. It is R's vmmin as nnet uses it, step for step: the inverse
// Hessian approximation B starts as the identity and is reset after an
// uphill direction, a failed line search or 2·n gradient evaluations
// without one; the line search backtracks from step 1 by factors of 0.2
// until f ≤ f₀ + 10⁻⁴·step·gᵀd; the run stops when an accepted value is
// ≤ abstol, when it improves on the previous one by no more than
// reltol·(|f₀| + reltol), when no free weight moves, or after maxit
// gradient evaluations. ctx is checked at every iteration; on
// cancellation bfgs returns the context's error.
func bfgs(ctx context.Context, fn objective, w []float64, free func(int) bool, maxit int, abstol, reltol float64) (vmResult, error) {
	v := &vmState{fn: fn, w: w, g: make([]float64, len(w)), abstol: abstol, reltol: reltol}
	for j := range w {
		if free(j) {
			v.idx = append(v.idx, j)
		}
	}
	n := len(v.idx)
	v.t, v.x, v.c, v.B = make([]float64, n), make([]float64, n), make([]float64, n), newLowerTri(n)
	v.f = fn.value(w)
	if math.IsNaN(v.f) || math.IsInf(v.f, 0) {
		return vmResult{}, errNotFinite
	}
	v.fmin = v.f
	fn.grad(w, v.g)
	v.iter, v.gradCount, v.ilast = 1, 1, 1
	for {
		if err := ctx.Err(); err != nil {
			return vmResult{}, err
		}
		count := v.iterate()
		if v.iter >= maxit {
			break
		}
		if v.gradCount-v.ilast > 2*n {
			v.ilast = v.gradCount // periodic restart
		}
		if count == n && v.ilast == v.gradCount {
			break
		}
	}
	return vmResult{value: v.fmin, iter: v.iter, fail: v.iter >= maxit}, nil
}

// vmState is vmmin's state between iterations.
type vmState struct {
	fn             objective
	w, g           []float64 // all weights and the gradient
	idx            []int     // the free weights
	t, x, c        []float64 // direction, start point, gradient at start
	B              *lowerTri // inverse Hessian approximation
	f, fmin        float64   // the last value computed, the accepted one
	iter           int       // gradient evaluations (vmmin's iter)
	gradCount      int
	ilast          int // gradCount when B was last reset
	abstol, reltol float64
}

// iterate runs one pass of vmmin's loop and returns its count: the
// number of free weights that the pass left unchanged (n when it made no
// progress), 0 after a reset that deserves another try.
func (v *vmState) iterate() int {
	n := len(v.idx)
	if v.ilast == v.gradCount {
		v.B.identity()
	}
	for i, j := range v.idx {
		v.x[i], v.c[i] = v.w[j], v.g[j]
	}
	gradProj := v.B.direction(v.t, v.g, v.idx)
	if !(gradProj < 0) { // uphill: reset unless B was just reset
		if v.ilast == v.gradCount {
			return n
		}
		v.ilast = v.gradCount
		return 0
	}
	count, step, f := lineSearch(v.fn, v.w, v.idx, v.x, v.t, v.fmin, gradProj, v.f)
	v.f = f
	if !(f > v.abstol && math.Abs(f-v.fmin) > v.reltol*(math.Abs(v.fmin)+v.reltol)) {
		count = n
		v.fmin = f
	}
	if count == n { // no progress: retry once from a reset B
		if v.ilast < v.gradCount {
			v.ilast = v.gradCount
			return 0
		}
		return n
	}
	v.fmin = f
	v.fn.grad(v.w, v.g)
	v.gradCount++
	v.iter++
	if !v.B.update(v.t, v.c, v.x, v.g, v.idx, step) {
		v.ilast = v.gradCount
	}
	return count
}

// lineSearch backtracks along t from x until the Armijo condition holds
// or no free weight changes, leaving the trial point in w. It returns
// the number of free weights that did not change, the step and the last
// value computed (f if none was).
func lineSearch(fn objective, w []float64, idx []int, x, t []float64, fmin, gradProj, f float64) (int, float64, float64) {
	step := 1.0
	for {
		count := 0
		for i, j := range idx {
			w[j] = x[i] + float64(step*t[i])
			if vmRelTest+x[i] == vmRelTest+w[j] {
				count++
			}
		}
		if count == len(idx) {
			return count, step, f
		}
		f = fn.value(w)
		finite := !math.IsNaN(f) && !math.IsInf(f, 0)
		if finite && f <= fmin+float64(float64(gradProj*step)*vmAccTol) {
			return count, step, f
		}
		step *= vmStepRedn
	}
}

// lowerTri is a symmetric n × n matrix stored as its lower triangle,
// row by row.
type lowerTri struct {
	n int
	v []float64
}

func newLowerTri(n int) *lowerTri { return &lowerTri{n: n, v: make([]float64, n*(n+1)/2)} }

// at returns element (i, j), j ≤ i.
func (b *lowerTri) at(i, j int) *float64 { return &b.v[i*(i+1)/2+j] }

func (b *lowerTri) identity() {
	clear(b.v)
	for i := range b.n {
		*b.at(i, i) = 1
	}
}

// direction sets t = −B·g (g restricted to the free weights idx) and
// returns tᵀg, summing in vmmin's order.
func (b *lowerTri) direction(t, g []float64, idx []int) float64 {
	proj := 0.0
	for i := range b.n {
		s := 0.0
		for j := 0; j <= i; j++ {
			s -= float64(*b.at(i, j) * g[idx[j]])
		}
		for j := i + 1; j < b.n; j++ {
			s -= float64(*b.at(j, i) * g[idx[j]])
		}
		t[i] = s
		proj += float64(s * g[idx[i]])
	}
	return proj
}

// update applies the BFGS update of the inverse Hessian for the step
// step·t and the gradient change g − c, and returns false (no update)
// when the curvature tᵀ(g − c) is not positive. It overwrites t with the
// step, c with the gradient change and x with B·(g − c).
func (b *lowerTri) update(t, c, x, g []float64, idx []int, step float64) bool {
	d1 := 0.0
	for i, j := range idx {
		t[i] *= step
		c[i] = g[j] - c[i]
		d1 += float64(t[i] * c[i])
	}
	if !(d1 > 0) {
		return false
	}
	d2 := 0.0
	for i := range b.n {
		s := 0.0
		for j := 0; j <= i; j++ {
			s += float64(*b.at(i, j) * c[j])
		}
		for j := i + 1; j < b.n; j++ {
			s += float64(*b.at(j, i) * c[j])
		}
		x[i] = s
		d2 += float64(s * c[i])
	}
	d2 = 1 + d2/d1
	for i := range b.n {
		for j := 0; j <= i; j++ {
			*b.at(i, j) += (float64(float64(d2*t[i])*t[j]) - float64(x[i]*t[j]) - float64(t[i]*x[j])) / d1
		}
	}
	return true
}
