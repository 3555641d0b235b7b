package tree

import (
	"math"
	"slices"
	"testing"
)

// TestRpartOrder: rpartOrder sorts every column (NA last) whatever its
// ties, and agrees with a stable sort up to the order of equal values.
func TestRpartOrder(t *testing.T) {
	rng := newRNG(34)
	for _, n := range []int{1, 2, 11, 12, 40, 500} {
		for _, levels := range []int{2, 5, 1000} {
			v := make([]float64, n)
			for i := range v {
				v[i] = float64(rng.IntN(levels))
				if rng.Float64() < 0.1 {
					v[i] = math.NaN()
				}
			}
			a, b := make([]int32, n), make([]int32, n)
			rpartOrder(v, a, nil)
			sortColumn(v, b, make([]int32, n+1))
			va, vb := make([]float64, n), make([]float64, n)
			for i := range n {
				va[i], vb[i] = v[a[i]], v[b[i]]
			}
			if !slices.EqualFunc(va, vb, sameFloat) {
				t.Errorf("n %d, %d levels: values in rpart order %v, sorted %v", n, levels, va, vb)
			}
			slices.Sort(a)
			if !slices.Equal(a, slices.Sorted(slices.Values(b))) {
				t.Errorf("n %d, %d levels: rpartOrder is not a permutation", n, levels)
			}
		}
	}
}
