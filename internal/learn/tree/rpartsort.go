package tree

import "math"

// rpartOrder is sortColumn's counterpart for class trees: it writes into
// idx the entries 0..len(v)-1 with the observed ones first, ordered by
// value exactly as rpart 4.1.19 orders them, then the NaN entries in entry
// order. cnt is unused (the signature is newSample's).
//
// rpart presorts every column once with its own quicksort (mysort.c),
// which is not stable and sorts an NA as the value 0; a node's rows keep
// that order. Where Gini's altered priors are not exactly 1 its weight
// sums are inexact, so the order of tied rows changes their last bits and
// may decide between splits of equal Gini: matching rpart's ties needs its
// order. quickOrder reproduces the algorithm (median-of-three
// partitioning, insertion sort below 11 elements, recursion on the
// shorter part), not its code.
func rpartOrder(v []float64, idx []int32, _ []int32) {
	n := len(v)
	x := make([]float64, n)
	for e, a := range v {
		idx[e] = int32(e)
		if !math.IsNaN(a) {
			x[e] = a
		}
	}
	quickOrder(x, idx, 0, n-1)
	k := 0
	for _, e := range idx {
		if !math.IsNaN(v[e]) {
			idx[k] = e
			k++
		}
	}
	for e, a := range v {
		if math.IsNaN(a) {
			idx[k] = int32(e)
			k++
		}
	}
}

// quickOrder sorts x[lo..hi] (inclusive) ascending, carrying idx along,
// with rpart's quicksort.
func quickOrder(x []float64, idx []int32, lo, hi int) {
	for lo < hi {
		if hi-lo < 11 {
			insertionOrder(x, idx, lo, hi)
			return
		}
		i, j := splitAround(x, idx, lo, hi, medianOfThree(x[lo], x[(lo+hi)/2], x[hi]))
		if i-lo < hi-j { // recurse on the shorter part, loop on the other
			if i > lo {
				quickOrder(x, idx, lo, i)
			}
			lo = j
		} else {
			if hi > j {
				quickOrder(x, idx, j, hi)
			}
			hi = i
		}
	}
}

// insertionOrder sorts x[lo..hi] by straight insertion, moving an element
// past strictly larger ones only (so equal ones keep their order).
func insertionOrder(x []float64, idx []int32, lo, hi int) {
	for i := lo + 1; i <= hi; i++ {
		a, e := x[i], idx[i]
		j := i - 1
		for ; j >= lo && x[j] > a; j-- {
			x[j+1], idx[j+1] = x[j], idx[j]
		}
		x[j+1], idx[j+1] = a, e
	}
}

// medianOfThree returns the pivot rpart picks from the first, middle and
// last values.
func medianOfThree(a, m, b float64) float64 {
	switch {
	case a >= m && b > m: // m is the smallest
		return min(a, b)
	case a < m && b < m: // m is the largest
		return max(a, b)
	}
	return m
}

// splitAround partitions x[lo..hi] around the pivot: two cursors move
// inwards past values on the right side of it and swap a pair only when
// it is out of order; both then step past the run of pivot-equal values
// so that only the strictly smaller (lo..i) and larger (j..hi) parts need
// sorting.
func splitAround(x []float64, idx []int32, lo, hi int, pivot float64) (int, int) {
	i, j := lo, hi
	for i < j {
		for x[i] < pivot {
			i++
		}
		for x[j] > pivot {
			j--
		}
		if i < j {
			if x[i] > x[j] {
				x[i], x[j] = x[j], x[i]
				idx[i], idx[j] = idx[j], idx[i]
			}
			i++
			j--
		}
	}
	for x[i] >= pivot && i > lo {
		i--
	}
	for x[j] <= pivot && j < hi {
		j++
	}
	return i, j
}
