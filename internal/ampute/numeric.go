package ampute

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// checkGroups checks Z and the groups and returns Z's column count.
func checkGroups(Z *mat.Dense, groups [][]int) (int, error) {
	if Z == nil || Z.IsEmpty() {
		return 0, fmt.Errorf("%w: Z is nil or empty", ErrData)
	}
	if len(groups) == 0 {
		return 0, fmt.Errorf("%w: no feature groups", ErrData)
	}
	_, q := Z.Dims()
	owner := make([]int, q)
	for j := range owner {
		owner[j] = -1
	}
	for f, g := range groups {
		if len(g) == 0 {
			return 0, fmt.Errorf("%w: feature %d has no column", ErrData, f)
		}
		for _, c := range g {
			if c < 0 || c >= q {
				return 0, fmt.Errorf("%w: feature %d: column %d out of range [0, %d)", ErrData, f, c, q)
			}
			if owner[c] >= 0 {
				return 0, fmt.Errorf("%w: feature %d: column %d already belongs to feature %d", ErrData, f, c, owner[c])
			}
			owner[c] = f
		}
	}
	return q, nil
}

// checkFinite reports the first ±Inf of Z (NaN is a natural NA).
func checkFinite(Z *mat.Dense) error {
	n, _ := Z.Dims()
	for i := 0; i < n; i++ {
		for j, v := range Z.RawRowView(i) {
			if math.IsInf(v, 0) {
				return fmt.Errorf("%w: row %d, column %d is %v", ErrData, i, j, v)
			}
		}
	}
	return nil
}

// standardisation returns each column's mean and 1/sd over its observed
// (non-NaN) values: sample sd with n−1 denominator; 1 when the sd is 0 or
// there are fewer than two values; mean 0 when there is none.
func standardisation(Z *mat.Dense) (mean, invSD []float64) {
	n, q := Z.Dims()
	mean, invSD = make([]float64, q), make([]float64, q)
	count := make([]int, q)
	for i := 0; i < n; i++ {
		for j, v := range Z.RawRowView(i) {
			if !math.IsNaN(v) {
				mean[j] += v
				count[j]++
			}
		}
	}
	for j := range mean {
		if count[j] > 0 {
			mean[j] /= float64(count[j])
		}
	}
	ss := make([]float64, q)
	for i := 0; i < n; i++ {
		for j, v := range Z.RawRowView(i) {
			if !math.IsNaN(v) {
				ss[j] += (v - mean[j]) * (v - mean[j])
			}
		}
	}
	for j := range invSD {
		invSD[j] = 1
		if sd := math.Sqrt(ss[j] / float64(count[j]-1)); count[j] > 1 && sd > 0 {
			invSD[j] = 1 / sd
		}
	}
	return mean, invSD
}

// standardised returns Z standardised by the model's training moments, row
// major, with NaN replaced by 0.
func (m *Model) standardised(Z *mat.Dense) []float64 {
	n, _ := Z.Dims()
	out := make([]float64, n*m.q)
	for i := 0; i < n; i++ {
		m.standardiseRow(Z.RawRowView(i), out[i*m.q:(i+1)*m.q])
	}
	return out
}

// standardiseRow writes the standardised row z into dst (NaN → 0).
func (m *Model) standardiseRow(z, dst []float64) {
	for j, v := range z {
		if math.IsNaN(v) {
			dst[j] = 0
		} else {
			dst[j] = (v - m.mean[j]) * m.invSD[j]
		}
	}
}

// observedRows returns the rows of Z where no column of group is NaN.
func observedRows(Z *mat.Dense, group []int) []int {
	n, _ := Z.Dims()
	var rows []int
	for i := 0; i < n; i++ {
		if observed(Z.RawRowView(i), group) {
			rows = append(rows, i)
		}
	}
	return rows
}

// observed reports whether no column of group is NaN in row z.
func observed(z []float64, group []int) bool {
	for _, c := range group {
		if math.IsNaN(z[c]) {
			return false
		}
	}
	return true
}

// scaleToUnit divides w by the sample sd of scores (computed with w), when
// that sd is positive; scores is consumed.
func scaleToUnit(w, scores []float64) {
	if len(scores) < 2 {
		return
	}
	mean := 0.0
	for _, s := range scores {
		mean += s
	}
	mean /= float64(len(scores))
	ss := 0.0
	for _, s := range scores {
		ss += (s - mean) * (s - mean)
	}
	sd := math.Sqrt(ss / float64(len(scores)-1))
	if !(sd > 0) || math.IsInf(sd, 0) {
		return
	}
	for j := range w {
		w[j] /= sd
	}
}

func sigmoid(t float64) float64 { return 1 / (1 + math.Exp(-t)) }

// calibrate returns a such that the mean of σ(a + s_i) over scores equals
// rate ∈ (0, 1): Newton steps kept inside a bisection bracket, stopped
// when the step or the bracket reaches machine precision.
func calibrate(scores []float64, rate float64) float64 {
	g := func(a float64) (v, d float64) {
		for _, s := range scores {
			p := sigmoid(a + s)
			v += p
			d += p * (1 - p)
		}
		k := float64(len(scores))
		return v/k - rate, d / k
	}
	mean := 0.0
	for _, s := range scores {
		mean += s
	}
	a := math.Log(rate/(1-rate)) - mean/float64(len(scores))
	lo, hi := bracket(a, func(x float64) float64 { v, _ := g(x); return v })
	for iter := 0; iter < 200; iter++ {
		v, d := g(a)
		if v == 0 {
			return a
		}
		if v < 0 {
			lo = a
		} else {
			hi = a
		}
		next := a - v/d
		if !(next > lo && next < hi) {
			next = lo + (hi-lo)/2
		}
		if next == a || math.Abs(next-a) <= 1e-15*math.Max(1, math.Abs(a)) {
			return next
		}
		a = next
	}
	return a
}

// bracket returns lo < a < hi with g(lo) ≤ 0 ≤ g(hi) for an increasing g
// that is negative at −∞ and positive at +∞, doubling the distance from a.
func bracket(a float64, g func(float64) float64) (lo, hi float64) {
	step := 1.0
	for lo = a - step; g(lo) > 0; lo = a - step {
		step *= 2
	}
	step = 1
	for hi = a + step; g(hi) < 0; hi = a + step {
		step *= 2
	}
	return lo, hi
}

// censorThreshold returns the type-7 (1 − rate) quantile of column c over
// rows of Z (observed values).
func censorThreshold(Z *mat.Dense, rows []int, c int, rate float64) float64 {
	v := make([]float64, len(rows))
	for k, i := range rows {
		v[k] = Z.At(i, c)
	}
	slices.Sort(v)
	return quantile7(v, 1-rate)
}

// quantile7 returns R's quantile(x, p, type = 7) of sorted (ascending,
// non-empty): with h = (n−1)·p, x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]).
func quantile7(sorted []float64, p float64) float64 {
	h := float64(len(sorted)-1) * p
	lo := int(math.Floor(h))
	if lo+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
}
