package svm

import "math"

// The loops over kernel rows and support vectors (and, in solver.go, the
// working-set selection's candidate scan): each is written in Go and, on
// amd64 with AVX2, in assembly over four elements at a time
// (vec_amd64.s). Both perform the same floating-point operations in the
// same order on every element (no fused multiply-add, no reassociation),
// so results are bit-identical whichever runs; TestVecMatchesGo checks
// it. The *Vec functions handle a prefix of their slices (whole blocks of
// four, or sixteen) and return its length, 0 where there is no vector
// version.

// expAll replaces every v[i] by exp(v[i]).
func expAll(v []float64) {
	if !vector {
		expAllGo(v)
		return
	}
	for {
		v = v[expVec(v):]
		if len(v) < 4 {
			break
		}
		// expVec stopped at a block with an argument outside the table's
		// range (or NaN): exp defers those to math.Exp
		v[0], v[1], v[2], v[3] = exp(v[0]), exp(v[1]), exp(v[2]), exp(v[3])
		v = v[4:]
	}
	expAllGo(v)
}

// dots sets d[j] = Σ_c x_c·xt[c·n + j] for every j < len(d): the dot
// products of x with the columns' rows, each summed over the columns in
// order from +0, every product rounded (libsvm's dot).
func dots(d, xt []float64, n int, x []float64) {
	dotsGo(d, xt, n, x, dotsVec(d, xt, n, x))
}

// dotsGo is dots for j ≥ from, four columns per pass so that each pass
// streams through memory while every d[j] is still summed in column
// order.
func dotsGo(d, xt []float64, n int, x []float64, from int) {
	d = d[from:]
	clear(d)
	m := len(d)
	c := 0
	for ; c+3 < len(x); c += 4 { // four columns per pass, added in order
		v0, v1, v2, v3 := x[c], x[c+1], x[c+2], x[c+3]
		c0 := xt[c*n+from : c*n+from+m]
		c1, c2, c3 := xt[(c+1)*n+from:][:m], xt[(c+2)*n+from:][:m], xt[(c+3)*n+from:][:m]
		for j, w := range c0 {
			d[j] = (((d[j] + float64(v0*w)) + float64(v1*c1[j])) + float64(v2*c2[j])) + float64(v3*c3[j])
		}
	}
	for ; c < len(x); c++ {
		v, col := x[c], xt[c*n+from:][:m]
		for j, w := range col {
			d[j] += float64(v * w)
		}
	}
}

// kernelArg sets d[j] = ng·((si + xsq[j]) − 2·d[j]) for every j: the
// RBF kernel's exponent −γ·(‖x_i‖² + ‖x_j‖² − 2·x_i·x_j) from the dot
// products, with ng = −γ.
func kernelArg(d, xsq []float64, ng, si float64) {
	xsq = xsq[:len(d)]
	for j := kernelArgVec(d, xsq, ng, si); j < len(d); j++ {
		d[j] = ng * ((si + xsq[j]) - 2*d[j])
	}
}

// toFloat32 sets out[j] = float32(d[j]) (rounded to nearest) for every j
// < len(d).
func toFloat32(out []float32, d []float64) {
	out = out[:len(d)]
	for j := toFloat32Vec(out, d); j < len(d); j++ {
		out[j] = float32(d[j])
	}
}

// sqDists sets d2[s] = Σ_c (x_c − sv[c·ns + s])² for every s < len(d2):
// squared distances to the support vectors (column-major sv), each summed
// over the columns in order from +0, every square rounded (libsvm's
// prediction kernel).
func sqDists(d2, sv []float64, ns int, x []float64) {
	sqDistsGo(d2, sv, ns, x, sqDistsVec(d2, sv, ns, x))
}

// sqDistsGo is sqDists for s ≥ from, four columns per pass.
func sqDistsGo(d2, sv []float64, ns int, x []float64, from int) {
	d2 = d2[from:]
	clear(d2)
	m := len(d2)
	c := 0
	for ; c+3 < len(x); c += 4 {
		v0, v1, v2, v3 := x[c], x[c+1], x[c+2], x[c+3]
		c0 := sv[c*ns+from : c*ns+from+m]
		c1, c2, c3 := sv[(c+1)*ns+from:][:m], sv[(c+2)*ns+from:][:m], sv[(c+3)*ns+from:][:m]
		for s, w := range c0 {
			e0, e1, e2, e3 := v0-w, v1-c1[s], v2-c2[s], v3-c3[s]
			d2[s] = (((d2[s] + float64(e0*e0)) + float64(e1*e1)) + float64(e2*e2)) + float64(e3*e3)
		}
	}
	for ; c < len(x); c++ {
		v, col := x[c], sv[c*ns+from:][:m]
		for s, w := range col {
			e := v - w
			d2[s] += float64(e * e)
		}
	}
}

// scale sets v[i] = a·v[i] for every i.
func scale(v []float64, a float64) {
	for i := scaleVec(v, a); i < len(v); i++ {
		v[i] = a * v[i]
	}
}

// gradUpdate is the solver's gradient update after a step on (i, j):
// g[t] += fs[t]·(ri[idx[t]]·dI + rj[idx[t]]·dJ), each product and sum
// rounded in that order, for every t < len(g), fused with the next
// maximal-violating choice: it returns max_t upSign[t]·g[t] and the last
// t reaching it (−∞ and −1 when every product is NaN).
func gradUpdate(g, upSign, fs []float64, idx []int, ri, rj []float32, dI, dJ float64) (gmax float64, next int) {
	upSign, fs, idx = upSign[:len(g)], fs[:len(g)], idx[:len(g)]
	var l gradLanes
	for k := range l.val {
		l.val[k], l.idx[k] = math.Inf(-1), -1
	}
	t := gradVec(g, upSign, fs, idx, ri, rj, dI, dJ, &l)
	gmax, next = l.reduce()
	for ; t < len(g); t++ {
		r := idx[t]
		gt := g[t] + fs[t]*(float64(float64(ri[r])*dI)+float64(float64(rj[r])*dJ))
		g[t] = gt
		if v := upSign[t] * gt; v >= gmax {
			gmax, next = v, t
		}
	}
	return gmax, next
}

// gradLanes is the running choice of gradUpdate's vector loop in each of
// its four lanes (lane k sees t ≡ k mod 4): the largest product and the
// last t reaching it.
type gradLanes struct {
	val [4]float64
	idx [4]int64
}

// reduce returns the lanes' joint choice, the one a sequential scan
// would make: the largest value and, among the lanes holding it, the
// last t (whose value then carries the sign a zero maximum has there).
func (l *gradLanes) reduce() (float64, int) {
	best, at := math.Inf(-1), int64(-1)
	for k, v := range l.val {
		if v > best || (v == best && l.idx[k] > at) {
			best, at = v, l.idx[k]
		}
	}
	return best, int(at)
}
