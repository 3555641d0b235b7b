package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// ErrNonFinite is wrapped by errors reporting a NaN or ±Inf input where a
// finite number is required. Stats never skips such values silently:
// mark a run that produced no score as Failed instead.
var ErrNonFinite = errors.New("stats: non-finite value")

// Quantile returns the p-quantile of sorted (ascending, finite, not
// checked) with R's default definition, quantile(x, p, type = 7): with
// h = 1 + (n−1)·p, lo = ⌊h⌋, hi = ⌈h⌉, the value is
// (1−(h−lo))·x[lo] + (h−lo)·x[hi] (1-based), written in R's operation
// order so results agree to the last bit or two. It equals numpy's
// default "linear" percentile. Quantile returns NaN for an empty slice
// or p outside [0, 1] (R stops with an error there).
func Quantile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 || !(p >= 0 && p <= 1) {
		return math.NaN()
	}
	index := 1 + float64(n-1)*p
	lo := math.Floor(index)
	hi := math.Ceil(index)
	qs := sorted[int(lo)-1]
	xhi := sorted[int(hi)-1]
	if index > lo && xhi != qs {
		h := index - lo
		qs = (1-h)*qs + h*xhi
	}
	return qs
}

// Fivenum returns Tukey's five-number summary of sorted (ascending,
// finite, not checked) exactly as R's fivenum: minimum, lower hinge,
// median, upper hinge, maximum, where the hinges are medians of the
// lower and upper halves (the middle point belongs to both when n is
// odd). All five are NaN for an empty slice.
func Fivenum(sorted []float64) [5]float64 {
	n := len(sorted)
	if n == 0 {
		nan := math.NaN()
		return [5]float64{nan, nan, nan, nan, nan}
	}
	n4 := math.Floor(float64(n+3)/2) / 2
	d := [5]float64{1, n4, float64(n+1) / 2, float64(n+1) - n4, float64(n)}
	var out [5]float64
	for i, di := range d {
		out[i] = 0.5 * (sorted[int(math.Floor(di))-1] + sorted[int(math.Ceil(di))-1])
	}
	return out
}

// Hinges selects how a Box computes its box edges.
type Hinges int

const (
	// HingesType7 uses the type-7 quartiles of Quantile: the same numbers
	// as the summary table and the learning-curve bands, and what
	// seaborn/matplotlib (numpy linear percentiles) drew in the paper's
	// boxplots. It is the default of Describe.
	HingesType7 Hinges = iota
	// HingesTukey uses Fivenum's hinges, as R's boxplot and boxplot.stats do.
	HingesTukey
)

// String returns "type7" or "tukey".
func (h Hinges) String() string {
	if h == HingesTukey {
		return "tukey"
	}
	return "type7"
}

// Box holds what a boxplot draws. Lower and Upper are the whisker ends:
// the most extreme data points within [Q1 − coef·IQR, Q3 + coef·IQR]
// with IQR = Q3 − Q1 (R's boxplot.stats and matplotlib's rule; coef 1.5
// by default). Outliers are the points outside that fence, ascending.
// With coef = 0 the whiskers reach the minimum and maximum and nothing
// is an outlier, as in R.
type Box struct {
	Hinges            Hinges
	Coef              float64
	Lower, Q1, Median float64
	Q3, Upper         float64
	Outliers          []float64
}

// BoxStats computes a Box of sorted (ascending, finite, not checked)
// with the given hinges and whisker coefficient (negative is treated as
// 0). With HingesTukey and coef 1.5 the result equals R's
// boxplot.stats(x)$stats and $out. An empty slice gives NaN fields.
func BoxStats(sorted []float64, coef float64, h Hinges) Box {
	b := Box{Hinges: h, Coef: max(coef, 0)}
	if h == HingesTukey {
		f := Fivenum(sorted)
		b.Lower, b.Q1, b.Median, b.Q3, b.Upper = f[0], f[1], f[2], f[3], f[4]
	} else {
		b.Q1, b.Median, b.Q3 = Quantile(sorted, 0.25), Quantile(sorted, 0.5), Quantile(sorted, 0.75)
		b.Lower, b.Upper = first(sorted), last(sorted)
	}
	if len(sorted) == 0 || b.Coef == 0 {
		return b
	}
	iqr := b.Q3 - b.Q1
	loFence, hiFence := b.Q1-b.Coef*iqr, b.Q3+b.Coef*iqr
	b.Lower, b.Upper = math.Inf(1), math.Inf(-1)
	for _, x := range sorted {
		if x < loFence || x > hiFence {
			b.Outliers = append(b.Outliers, x)
			continue
		}
		b.Lower, b.Upper = min(b.Lower, x), max(b.Upper, x)
	}
	return b
}

func first(s []float64) float64 {
	if len(s) == 0 {
		return math.NaN()
	}
	return s[0]
}

func last(s []float64) float64 {
	if len(s) == 0 {
		return math.NaN()
	}
	return s[len(s)-1]
}

// Summary describes a sample. Quartiles are type 7 (see Quantile); SD is
// the n−1 standard deviation and SE = SD/√N the standard error of the
// mean; both are NaN when N < 2. Every field but N is NaN when N = 0.
// Box uses type-7 hinges and coef 1.5, so the boxplot shows exactly the
// table's quartiles.
type Summary struct {
	N               int
	Mean, SD, SE    float64
	Min, Q1, Median float64
	Q3, Max, IQR    float64
	Box             Box
}

// Describe summarises xs, which it does not modify. It returns an error
// wrapping ErrNonFinite if any value is NaN or ±Inf.
func Describe(xs []float64) (Summary, error) {
	for i, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return Summary{}, fmt.Errorf("%w: value %d of %d is %v", ErrNonFinite, i, len(xs), x)
		}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	sum := Summary{N: len(s), Mean: mean(s), SD: math.Sqrt(variance(s))}
	sum.SE = sum.SD / math.Sqrt(float64(sum.N))
	sum.Min, sum.Max = first(s), last(s)
	sum.Q1, sum.Median, sum.Q3 = Quantile(s, 0.25), Quantile(s, 0.5), Quantile(s, 0.75)
	sum.IQR = sum.Q3 - sum.Q1
	sum.Box = BoxStats(s, 1.5, HingesType7)
	return sum, nil
}

// mean is R's mean.default: the plain mean refined by the mean of the
// residuals, which removes most of the rounding of the first pass.
// NaN for an empty slice.
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	n := float64(len(xs))
	var s float64
	for _, x := range xs {
		s += x
	}
	m := s / n
	if math.IsInf(m, 0) {
		return m
	}
	var r float64
	for _, x := range xs {
		r += x - m
	}
	return m + r/n
}

// variance is the n−1 sample variance, two-pass as R's var; NaN if n < 2.
func variance(xs []float64) float64 {
	if len(xs) < 2 {
		return math.NaN()
	}
	m := mean(xs)
	var s float64
	for _, x := range xs {
		d := x - m
		s += d * d
	}
	return s / float64(len(xs)-1)
}
