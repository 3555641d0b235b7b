package svm

import (
	"context"
	"math"
)

// scale standardises x (n × m.p, in place) and ys like e1071: when every
// column of x varies, each column becomes (x − mean)/sd and so does y;
// when some column is constant, nothing is scaled. A constant y is only
// centred (see Regressor).
func (m *Model) scale(x, ys []float64, n int) {
	m.xCenter, m.xScale = scaleColumns(x, n, m.p)
	if m.xCenter == nil {
		return
	}
	m.scaledX = true
	center, sd := meanSD(ys)
	if sd == 0 {
		sd = 1
	}
	m.yCenter, m.yScale = center, sd
	for i, v := range ys {
		ys[i] = (v - center) / sd
	}
}

// scaleColumns standardises the columns of x (n × p, row-major, in
// place) as e1071's svm() does: when every column varies, column c
// becomes (x − mean_c)/sd_c (R's scale()) and the centres and scales are
// returned; when some column is constant, x is left as it is and both
// are nil.
func scaleColumns(x []float64, n, p int) (center, sd []float64) {
	for c := range p {
		if constantColumn(x, n, p, c) {
			return nil, nil
		}
	}
	center, sd = make([]float64, p), make([]float64, p)
	col := make([]float64, n)
	for c := range p {
		for i := range n {
			col[i] = x[i*p+c]
		}
		center[c], sd[c] = meanSD(col)
		for i := range n {
			x[i*p+c] = (x[i*p+c] - center[c]) / sd[c]
		}
	}
	return center, sd
}

func constantColumn(x []float64, n, p, c int) bool {
	v := x[c]
	for i := 1; i < n; i++ {
		if x[i*p+c] != v {
			return false
		}
	}
	return true
}

// meanSD returns R's colMeans and scale() standard deviation of v:
// mean = Σv/n and sd = √(Σ(v−mean)²/max(1, n−1)). R accumulates both sums
// in extended precision; compensated summation gives the same doubles
// but in pathological cases.
func meanSD(v []float64) (mean, sd float64) {
	n := float64(len(v))
	s, e := sum2(v, func(x float64) float64 { return x })
	// (s + e)/n in double-double, then rounded once.
	q := s / n
	mean = q + (math.FMA(-q, n, s)+e)/n
	ss, se := sum2(v, func(x float64) float64 { d := x - mean; return float64(d * d) })
	return mean, math.Sqrt((ss + se) / math.Max(1, n-1))
}

// sum2 is Neumaier's compensated sum of f(v_i): the rounded sum and its
// correction.
func sum2(v []float64, f func(float64) float64) (s, e float64) {
	for _, x := range v {
		t := f(x)
		u := s + t
		if math.Abs(s) >= math.Abs(t) {
			e += (s - u) + t
		} else {
			e += (t - u) + s
		}
		s = u
	}
	return s, e
}

// solve runs the epsilon-SVR dual of libsvm's solve_epsilon_svr on the
// (scaled) rows x and targets ys.
func (m *Model) solve(ctx context.Context, prm Params, x, ys []float64, n int) (solveResult, error) {
	kern := newRBF(x, n, m.p, m.gamma)
	q := newSVRQ(kern, prm.CacheMB*(1<<20))
	lin := make([]float64, 2*n)
	sign := make([]int8, 2*n)
	for i, v := range ys {
		lin[i], sign[i] = prm.Epsilon-v, 1
		lin[i+n], sign[i+n] = prm.Epsilon+v, -1
	}
	s := newSolver(q, lin, sign, prm.Cost, prm.Tolerance)
	res, err := s.solve(ctx, !prm.NoShrinking)
	if err != nil {
		return solveResult{}, err
	}
	m.rho, m.iter, m.converged = res.rho, res.iter, res.converged
	return res, nil
}

// keepSupport stores the rows with α_i − α*_i ≠ 0 (column-major) and
// their coefficients.
func (m *Model) keepSupport(res solveResult, x []float64) {
	n, p := len(res.alpha)/2, m.p
	for i := range n {
		if a := res.alpha[i] - res.alpha[i+n]; math.Abs(a) > 0 {
			m.svIndex = append(m.svIndex, i)
			m.coef = append(m.coef, a)
		}
	}
	ns := len(m.svIndex)
	m.sv = make([]float64, p*ns)
	for s, i := range m.svIndex {
		for c, v := range x[i*p : i*p+p] {
			m.sv[c*ns+s] = v
		}
	}
}
