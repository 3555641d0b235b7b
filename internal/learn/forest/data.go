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
	n, d  int
	col   [][]float64 // col[j][r] = X[r, j]
	order [][]int32   // order[j]: the rows by ascending col[j], ties by row, NaN last
	code  [][]uint32  // code[j][r]: dense rank of col[j][r] (equal values, and all NaN, share one)
	y     []float64
	inv   []float64 // inv[k] = 1/k for k = 1..n (inv[0] unused)
}

// newData copies X (n × d) and y into the shared layout and sorts every
// column.
func newData(X *mat.Dense, y []float64) *data {
	n, d := X.Dims()
	t := &data{n: n, d: d, col: make([][]float64, d), order: make([][]int32, d),
		code: make([][]uint32, d), y: y, inv: make([]float64, n+1)}
	codeAll := make([]uint32, n*d)
	colAll := make([]float64, n*d)
	ordAll := make([]int32, n*d)
	for j := range d {
		c, o := colAll[j*n:(j+1)*n], ordAll[j*n:(j+1)*n]
		for r := range n {
			c[r], o[r] = X.At(r, j), int32(r)
		}
		slices.SortStableFunc(o, func(a, b int32) int { return compareNaNLast(c[a], c[b]) })
		t.col[j], t.order[j] = c, o
		t.code[j] = denseRanks(codeAll[j*n:(j+1)*n], c, o)
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

// denseRanks writes into code the dense rank of every value of c, whose
// rows sorted are o: values that compare equal (and all NaN) share a
// rank, so that code[a] == code[b] exactly when c[a] == c[b] for numbers.
func denseRanks(code []uint32, c []float64, o []int32) []uint32 {
	var k uint32
	for i, r := range o {
		if i > 0 && compareNaNLast(c[o[i-1]], c[r]) != 0 {
			k++
		}
		code[r] = k
	}
	return code
}
