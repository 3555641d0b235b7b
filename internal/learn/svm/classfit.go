package svm

import (
	"context"
	"math"
)

// grouping is libsvm's svm_group_classes on class codes: the classes in
// order of first occurrence and the training rows grouped by class, each
// class's rows in data order.
type grouping struct {
	labels []int // class codes, libsvm's order
	start  []int // rows[start[c] : start[c]+count[c]] are class labels[c]'s
	count  []int
	rows   []int
}

// groupClasses groups the rows of the class codes y. (libsvm also swaps
// the labels −1 and +1 of a two-class problem where −1 comes first;
// codes here are never negative.)
func groupClasses(y []float64) grouping {
	var g grouping
	pos := map[int]int{} // code → position in labels
	of := make([]int, len(y))
	for i, v := range y {
		c, ok := pos[int(v)]
		if !ok {
			c = len(g.labels)
			pos[int(v)] = c
			g.labels = append(g.labels, int(v))
			g.count = append(g.count, 0)
		}
		g.count[c]++
		of[i] = c
	}
	g.start = make([]int, len(g.labels))
	for c := 1; c < len(g.start); c++ {
		g.start[c] = g.start[c-1] + g.count[c-1]
	}
	next := append([]int(nil), g.start...)
	g.rows = make([]int, len(y))
	for i, c := range of {
		g.rows[next[c]] = i
		next[c]++
	}
	return g
}

// classRows returns the training rows of the class at position c.
func (g grouping) classRows(c int) []int { return g.rows[g.start[c] : g.start[c]+g.count[c]] }

// trainer fits the two-class C-SVCs of one FitClass call on the scaled
// training rows x (row-major, p columns).
type trainer struct {
	ctx   context.Context
	x     []float64
	p     int
	gamma float64
	prm   Params
}

// binaryFit is one two-class C-SVC (libsvm's svm_train_one for C_SVC):
// coef[t] = y_t·α_t for the t-th row of the problem, and the bias ρ of
// f(x) = Σ_t coef_t·K(x, x_t) − ρ.
type binaryFit struct {
	coef      []float64
	rho       float64
	converged bool
}

// fit solves libsvm's C-SVC dual on the training rows given, whose first
// npos have label +1 and the rest −1, in that order (libsvm's grouped
// order: the variables' order decides ties in SMO's selection).
func (t *trainer) fit(rows []int, npos int) (binaryFit, error) {
	l, p := len(rows), t.p
	x := make([]float64, l*p)
	y := make([]int8, l)
	lin := make([]float64, l)
	for s, r := range rows {
		copy(x[s*p:(s+1)*p], t.x[r*p:(r+1)*p])
		y[s], lin[s] = -1, -1
		if s < npos {
			y[s] = 1
		}
	}
	q := newSVCQ(newRBF(x, l, p, t.gamma), y, t.prm.CacheMB*(1<<20))
	s := newSolver(q, lin, append([]int8(nil), y...), t.prm.Cost, t.prm.Tolerance)
	res, err := s.solve(t.ctx, !t.prm.NoShrinking)
	if err != nil {
		return binaryFit{}, err
	}
	for s, a := range res.alpha {
		res.alpha[s] = a * float64(y[s])
	}
	return binaryFit{coef: res.alpha, rho: res.rho, converged: res.converged}, nil
}

// expansion returns f's support vectors (the rows with a non-zero
// coefficient, in order) as a Model whose decision method evaluates f as
// libsvm's svm_predict_values does.
func (t *trainer) expansion(rows []int, f binaryFit) *Model {
	m := &Model{p: t.p, gamma: t.gamma, rho: f.rho}
	for s, c := range f.coef {
		if math.Abs(c) > 0 {
			m.svIndex = append(m.svIndex, rows[s])
			m.coef = append(m.coef, c)
		}
	}
	m.sv = svColumns(t.x, t.p, m.svIndex)
	return m
}

// svColumns returns the given rows of x (row-major, p columns) as a p ×
// len(rows) column-major block.
func svColumns(x []float64, p int, rows []int) []float64 {
	ns := len(rows)
	sv := make([]float64, p*ns)
	for s, i := range rows {
		for c, v := range x[i*p : i*p+p] {
			sv[c*ns+s] = v
		}
	}
	return sv
}

// train fits every pair of classes of g in libsvm's order, each with its
// Platt sigmoid, and keeps the support vectors as libsvm's svm_train
// does: the rows with a non-zero coefficient in any pair, grouped by
// class.
func (m *ClassModel) train(t *trainer, g grouping, draw func() float64) error {
	m.labels = g.labels
	nc := len(g.labels)
	nonzero := make([]bool, len(g.rows))
	fits := make([]binaryFit, 0, nc*(nc-1)/2)
	for a := range nc {
		for b := a + 1; b < nc; b++ {
			rows := append(append([]int(nil), g.classRows(a)...), g.classRows(b)...)
			probA, probB, err := t.platt(rows, g.count[a], draw)
			if err != nil {
				return err
			}
			f, err := t.fit(rows, g.count[a])
			if err != nil {
				return err
			}
			for s, c := range f.coef {
				at := g.start[a] + s
				if s >= g.count[a] {
					at = g.start[b] + s - g.count[a]
				}
				nonzero[at] = nonzero[at] || math.Abs(c) > 0
			}
			fits = append(fits, f)
			m.pairs = append(m.pairs, pairModel{a: a, b: b, rho: f.rho, probA: probA, probB: probB, converged: f.converged})
		}
	}
	m.keepSupport(t, g, nonzero, fits)
	return nil
}

// keepSupport stores the support vectors (grouped positions marked in
// nonzero) and each pair's coefficients over its two classes' support
// vectors, zeros included (libsvm's sv_coef).
func (m *ClassModel) keepSupport(t *trainer, g grouping, nonzero []bool, fits []binaryFit) {
	nc := len(g.labels)
	m.svStart, m.nSV = make([]int, nc), make([]int, nc)
	for c := range nc {
		m.svStart[c] = len(m.svIndex)
		for s, r := range g.classRows(c) {
			if nonzero[g.start[c]+s] {
				m.svIndex = append(m.svIndex, r)
			}
		}
		m.nSV[c] = len(m.svIndex) - m.svStart[c]
	}
	m.sv = svColumns(t.x, t.p, m.svIndex)
	for q, f := range fits {
		pr := &m.pairs[q]
		ca := g.count[pr.a]
		pr.coefA = supportCoef(f.coef[:ca], nonzero[g.start[pr.a]:][:ca])
		pr.coefB = supportCoef(f.coef[ca:], nonzero[g.start[pr.b]:][:g.count[pr.b]])
	}
}

// supportCoef returns the coefficients of one class's rows that are
// support vectors of the model.
func supportCoef(coef []float64, nonzero []bool) []float64 {
	var out []float64
	for s, c := range coef {
		if nonzero[s] {
			out = append(out, c)
		}
	}
	return out
}
