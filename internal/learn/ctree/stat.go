package ctree

import "math"

// VarTest is the conditional independence test of one variable in one
// node, as partykit's info_node(node)$criterion reports it.
type VarTest struct {
	// Feature is the tested column (0-based).
	Feature int
	// N is the number of the node's rows that observe Feature: the test
	// uses those rows only (partykit drops the NA rows of the tested
	// variable from the node's subset).
	N int
	// Tested is false when N < 2 or the linear statistic's conditional
	// variance is below libcoin's tolerance √ε (a constant column or
	// response): partykit's NA, left out of the Bonferroni count.
	Tested bool
	// Statistic is the standardised quadratic form
	// c = (T − E[T])² / Var(T) = (N − 1)·r², r the Pearson correlation of
	// Feature and y over the N rows (for a classification tree with k ≥ 3
	// classes, the k-column form of classTest). partykit reports
	// max(c, ε).
	Statistic float64
	// PValue is the unadjusted asymptotic p-value P(χ²₁ > c) (χ²_{m−1},
	// m the classes present among the N rows, for k ≥ 3 classes).
	PValue float64
	// AdjPValue is 1 − (1 − PValue)^k under Bonferroni with k tested
	// variables, PValue under Univariate: partykit's reported "p.value".
	AdjPValue float64
	// Criterion is what partykit maximises: log(1 − AdjPValue), plus its
	// tie-break bump when several variables tie at the maximum; −Inf for
	// an untested variable.
	Criterion float64
}

// chisq1 returns P(χ²₁ > c) and log P(χ²₁ ≤ c), both accurate in the
// tails: P(χ²₁ > c) = erfc(√(c/2)).
func chisq1(c float64) (upper, logLower float64) {
	s := math.Sqrt(c / 2)
	upper = math.Erfc(s)
	if upper < 0.5 {
		return upper, math.Log1p(-upper)
	}
	return upper, math.Log(math.Erf(s))
}

// quadTest tests the independence of column x and response h over rows
// (rows where x is NaN are skipped), with libcoin's asymptotic quadratic
// test for a numeric x and a numeric h (identity transformations): the
// linear statistic T = Σ x_i h_i has, under permutation of h, mean
// Σx·Σh/N and variance Sxx·Shh/(N − 1), so c = Sxh²·(N − 1)/(Sxx·Shh).
// Sums are centred (two passes) rather than libcoin's raw moments.
func quadTest(j int, x, h []float64, rows []int32) VarTest {
	t := VarTest{Feature: j, Criterion: math.Inf(-1)}
	var w, sx, sh float64
	for _, r := range rows {
		if v := x[r]; v == v {
			w++
			sx += v
			sh += h[r]
		}
	}
	t.N = int(w)
	if w < 2 {
		return t
	}
	mx, mh := sx/w, sh/w
	var sxx, shh, sxh float64
	for _, r := range rows {
		if v := x[r]; v == v {
			dx, dh := v-mx, h[r]-mh
			sxx += dx * dx
			shh += dh * dh
			sxh += dx * dh
		}
	}
	vr := sxx * shh / (w - 1)
	if !(vr >= tol) {
		return t
	}
	t.Tested = true
	t.Statistic = sxh * sxh / vr
	t.PValue, t.Criterion = chisq1(t.Statistic)
	t.AdjPValue = t.PValue
	return t
}

// smallStat gates libcoinNull: a statistic below it may be rounding noise
// around a deviation T − E that libcoin computes as exactly zero.
const smallStat = 1e-12

// zeroIfNull sets t's statistic to 0, its p-value to 1 and its criterion
// to −Inf when t is tested with a statistic below smallStat and libcoin's
// deviation T − E of x from each of the q influence columns h(c, ·) is
// exactly zero (libcoinNull): there libcoin's statistic is 0 and partykit's criterion
// log(1 − p) is −Inf, where the centred sums here leave a tiny positive
// statistic. With integer covariates and an indicator response this
// happens, and partykit then never selects the variable (a surrogate
// search moves past it).
func zeroIfNull(t *VarTest, x []float64, rows []int32, q int, h func(c int, r int32) float64) {
	if !t.Tested || t.Statistic >= smallStat {
		return
	}
	for c := range q {
		if !libcoinNull(x, rows, c, h) {
			return
		}
	}
	t.Statistic, t.PValue, t.AdjPValue, t.Criterion = 0, 1, 1, math.Inf(-1)
}

// libcoinNull reports whether libcoin's linear statistic T = Σ x_i·h(c, i)
// over the rows observing x equals its expectation E = Σx·(Σh / W)
// exactly, with libcoin's operations in row order.
func libcoinNull(x []float64, rows []int32, c int, h func(int, int32) float64) bool {
	var w, sx, sh, lin float64
	for _, r := range rows {
		if v := x[r]; v == v {
			hr := h(c, r)
			w++
			sx += v
			sh += hr
			lin += v * hr
		}
	}
	return lin == sx*(sh/w)
}
