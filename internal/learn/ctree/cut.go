package ctree

import "slices"

// pair is one observed (x, response) pair of a split search.
type pair struct {
	x, h float64
	row  int32
}

// cmpPair orders pairs by value, then by row: the order in which libcoin
// visits them (levels ascending, rows of a level in subset order).
func cmpPair(a, b pair) int {
	switch {
	case a.x < b.x:
		return -1
	case a.x > b.x:
		return 1
	}
	return int(a.row - b.row)
}

// cutter searches cutpoints. Large nodes filter a per-column presorted
// row order (built on first use); small nodes sort their own rows.
type cutter struct {
	cols  [][]float64
	order [][]int32 // per column: observed rows by (value, row), lazily
	mark  []uint32  // mark[r] == stamp: row r is in the current subset
	stamp uint32
	buf   []pair
	cls   []float64 // bestClass's per-class scratch
}

func newCutter(cols [][]float64) *cutter {
	n := 0
	if len(cols) > 0 {
		n = len(cols[0])
	}
	return &cutter{cols: cols, order: make([][]int32, len(cols)), mark: make([]uint32, n)}
}

// sortedPairs fills c.buf with the (x, h) pairs of the rows observing
// column j, in cmpPair order.
func (c *cutter) sortedPairs(j int, h []float64, rows []int32) []pair {
	x, buf := c.cols[j], c.buf[:0]
	if len(rows)*16 < len(x) {
		for _, r := range rows {
			if v := x[r]; v == v {
				buf = append(buf, pair{v, h[r], r})
			}
		}
		slices.SortFunc(buf, cmpPair)
		c.buf = buf
		return buf
	}
	if c.order[j] == nil {
		c.order[j] = presort(x)
	}
	c.stamp++
	for _, r := range rows {
		c.mark[r] = c.stamp
	}
	for _, r := range c.order[j] {
		if c.mark[r] == c.stamp {
			buf = append(buf, pair{x[r], h[r], r})
		}
	}
	c.buf = buf
	return buf
}

// presort returns the rows observing x sorted by (value, row).
func presort(x []float64) []int32 {
	out := make([]int32, 0, len(x))
	for r, v := range x {
		if v == v {
			out = append(out, int32(r))
		}
	}
	slices.SortFunc(out, func(a, b int32) int { return cmpPair(pair{x: x[a], row: a}, pair{x: x[b], row: b}) })
	return out
}

// best returns the cutpoint of column j over rows that maximises
// libcoin's maximally selected two-sample quadratic statistic for the
// response h, among cutpoints leaving at least mb observed rows on each
// side (C_ordered_Xfactor): for the cut "x ≤ u" with sL rows and left sum
// S_L of h, (S_L − sL·h̄)² / (v·(W·sL − sL²)/(W − 1)), v the variance of h
// over the W observed rows, computed in libcoin's order of operations.
// The first (lowest) maximiser wins; ok is false when no admissible cut
// has a positive statistic.
func (c *cutter) best(j int, h []float64, rows []int32, mb float64) (thr float64, ok bool) {
	w, mean, covinf := moments(c.cols[j], h, rows)
	if w < 2 {
		return 0, false
	}
	buf := c.sortedPairs(j, h, rows)
	f1, f2 := w/(w-1), 1/(w-1)
	var sumLeft, lin, expect, top float64
	sumRight := w
	for i := 0; i < len(buf); {
		k, ls := i, 0.0
		for ; k < len(buf) && buf[k].x == buf[i].x; k++ {
			ls += buf[k].h
		}
		cnt := float64(k - i)
		sumLeft += cnt
		sumRight -= cnt
		lin += ls
		expect += cnt * mean
		if sumLeft >= mb && sumRight >= mb {
			mcov := f1 * covinf * sumLeft
			mcov -= f2 * covinf * sumLeft * sumLeft
			var st float64
			if mcov > tol {
				d := lin - expect
				st = d * (1 / mcov) * d
			}
			if st > top {
				top, thr = st, buf[i].x
			}
		}
		i = k
	}
	return thr, top > 0
}

// moments returns the number W of rows observing x, and the mean and
// variance (divisor W) of h over them, summed in row order as libcoin
// does.
func moments(x, h []float64, rows []int32) (w, mean, v float64) {
	var sh float64
	for _, r := range rows {
		if u := x[r]; u == u {
			w++
			sh += h[r]
		}
	}
	if w == 0 {
		return 0, 0, 0
	}
	mean = sh / w
	for _, r := range rows {
		if u := x[r]; u == u {
			v += (h[r] - mean) * (h[r] - mean)
		}
	}
	return w, mean, v / w
}
