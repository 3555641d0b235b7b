package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// ErrLength is wrapped by errors reporting paired inputs of unequal length.
var ErrLength = errors.New("stats: paired samples differ in length")

// ErrConfLevel is wrapped by errors reporting a confidence level outside (0, 1).
var ErrConfLevel = errors.New("stats: confidence level must be in (0, 1)")

// TestStatus says whether a t-test could be computed and how.
type TestStatus int

const (
	// TestOK is an ordinary test: N ≥ 2 pairs, differences not constant.
	TestOK TestStatus = iota
	// TestTooFew means fewer than 2 pairs: no test; T, P, SE, CI are NaN
	// (MeanDiff is the single difference when N = 1). R stops with
	// "not enough 'x' observations".
	TestTooFew
	// TestIdentical means every difference is exactly 0: no evidence of a
	// difference, so T = 0, P = 1 and the CI is [0, 0]. R yields NaN.
	TestIdentical
	// TestConstant means the differences are (essentially) a non-zero
	// constant, by R's rule SE < 10·ε·|mean|: the difference is certain,
	// so T = ±Inf, P = 0 and the CI is [MeanDiff, MeanDiff]. R stops with
	// "data are essentially constant".
	TestConstant
)

// String returns "ok", "too-few", "identical" or "constant".
func (s TestStatus) String() string {
	switch s {
	case TestTooFew:
		return "too-few"
	case TestIdentical:
		return "identical"
	case TestConstant:
		return "constant"
	}
	return "ok"
}

// TTest is a two-sided paired t-test of mean(x − y) = 0, the numbers of
// R's t.test(x, y, paired = TRUE, conf.level = Conf).
type TTest struct {
	N        int     // number of pairs
	DF       int     // degrees of freedom, N − 1 (0 when N < 2)
	MeanDiff float64 // mean of x − y (R's estimate)
	SE       float64 // standard error of MeanDiff, sd(x − y)/√N (R's stderr)
	T        float64 // MeanDiff / SE (R's statistic)
	P        float64 // two-sided p-value 2·P(T_DF > |T|), exact Student t
	Conf     float64 // confidence level of the interval
	// CILo and CIHi bound the Conf confidence interval of the mean
	// difference, MeanDiff ∓ t_{DF, (1+Conf)/2}·SE.
	CILo, CIHi float64
	Status     TestStatus
}

// PairedTTest tests whether paired samples x and y (same length, pair i
// is (x[i], y[i])) have equal means. Degenerate data are reported in
// Status, never as an error or a panic. Errors wrap ErrLength,
// ErrNonFinite (any NaN or ±Inf: drop the pair before calling) or
// ErrConfLevel.
//
// P and the interval's t quantile come from StudentTwoSidedP and
// StudentQuantile, which agree with R 4.2's pt and qt to ≲1e-12
// relative (see their doc and the golden tests).
func PairedTTest(x, y []float64, conf float64) (TTest, error) {
	if len(x) != len(y) {
		return TTest{}, fmt.Errorf("%w: %d and %d values", ErrLength, len(x), len(y))
	}
	if !(conf > 0 && conf < 1) {
		return TTest{}, fmt.Errorf("%w: got %v", ErrConfLevel, conf)
	}
	d := make([]float64, len(x))
	for i := range x {
		d[i] = x[i] - y[i]
		if math.IsNaN(d[i]) || math.IsInf(d[i], 0) {
			return TTest{}, fmt.Errorf("%w: pair %d is (%v, %v)", ErrNonFinite, i, x[i], y[i])
		}
	}
	return oneSampleT(d, conf), nil
}

// oneSampleT is the two-sided one-sample t-test of mean(d) = 0.
func oneSampleT(d []float64, conf float64) TTest {
	nan := math.NaN()
	n := len(d)
	t := TTest{N: n, Conf: conf, MeanDiff: mean(d), SE: nan, T: nan, P: nan, CILo: nan, CIHi: nan}
	if n < 2 {
		t.Status = TestTooFew
		return t
	}
	t.DF = n - 1
	t.SE = math.Sqrt(variance(d) / float64(n))
	switch {
	case !slices.ContainsFunc(d, func(v float64) bool { return v != 0 }):
		t.Status, t.T, t.P, t.CILo, t.CIHi = TestIdentical, 0, 1, 0, 0
		return t
	case t.SE < 10*eps*math.Abs(t.MeanDiff):
		t.Status, t.P, t.CILo, t.CIHi = TestConstant, 0, t.MeanDiff, t.MeanDiff
		t.T = math.Inf(1)
		if t.MeanDiff < 0 {
			t.T = math.Inf(-1)
		}
		return t
	}
	df := float64(t.DF)
	t.T = t.MeanDiff / t.SE
	t.P = StudentTwoSidedP(t.T, df)
	q := StudentQuantile(1-(1-conf)/2, df)
	t.CILo, t.CIHi = (t.T-q)*t.SE, (t.T+q)*t.SE
	return t
}

// eps is R's .Machine$double.eps.
const eps = 0x1p-52

// Holm returns Holm's step-down adjusted p-values, as R's
// p.adjust(p, "holm"): with the m non-NaN values sorted increasingly,
// the i-th becomes min(1, max_{j ≤ i} (m − j + 1)·p_(j)). NaN entries
// (tests that could not be computed) stay NaN and do not count in m,
// as R treats NA. The result is in the order of p.
func Holm(p []float64) []float64 {
	out := make([]float64, len(p))
	var idx []int
	for i, v := range p {
		out[i] = math.NaN()
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case p[a] < p[b]:
			return -1
		case p[a] > p[b]:
			return 1
		}
		return 0
	})
	m := len(idx)
	run := 0.0
	for j, i := range idx {
		run = max(run, float64(m-j)*p[i])
		out[i] = min(1, run)
	}
	return out
}
