package svm

import (
	"context"
	"math"
)

// tau replaces a non-positive curvature in the two-variable subproblem
// (libsvm's TAU).
const tau = 1e-12

// Variable states of the box constraint 0 ≤ α_t ≤ C.
const (
	atLower uint8 = iota
	atUpper
	free
)

// solver is the SMO method of Fan, Chen and Lin (JMLR 6, 2005) for
//
//	min ½ αᵀQα + pᵀα  subject to  yᵀα = 0, 0 ≤ α_t ≤ C,
//
// as implemented by libsvm's Solver for Cp = Cn = C: maximal-violating
// first index, second index by the second-order gain, libsvm's clipping
// of the two-variable update, gradient G and the part Ḡ contributed by
// variables at the upper bound, shrinking every min(l, 1000) iterations,
// and the bias from the free variables' gradients. Every floating-point
// step follows libsvm's order so that the path, and hence the support
// vectors, are the same. It solves the epsilon-SVR dual and the C-SVC
// dual alike (see qMatrix): the labels y are the matrix's signs.
type solver struct {
	l, active int
	y         []int8
	// upSign is −y_t for t ∈ I_up (y_t = +1 and α_t < C, or y_t = −1
	// and α_t > 0) and NaN elsewhere; lowSign is y_t for t ∈ I_low (y_t =
	// +1 and α_t > 0, or y_t = −1 and α_t < C) and NaN elsewhere. The
	// products upSign_t·G_t and lowSign_t·G_t are then libsvm's −y_t·G_t
	// and y_t·G_t on the sets and NaN off them, which fails every
	// comparison, so the selection loops need no branch on membership.
	upSign, lowSign []float64
	cand            []int32 // scratch of workingSet: candidate indices
	// nextI and nextGmax are selectI's result, computed by step while it
	// updates G; nextValid is cleared when shrinking or gradient
	// reconstruction changes the active set or G.
	nextI     int
	nextGmax  float64
	nextValid bool
	gain      []float64 // and their gains
	g, gbar   []float64
	status    []uint8
	alpha     []float64
	p         []float64
	activeSet []int
	eps, c    float64
	unshrink  bool
	q         *qMatrix
	iter      int
}

// solveResult is the solution in the original variable order.
type solveResult struct {
	alpha     []float64
	rho       float64
	iter      int
	converged bool
}

func newSolver(q *qMatrix, p []float64, y []int8, c, eps float64) *solver {
	l := len(p)
	s := &solver{
		l: l, active: l, q: q, c: c, eps: eps,
		y: y, p: p,
		g:         append([]float64(nil), p...),
		gbar:      make([]float64, l),
		status:    make([]uint8, l),
		alpha:     make([]float64, l),
		activeSet: make([]int, l),
		upSign:    make([]float64, l),
		lowSign:   make([]float64, l),
		cand:      make([]int32, l+1),
		gain:      make([]float64, l+1),
	}
	for t := range l {
		s.activeSet[t] = t // all α_t = 0: at the lower bound, G = p, Ḡ = 0
		s.updateStatus(t)
	}
	return s
}

func (s *solver) updateStatus(t int) {
	switch {
	case s.alpha[t] >= s.c:
		s.status[t] = atUpper
	case s.alpha[t] <= 0:
		s.status[t] = atLower
	default:
		s.status[t] = free
	}
	st, y := s.status[t], float64(s.y[t])
	inUp, inLow := st != atUpper, st != atLower
	if y < 0 {
		inUp, inLow = inLow, inUp
	}
	s.upSign[t], s.lowSign[t] = math.NaN(), math.NaN()
	if inUp {
		s.upSign[t] = -y
	}
	if inLow {
		s.lowSign[t] = y
	}
}

// solve runs SMO to tolerance eps. It checks ctx between shrinking
// rounds.
func (s *solver) solve(ctx context.Context, shrinking bool) (solveResult, error) {
	maxIter := max(10000000, 100*s.l)
	counter := min(s.l, 1000) + 1
	for s.iter < maxIter {
		if counter--; counter == 0 {
			counter = min(s.l, 1000)
			if err := ctx.Err(); err != nil {
				return solveResult{}, err
			}
			if shrinking {
				s.shrink()
			}
		}
		i, j, ok := s.workingSet()
		if !ok {
			s.reconstructGradient()
			s.active = s.l
			if i, j, ok = s.workingSet(); !ok {
				break
			}
			counter = 1 // shrink at the next iteration
		}
		s.iter++
		s.step(i, j)
	}
	converged := s.iter < maxIter
	if !converged && s.active < s.l {
		s.reconstructGradient()
		s.active = s.l
	}
	res := solveResult{alpha: make([]float64, s.l), rho: s.rho(), iter: s.iter, converged: converged}
	for t, a := range s.alpha {
		res.alpha[s.activeSet[t]] = a
	}
	return res, nil
}

// step optimises the pair (i, j) and updates G, the states and Ḡ.
// Q_{i,t} = sign_i·sign_t·K_it, so libsvm's G_t += Q_it·Δα_i + Q_jt·Δα_j
// is computed as sign_t·(K_it·(sign_i·Δα_i) + K_jt·(sign_j·Δα_j)): the
// sign products are exact and rounding is symmetric, so the sums are
// libsvm's bit for bit.
func (s *solver) step(i, j int) {
	ri := s.q.kernelRow(i)
	rj := s.q.kernelRow(j)
	idx, fs := s.q.index, s.q.fsign
	qij := float64(float32(fs[i]*fs[j]) * ri[idx[j]])
	oldI, oldJ := s.alpha[i], s.alpha[j]
	if s.y[i] != s.y[j] {
		s.stepOpposite(i, j, qij)
	} else {
		s.stepSame(i, j, qij)
	}
	dI, dJ := (s.alpha[i]-oldI)*fs[i], (s.alpha[j]-oldJ)*fs[j]
	upI, upJ := s.status[i] == atUpper, s.status[j] == atUpper
	s.updateStatus(i)
	s.updateStatus(j)
	// The states are final, so the next selectI is done on the fly.
	gmax, next := gradUpdate(s.g[:s.active], s.upSign, fs, idx, ri, rj, dI, dJ)
	s.nextI, s.nextGmax, s.nextValid = next, gmax, true
	if upI != (s.status[i] == atUpper) {
		s.moveGbar(i, upI)
	}
	if upJ != (s.status[j] == atUpper) {
		s.moveGbar(j, upJ)
	}
}

// moveGbar removes (wasUpper) or adds C·Q_t from Ḡ. Q_tk =
// sign_t·sign_k·K_tk with exact signs, so libsvm's rounded C·Q_tk is
// ±(C·K_tk) rounded, read straight from the kernel row.
func (s *solver) moveGbar(t int, wasUpper bool) {
	row := s.q.kernelRow(t)
	st := s.q.fsign[t]
	if wasUpper {
		st = -st
	}
	gb, c := s.gbar, s.c
	idx, fs := s.q.index[:len(gb)], s.q.fsign[:len(gb)]
	for k, r := range idx {
		gb[k] += float64(c*float64(row[r])) * (st * fs[k])
	}
}

// stepOpposite solves the pair subproblem for y_i ≠ y_j, where
// α_i − α_j is conserved.
func (s *solver) stepOpposite(i, j int, qij float64) {
	a, c := s.alpha, s.c
	quad := s.q.qd[i] + s.q.qd[j] + 2*qij
	if quad <= 0 {
		quad = tau
	}
	delta := (-s.g[i] - s.g[j]) / quad
	diff := a[i] - a[j]
	a[i] += delta
	a[j] += delta
	if diff > 0 {
		if a[j] < 0 {
			a[j], a[i] = 0, diff
		}
	} else if a[i] < 0 {
		a[i], a[j] = 0, -diff
	}
	if diff > 0 { // C_i − C_j = 0
		if a[i] > c {
			a[i], a[j] = c, c-diff
		}
	} else if a[j] > c {
		a[j], a[i] = c, c+diff
	}
}

// stepSame solves the pair subproblem for y_i = y_j, where α_i + α_j is
// conserved.
func (s *solver) stepSame(i, j int, qij float64) {
	a, c := s.alpha, s.c
	quad := s.q.qd[i] + s.q.qd[j] - 2*qij
	if quad <= 0 {
		quad = tau
	}
	delta := (s.g[i] - s.g[j]) / quad
	sum := a[i] + a[j]
	a[i] -= delta
	a[j] += delta
	if sum > c {
		if a[i] > c {
			a[i], a[j] = c, sum-c
		}
	} else if a[j] < 0 {
		a[j], a[i] = 0, sum
	}
	if sum > c {
		if a[j] > c {
			a[j], a[i] = c, sum-c
		}
	} else if a[i] < 0 {
		a[i], a[j] = 0, sum
	}
}

// workingSet returns the pair (i, j) of libsvm's second-order selection,
// or ok = false when the maximal violation is below eps.
func (s *solver) workingSet() (i, j int, ok bool) {
	gmax, i := s.nextGmax, s.nextI
	if !s.nextValid {
		gmax, i = s.selectI()
	}
	gmax2, nc := s.candidates(gmax)
	if i != -1 && nc > 0 {
		j = s.selectJ(i, nc)
	} else {
		j = -1
	}
	if gmax+gmax2 < s.eps || j == -1 {
		return i, j, false
	}
	return i, j, true
}

// selectI returns gmax = max{−y_t·G_t : t ∈ I_up} and its index i (the
// last one among equals; −∞ and −1 when I_up is empty). Off I_up the
// product is NaN and never ≥ gmax.
func (s *solver) selectI() (gmax float64, i int) {
	gmax, i = math.Inf(-1), -1
	n := s.active
	g, upSign := s.g[:n], s.upSign[:n]
	for t, sg := range upSign {
		if v := sg * g[t]; v >= gmax {
			gmax, i = v, t
		}
	}
	return gmax, i
}

// candidates returns gmax2 = max{y_t·G_t : t ∈ I_low} and stores, in
// increasing t, the nc variables t ∈ I_low with a positive gain
// gmax + y_t·G_t (libsvm's gmax − G_t for y_t = −1, the same
// floating-point operation) into cand and their gains into gain. Off
// I_low, v is NaN: gmax2 keeps its value and the gain test fails. The
// store is unconditional and the count advances by the test's outcome,
// so the loop has no branch on that hard-to-predict test. With AVX2,
// candVec does whole blocks of four (vec_amd64.s) and the loop the rest.
func (s *solver) candidates(gmax float64) (gmax2 float64, nc int) {
	gmax2 = math.Inf(-1)
	n := s.active
	g, lowSign := s.g[:n], s.lowSign[:n]
	cand, gain := s.cand[:n+1], s.gain[:n+1]
	lanes := [4]float64{gmax2, gmax2, gmax2, gmax2}
	done, nc := candVec(lowSign, g, gmax, cand, gain, &lanes)
	for _, v := range lanes { // the sign of a zero maximum may differ: gmax2 only enters gmax + gmax2 < eps
		gmax2 = max2(gmax2, v)
	}
	for t := done; t < n; t++ {
		sg := lowSign[t]
		v := sg * g[t]
		gmax2 = max2(gmax2, v)
		gradDiff := gmax + v
		cand[nc], gain[nc] = int32(t), gradDiff
		inc := 0
		if gradDiff > 0 {
			inc = 1
		}
		nc += inc
	}
	return gmax2, nc
}

// selectJ returns the candidate t minimising −gain_t²/curvature (the
// last one among equals). libsvm's curvature Q_ii + Q_tt − 2·y_i·y_t·Q_it
// equals QD_i + QD_t − 2·K_it for every t (y = sign in both duals, see
// qMatrix), with the same rounding.
func (s *solver) selectJ(i, nc int) int {
	ki, qdi := s.q.kernelRow(i), s.q.qd[i]
	idx, qd := s.q.index, s.q.qd
	j, objMin := -1, math.Inf(1)
	gain := s.gain[:nc]
	for c, t := range s.cand[:nc] {
		gradDiff := gain[c]
		quad := qdi + qd[t] - 2*float64(ki[idx[t]])
		if quad <= 0 {
			quad = tau
		}
		if obj := -(gradDiff * gradDiff) / quad; obj <= objMin {
			j, objMin = int(t), obj
		}
	}
	return j
}

// max2 is libsvm's "if (v >= m) m = v".
func max2(m, v float64) float64 {
	if v >= m {
		return v
	}
	return m
}
