package forest

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// data is a training set in the layout every tree of a forest shares:
// each column copied out of X and its rows sorted once, so that a tree
// derives its own sorted in-bag rows by one filtering pass per column
// instead of sorting again.
type data struct {
	n, d   int
	col    [][]float64 // col[j][r] = X[r, j]
	sorted [][]entry   // sorted[j]: every row's entry by ascending col[j], ties by row, NaN last
	y      []float64
	inv    []float64 // inv[k] = 1/k for k = 1..n (inv[0] unused)
	naRank []uint32  // naRank[j]: the rank all NaN of col[j] share, noNaN when it has none
}

// noNaN is naRank's value for a column without NaN: above every rank.
const noNaN = math.MaxUint32

// entry is a row r of a column sorted by value, packed with the dense
// rank c of its value there (equal values, and all NaN, share a rank) as
// c<<32 | r: a scan reads ranks and rows from one sequential array, and a
// partition moves one word per row.
type entry uint64

// row returns the entry's row.
func (e entry) row() uint32 { return uint32(e) }

// rank returns the dense rank of the entry's value in its column.
func (e entry) rank() uint32 { return uint32(e >> 32) }

// newData copies X (n × d) and y into the shared layout and sorts every
// column.
func newData(X *mat.Dense, y []float64) *data {
	n, d := X.Dims()
	t := &data{n: n, d: d, col: make([][]float64, d), sorted: make([][]entry, d),
		y: y, inv: make([]float64, n+1), naRank: make([]uint32, d)}
	colAll := make([]float64, n*d)
	entAll := make([]entry, n*d)
	o := make([]int32, n)
	for j := range d {
		c := colAll[j*n : (j+1)*n]
		for r := range n {
			c[r], o[r] = X.At(r, j), int32(r)
		}
		slices.SortStableFunc(o, func(a, b int32) int { return compareNaNLast(c[a], c[b]) })
		t.col[j] = c
		t.sorted[j] = sortedEntries(entAll[j*n:(j+1)*n], c, o)
		t.naRank[j] = noNaN
		if n > 0 && math.IsNaN(c[o[n-1]]) { // NaN sort last and share one rank
			t.naRank[j] = t.sorted[j][n-1].rank()
		}
	}
	for k := 1; k <= n; k++ {
		t.inv[k] = 1 / float64(k)
	}
	return t
}

// compareNaNLast orders numbers ascending with NaN after every number.
func compareNaNLast(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	return cmp.Compare(a, b)
}

// sortedEntries writes into dst the entries of the rows o of c, sorted:
// each row with the dense rank of its value, so that two rows share a
// rank exactly when their values compare equal (all NaN share one).
func sortedEntries(dst []entry, c []float64, o []int32) []entry {
	var k uint64
	for i, r := range o {
		if i > 0 && compareNaNLast(c[o[i-1]], c[r]) != 0 {
			k++
		}
		dst[i] = entry(k<<32 | uint64(uint32(r)))
	}
	return dst
}
