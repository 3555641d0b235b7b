package svm

import "math"

// rbf evaluates the radial kernel K(i, j) = exp(−γ·‖x_i − x_j‖²) between
// training rows exactly as libsvm does while training: through the
// expansion ‖x_i‖² + ‖x_j‖² − 2·x_i·x_j, with dot products summed over
// the columns in order.
type rbf struct {
	n, p  int
	x     []float64 // n × p, row-major
	xt    []float64 // p × n, column-major: xt[c·n + j] = x_jc
	xsq   []float64 // ‖x_i‖²
	gamma float64
	arg   []float64 // scratch: the exponents of one row
}

func newRBF(x []float64, n, p int, gamma float64) *rbf {
	k := &rbf{n: n, p: p, x: x, xt: make([]float64, n*p), xsq: make([]float64, n), gamma: gamma,
		arg: make([]float64, n)}
	for i := range n {
		r := x[i*p : i*p+p]
		k.xsq[i] = dot(r, r)
		for c, v := range r {
			k.xt[c*n+i] = v
		}
	}
	return k
}

// dot is Σ_c a_c·b_c summed in column order (each product rounded, as
// libsvm's dot).
func dot(a, b []float64) float64 {
	b = b[:len(a)]
	s := 0.0
	for c, v := range a {
		s += float64(v * b[c])
	}
	return s
}

// row writes K(i, j) for every training row j into out, rounded to
// float32 as libsvm's kernel cache stores it: the dot products x_i·x_j
// for all j at once over the column-major copy (each summed in column
// order, libsvm's dot), then the exponent and exp (vec.go).
func (k *rbf) row(i int, out []float32) {
	n := k.n
	d := k.arg[:n]
	dots(d, k.xt, n, k.x[i*k.p:(i+1)*k.p])
	kernelArg(d, k.xsq[:n], -k.gamma, k.xsq[i])
	expAll(d)
	toFloat32(out[:n], d)
}

// diag returns K(i, i) as libsvm computes it: 1, since
// ‖x_i‖² + ‖x_i‖² − 2·‖x_i‖² is exactly 0 for finite data.
func (k *rbf) diag(i int) float64 {
	return exp(-k.gamma * (k.xsq[i] + k.xsq[i] - 2*k.xsq[i]))
}

// rowCache is a least-recently-used cache of kernel rows (float32, one
// per training row), bounded in bytes like libsvm's Cache. Results never
// depend on its size, only the running time does.
type rowCache struct {
	rows       [][]float32 // nil when not cached
	prev, next []int       // LRU list over cached rows; sentinel n
	free       int         // rows that may still be allocated
}

func newRowCache(n int, bytes float64) *rowCache {
	// libsvm reserves the list heads (32 bytes per row) and always keeps
	// room for at least two rows.
	floats := bytes/4 - float64(n)*8
	capRows := int(math.Max(2, math.Floor(floats/float64(max(n, 1)))))
	c := &rowCache{
		rows: make([][]float32, n),
		prev: make([]int, n+1),
		next: make([]int, n+1),
		free: min(capRows, n),
	}
	c.prev[n], c.next[n] = n, n
	return c
}

func (c *rowCache) unlink(i int) {
	c.next[c.prev[i]] = c.next[i]
	c.prev[c.next[i]] = c.prev[i]
}

func (c *rowCache) pushBack(i int) {
	s := len(c.rows)
	c.prev[i], c.next[i] = c.prev[s], s
	c.next[c.prev[s]] = i
	c.prev[s] = i
}

// get returns row i, computing it with fill on a miss.
func (c *rowCache) get(i int, fill func(int, []float32)) []float32 {
	if r := c.rows[i]; r != nil {
		c.unlink(i)
		c.pushBack(i)
		return r
	}
	var r []float32
	switch {
	case c.free > 0:
		c.free--
		r = make([]float32, len(c.rows))
	default:
		old := c.next[len(c.rows)]
		c.unlink(old)
		r, c.rows[old] = c.rows[old], nil
	}
	fill(i, r)
	c.rows[i] = r
	c.pushBack(i)
	return r
}
