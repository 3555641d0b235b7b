package svm

import "math"

// maxViolations returns libsvm's Gmax1 = max{−y_t·G_t : t ∈ I_up} and
// Gmax2 = max{y_t·G_t : t ∈ I_low} over the active set.
func (s *solver) maxViolations() (gmax1, gmax2 float64) {
	gmax1, gmax2 = math.Inf(-1), math.Inf(-1)
	for t := range s.active {
		g := s.g[t]
		if s.y[t] > 0 {
			if s.status[t] != atUpper {
				gmax1 = max2(gmax1, -g)
			}
			if s.status[t] != atLower {
				gmax2 = max2(gmax2, g)
			}
		} else {
			if s.status[t] != atUpper {
				gmax2 = max2(gmax2, -g)
			}
			if s.status[t] != atLower {
				gmax1 = max2(gmax1, g)
			}
		}
	}
	return gmax1, gmax2
}

// shrink moves variables that are at a bound and cannot enter a
// violating pair to the end of the active set; once the violation falls
// below 10·eps it first restores the whole problem (once).
func (s *solver) shrink() {
	s.nextValid = false
	gmax1, gmax2 := s.maxViolations()
	if !s.unshrink && gmax1+gmax2 <= s.eps*10 {
		s.unshrink = true
		s.reconstructGradient()
		s.active = s.l
	}
	for t := 0; t < s.active; t++ {
		if !s.beShrunk(t, gmax1, gmax2) {
			continue
		}
		s.active--
		for s.active > t {
			if !s.beShrunk(s.active, gmax1, gmax2) {
				s.swap(t, s.active)
				break
			}
			s.active--
		}
	}
}

func (s *solver) beShrunk(t int, gmax1, gmax2 float64) bool {
	g := s.g[t]
	switch s.status[t] {
	case atUpper:
		if s.y[t] > 0 {
			return -g > gmax1
		}
		return -g > gmax2
	case atLower:
		if s.y[t] > 0 {
			return g > gmax2
		}
		return g > gmax1
	}
	return false
}

// swap exchanges variables i and j everywhere.
func (s *solver) swap(i, j int) {
	s.q.swap(i, j)
	s.y[i], s.y[j] = s.y[j], s.y[i]
	s.upSign[i], s.upSign[j] = s.upSign[j], s.upSign[i]
	s.lowSign[i], s.lowSign[j] = s.lowSign[j], s.lowSign[i]
	s.g[i], s.g[j] = s.g[j], s.g[i]
	s.status[i], s.status[j] = s.status[j], s.status[i]
	s.alpha[i], s.alpha[j] = s.alpha[j], s.alpha[i]
	s.p[i], s.p[j] = s.p[j], s.p[i]
	s.activeSet[i], s.activeSet[j] = s.activeSet[j], s.activeSet[i]
	s.gbar[i], s.gbar[j] = s.gbar[j], s.gbar[i]
}

// reconstructGradient recomputes G for the inactive variables from Ḡ and
// the free variables, choosing libsvm's cheaper loop order.
func (s *solver) reconstructGradient() {
	s.nextValid = false
	if s.active == s.l {
		return
	}
	for t := s.active; t < s.l; t++ {
		s.g[t] = s.gbar[t] + s.p[t]
	}
	frees := s.cand[:0] // the free active variables, in order (workingSet's scratch)
	for t := range s.active {
		if s.status[t] == free {
			frees = append(frees, int32(t))
		}
	}
	// α_t·Q_it = ±(α_t·K_it) rounded: the signs are exact (see moveGbar).
	idx, fs := s.q.index, s.q.fsign
	if len(frees)*s.l > 2*s.active*(s.l-s.active) {
		for i := s.active; i < s.l; i++ {
			row, si, gi := s.q.kernelRow(i), fs[i], s.g[i]
			for _, t := range frees {
				gi += float64(s.alpha[t]*float64(row[idx[t]])) * (si * fs[t])
			}
			s.g[i] = gi
		}
		return
	}
	for _, i := range frees {
		row, a, si := s.q.kernelRow(int(i)), s.alpha[i], fs[i]
		for t := s.active; t < s.l; t++ {
			s.g[t] += float64(a*float64(row[idx[t]])) * (si * fs[t])
		}
	}
}

// rho is the bias: the mean of y_t·G_t over free variables, or the
// midpoint of the feasible interval when none is free.
func (s *solver) rho() float64 {
	nFree := 0
	ub, lb, sumFree := math.Inf(1), math.Inf(-1), 0.0
	for t := range s.active {
		yg := float64(s.y[t]) * s.g[t]
		switch {
		case s.status[t] == atUpper && s.y[t] < 0, s.status[t] == atLower && s.y[t] > 0:
			if !(ub < yg) { // libsvm's min(ub, yG) = (ub < yG) ? ub : yG
				ub = yg
			}
		case s.status[t] == atUpper, s.status[t] == atLower:
			if !(lb > yg) { // libsvm's max(lb, yG) = (lb > yG) ? lb : yG
				lb = yg
			}
		default:
			nFree++
			sumFree += yg
		}
	}
	if nFree > 0 {
		return sumFree / float64(nFree)
	}
	return (ub + lb) / 2
}
