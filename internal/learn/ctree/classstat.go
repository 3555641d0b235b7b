package ctree

import (
	"math"

	"gonum.org/v1/gonum/mathext"
)

// classTest is quadTest for a factor response of k ≥ 3 levels, whose
// influence function is the k-column indicator matrix (codes holds the
// class codes 0..k−1). With W rows observing x, n_q of them in class q,
// the linear statistic T_q = Σ x_i·1{y_i = q} has, under permutation,
// mean Σx·n_q/W and covariance C ⊗ Sxx/(W − 1), C = diag(n) − n·nᵀ/W the
// centred cross-products of the indicators (Strasser & Weber's Kronecker
// form, libcoin's C_CovarianceLinearStatistic with P = 1, Q = k). The
// statistic is libcoin's quadratic form (T − E)ᵀ V⁺ (T − E) with the
// Moore–Penrose inverse V⁺; as T − E lies in the range of C and diag(1/n_q)
// (over the classes present) is a generalised inverse of C, it equals
//
//	c = (W − 1)/Sxx · Σ_{q: n_q > 0} S_xq² / n_q,  S_xq = Σ (x_i − x̄)·1{y_i = q},
//
// computed so rather than through libcoin's eigendecomposition (equal to
// rounding; see TestClassTestIsMoorePenrose). The rank of V is m − 1, m
// the number of classes present: libcoin's numerical rank too, since V's
// smallest non-zero eigenvalue is at least 1/W of its largest, far above
// its tolerance √ε for any W < 6·10⁷. The p-value is P(χ²_{m−1} > c). The
// variable is untested, as in libcoin, when every diagonal element of V
// is below √ε (x constant, or a single class among the rows).
func classTest(j int, x, codes []float64, k int, rows []int32) VarTest {
	t := VarTest{Feature: j, Criterion: math.Inf(-1)}
	cnt, sxq := make([]float64, k), make([]float64, k)
	w, sxx := classMoments(x, codes, rows, cnt, sxq)
	t.N = int(w)
	if w < 2 {
		return t
	}
	var stat, m float64
	tested := false
	for q, n := range cnt {
		if n > 0 {
			m++
			stat += sxq[q] * sxq[q] / n
			tested = tested || n*(w-n)/w*sxx/(w-1) >= tol
		}
	}
	if !tested {
		return t
	}
	t.Tested = true
	t.Statistic = stat * ((w - 1) / sxx)
	t.PValue, t.Criterion = chisq(t.Statistic, int(m)-1)
	t.AdjPValue = t.PValue
	return t
}

// classMoments returns the number W of rows observing x and
// Sxx = Σ (x_i − x̄)², and fills cnt[q] with the class counts n_q and
// sxq[q] with S_xq = Σ (x_i − x̄)·1{y_i = q}, over those rows (two passes).
func classMoments(x, codes []float64, rows []int32, cnt, sxq []float64) (w, sxx float64) {
	var sx float64
	for _, r := range rows {
		if v := x[r]; v == v {
			w++
			sx += v
			cnt[int(codes[r])]++
		}
	}
	if w < 2 {
		return w, 0
	}
	mx := sx / w
	for _, r := range rows {
		if v := x[r]; v == v {
			dx := v - mx
			sxx += dx * dx
			sxq[int(codes[r])] += dx
		}
	}
	return w, sxx
}

// chisq returns P(χ²_df > c) and log P(χ²_df ≤ c), both accurate in the
// tails, as R's pchisq(c, df, lower.tail, log.p) gives them: chisq1 for
// one degree of freedom, exp(−c/2) for two, the regularised incomplete
// gamma functions otherwise.
func chisq(c float64, df int) (upper, logLower float64) {
	var lower float64
	switch df {
	case 1:
		return chisq1(c)
	case 2:
		upper, lower = math.Exp(-c/2), -math.Expm1(-c/2)
	default:
		a := float64(df) / 2
		upper, lower = mathext.GammaIncRegComp(a, c/2), mathext.GammaIncReg(a, c/2)
	}
	if upper < 0.5 {
		return upper, math.Log1p(-upper)
	}
	return upper, math.Log(lower)
}

// bestClass is best for a factor response of k ≥ 3 levels (codes holds
// the class codes): libcoin's C_ordered_Xfactor with the k indicator
// columns and the quadratic statistic. For the cut "x ≤ u" with sL of
// the W observed rows on the left, nL_q of them in class q, the left
// linear statistic has mean sL·μ_q (μ_q = n_q/W) and covariance
// covinf ⊗ v, covinf = diag(μ) − μμᵀ and v = W/(W−1)·sL − sL²/(W−1); its
// quadratic form with the Moore–Penrose inverse is
// Σ_{q: n_q > 0} (nL_q − sL·μ_q)²/μ_q / v (see classTest for why).
// Cut-points are visited, and means accumulated, in libcoin's order; the
// first (lowest) maximiser wins and ok is false when no cut leaving mb
// observed rows a side has a positive statistic.
func (c *cutter) bestClass(j int, codes []float64, k int, rows []int32, mb float64) (thr float64, ok bool) {
	mu, lin, expect := c.classScratch(k)
	var w float64
	for _, r := range rows {
		if v := c.cols[j][r]; v == v {
			w++
			mu[int(codes[r])]++
		}
	}
	if w < 2 {
		return 0, false
	}
	for q := range mu {
		mu[q] /= w
	}
	buf := c.sortedPairs(j, codes, rows)
	f1, f2 := w/(w-1), 1/(w-1)
	var sumLeft, top float64
	sumRight := w
	for i := 0; i < len(buf); {
		e := i
		for ; e < len(buf) && buf[e].x == buf[i].x; e++ {
			lin[int(buf[e].h)]++
		}
		cnt := float64(e - i)
		sumLeft += cnt
		sumRight -= cnt
		for q, m := range mu {
			expect[q] += cnt * m
		}
		if sumLeft >= mb && sumRight >= mb {
			if st := classCutStat(lin, expect, mu, f1*sumLeft-f2*(sumLeft*sumLeft)); st > top {
				top, thr = st, buf[i].x
			}
		}
		i = e
	}
	return thr, top > 0
}

// classCutStat is the quadratic form of one cut of bestClass.
func classCutStat(lin, expect, mu []float64, v float64) float64 {
	var st float64
	for q, m := range mu {
		if m > 0 {
			d := lin[q] - expect[q]
			st += d * d / m
		}
	}
	return st / v
}

// classScratch returns three zeroed slices of length k.
func (c *cutter) classScratch(k int) (a, b, d []float64) {
	if cap(c.cls) < 3*k {
		c.cls = make([]float64, 3*k)
	}
	s := c.cls[:3*k]
	clear(s)
	return s[:k], s[k : 2*k], s[2*k:]
}
