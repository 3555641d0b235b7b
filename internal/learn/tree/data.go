package tree

import (
	"cmp"
	"math"
	"slices"
)

// sample holds the training entries presorted by every column, in the
// layout rpart uses: one index array per column, sorted once, then
// stably partitioned at every split so that each node owns the same
// position range [lo, hi) in every column. Within a node's range the
// observed values come first, in ascending order, then the NA entries.
//
// An entry is one draw of a row: Fit uses every row once, FitSample may
// repeat rows (a bootstrap) and every repeat is a separate entry.
type sample struct {
	n, d   int
	row    []int32     // row of X behind each entry
	y      []float64   // target of each entry
	idx    [][]int32   // idx[j][pos]: the entry at sorted position pos of column j
	val    [][]float64 // val[j][pos]: that entry's value of column j
	x      []float64   // X's row-major data (not retained after Fit)
	stride int
	dest   []int8    // per entry: child 0, child 1 or dropped (2) at the current split
	side   []int8    // per entry: primary split side (side0, side1, sideNA)
	bufI   []int32   // partition scratch
	bufV   []float64 // partition scratch
}

// at returns entry e's value of column j.
func (s *sample) at(e int32, j int) float64 {
	return s.x[int(s.row[e])*s.stride+j]
}

// newSample builds the presorted layout for the given entries (rows of X,
// possibly repeated). x is X's row-major data with the given stride. sort
// orders one column (sortColumn, or rpartOrder where the order of ties
// matters).
func newSample(x []float64, stride, d int, y []float64, rows []int32, sort func(v []float64, idx, cnt []int32)) *sample {
	m := len(rows)
	s := &sample{n: m, d: d, row: rows, y: make([]float64, m), x: x, stride: stride,
		idx: make([][]int32, d), val: make([][]float64, d),
		dest: make([]int8, m), side: make([]int8, m),
		bufI: make([]int32, m), bufV: make([]float64, m)}
	for e, r := range rows {
		s.y[e] = y[r]
	}
	idxAll := make([]int32, m*d)
	valAll := make([]float64, m*d)
	cnt, col := make([]int32, m+1), make([]float64, m)
	for j := range d {
		s.idx[j], s.val[j] = idxAll[j*m:(j+1)*m], valAll[j*m:(j+1)*m]
		for e := range m {
			col[e] = s.at(int32(e), j)
		}
		sort(col, s.idx[j], cnt)
		for p, e := range s.idx[j] {
			s.val[j][p] = col[e]
		}
	}
	return s
}

// observed returns how many entries of column j in [lo, hi) are not NA.
func (s *sample) observed(j, lo, hi int) int {
	v := s.val[j]
	k := hi
	for k > lo && math.IsNaN(v[k-1]) {
		k--
	}
	return k - lo
}

// partition reorders [lo, hi) of every column so that the entries with
// dest 0 come first, then those with dest 1, then the dropped ones (dest
// 2), keeping the sorted order (and so NA last) within each group. It
// returns the sizes of the first two groups.
func (s *sample) partition(lo, hi int) (n0, n1 int) {
	var cnt [3]int
	for _, e := range s.idx[0][lo:hi] {
		cnt[s.dest[e]]++
	}
	for j := range s.d {
		idx, val := s.idx[j], s.val[j]
		// Branch-free stable split: every entry is written to both
		// places and only the cursor of its group advances.
		i0, i1 := lo, 0
		for p := lo; p < hi; p++ {
			e, v := idx[p], val[p]
			idx[i0], val[i0] = e, v
			s.bufI[i1], s.bufV[i1] = e, v
			d := min(int(s.dest[e]), 1)
			i0 += 1 - d
			i1 += d
		}
		if cnt[2] > 0 {
			s.dropLast(i1)
		}
		copy(idx[i0:hi], s.bufI[:i1])
		copy(val[i0:hi], s.bufV[:i1])
	}
	return cnt[0], cnt[1]
}

// dropLast stably moves the dropped entries (dest 2) of bufI[:n] after
// the others.
func (s *sample) dropLast(n int) {
	k := 0
	var ti []int32
	var tv []float64
	for p := range n {
		e, v := s.bufI[p], s.bufV[p]
		if s.dest[e] == 2 {
			ti, tv = append(ti, e), append(tv, v)
			continue
		}
		s.bufI[k], s.bufV[k] = e, v
		k++
	}
	copy(s.bufI[k:n], ti)
	copy(s.bufV[k:n], tv)
}

// meanRisk returns the mean target and the sum of squared deviations
// from it over the entries in [lo, hi).
func (s *sample) meanRisk(lo, hi int) (mean, risk float64) {
	ids := s.idx[0][lo:hi]
	var sum float64
	for _, e := range ids {
		sum += s.y[e]
	}
	mean = sum / float64(len(ids))
	for _, e := range ids {
		d := s.y[e] - mean
		risk += d * d
	}
	return mean, risk
}

// sortColumn writes into idx the entries 0..len(v)-1 ordered by value,
// ties by entry, NaN last (in entry order). It is a bucket sort: the
// observed range is cut into as many equal-width buckets as values,
// entries are distributed in entry order (so ties stay in entry order),
// then each bucket is sorted stably; on smooth data buckets hold about one
// value and the sort is linear. cnt needs len(v)+1 slots.
func sortColumn(v []float64, idx []int32, cnt []int32) {
	lo, hi, k := math.Inf(1), math.Inf(-1), 0
	for _, x := range v {
		if !math.IsNaN(x) {
			lo, hi, k = min(lo, x), max(hi, x), k+1
		}
	}
	p := k
	for e, x := range v { // NaN entries last, in entry order
		if math.IsNaN(x) {
			idx[p], p = int32(e), p+1
		}
	}
	if k == 0 {
		return
	}
	distribute(v, idx, cnt[:k+1], lo, hi)
	start := int32(0)
	for b := range k {
		sortStable(v, idx[start:cnt[b]])
		start = cnt[b]
	}
}

// distribute places the k = len(cnt)-1 observed entries of v into k
// equal-width buckets over [lo, hi], in entry order within a bucket;
// afterwards cnt[b] is the end of bucket b in idx.
func distribute(v []float64, idx []int32, cnt []int32, lo, hi float64) {
	k := len(cnt) - 1
	// Halves keep the range finite for any finite values; the bucket is
	// a non-decreasing function of x, which is all correctness needs.
	scale := float64(k) / (hi/2 - lo/2)
	if math.IsInf(scale, 0) || math.IsNaN(scale) {
		scale = 0 // one bucket
	}
	bucket := func(x float64) int { return min(int((x/2-lo/2)*scale), k-1) }
	clear(cnt)
	for _, x := range v {
		if !math.IsNaN(x) {
			cnt[bucket(x)+1]++
		}
	}
	for b := 1; b <= k; b++ {
		cnt[b] += cnt[b-1]
	}
	for e, x := range v { // cnt[b] advances to the end of bucket b
		if !math.IsNaN(x) {
			b := bucket(x)
			idx[cnt[b]], cnt[b] = int32(e), cnt[b]+1
		}
	}
}

// sortStable sorts entries by value, keeping the order of ties:
// insertion sort for short runs, the library's stable sort otherwise.
func sortStable(v []float64, seg []int32) {
	if len(seg) > 16 {
		slices.SortStableFunc(seg, func(a, b int32) int { return cmp.Compare(v[a], v[b]) })
		return
	}
	for i := 1; i < len(seg); i++ {
		e, x := seg[i], v[seg[i]]
		j := i
		for ; j > 0 && v[seg[j-1]] > x; j-- {
			seg[j] = seg[j-1]
		}
		seg[j] = e
	}
}
