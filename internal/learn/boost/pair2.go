package boost

// scanTwo is scan descending over two features f and f+1 that get no
// ascending scan and have as many observed entries in the node (s1 and
// s2, of equal length): both advance in one loop, each keeping its own
// best, merged as the sequential scans would leave them. A candidate on
// f+1 replaces a best on f only if strictly better, so f+1's best wins
// only if strictly better than f's; a candidate below the larger of the
// two bests so far can win in neither way (see scanBoth).
func (s *scorer) scanTwo(s1, s2 []entry, grad []float32, f int32, ns nodeStats, best *split) {
	b1, b2 := *best, *best
	c := pair{lo: max(s.minH, 1), hi: ns.h - s.minH, h: ns.h, tot: ns.g, invS: s.invS[:ns.h+1]}
	root := float64(ns.root)
	c.bar = s.bar(max(b1.loss, b2.loss), root)
	n := len(s1)
	s2 = s2[:n]
	for c.next2(s1, s2, grad); c.k < n; c.next2(s1, s2, grad) {
		e1, e2 := s1[n-1-c.k], s2[n-1-c.k]
		upd := false
		if c.hitF && s.candidate(c.egF, c.k, ns, f, midpoint(e1.v, c.lastF), true, &b1) {
			upd = true
		}
		if c.hitB && s.candidate(c.egB, c.k, ns, f+1, midpoint(e2.v, c.lastB), true, &b2) {
			upd = true
		}
		if upd {
			c.bar = s.bar(max(b1.loss, b2.loss), root)
		}
		c.egF += float64(grad[e1.row])
		c.egB += float64(grad[e2.row])
		c.lastF, c.lastB = e1.v, e2.v
		c.k++
	}
	s.endCandidate(c.egF, c.lastF, n, ns, f, true, &b1)
	s.endCandidate(c.egB, c.lastB, n, ns, f+1, true, &b2)
	*best = b1
	if b2.loss > b1.loss {
		*best = b2
	}
}

// next2 is pair.next for scanTwo: egF, lastF, hitF belong to the
// descending scan of s1, egB, lastB, hitB to that of s2 (same length).
func (c *pair) next2(s1, s2 []entry, grad []float32) {
	k, h, tot, bar, inv := c.k, c.h, c.tot, c.bar, c.invS
	eg1, eg2, last1, last2 := c.egF, c.egB, c.lastF, c.lastB
	n := len(s1)
	s2 = s2[:n]
	for ; k < min(c.lo, n); k++ {
		e1, e2 := s1[n-1-k], s2[n-1-k]
		eg1 += float64(grad[e1.row])
		eg2 += float64(grad[e2.row])
		last1, last2 = e1.v, e2.v
	}
	if end := min(c.hi+1, n); k < end {
		// candidates k+i: entries r1[m−1−i], r2[m−1−i], gain terms
		// inv[k+i] = ia[i], inv[h−k−i] = ib[m−1−i]
		r1, r2 := s1[n-end:n-k], s2[n-end:n-k]
		m := len(r1)
		r2 = r2[:m]
		ia, ib := inv[k : k+m][:m], inv[h-k-m+1 : h-k+1][:m]
		for i := range m {
			j := m - 1 - i
			e1, e2 := r1[j], r2[j]
			a, b := ia[i], ib[j]
			g1, g2 := tot-eg1, tot-eg2
			hit1 := eg1*eg1*a+g1*g1*b >= bar && e1.v != last1
			hit2 := eg2*eg2*a+g2*g2*b >= bar && e2.v != last2
			if hit1 || hit2 {
				c.k, c.egF, c.egB, c.lastF, c.lastB, c.hitF, c.hitB = k+i, eg1, eg2, last1, last2, hit1, hit2
				return
			}
			eg1 += float64(grad[e1.row])
			eg2 += float64(grad[e2.row])
			last1, last2 = e1.v, e2.v
		}
		k = end
	}
	for ; k < n; k++ {
		e1, e2 := s1[n-1-k], s2[n-1-k]
		eg1 += float64(grad[e1.row])
		eg2 += float64(grad[e2.row])
		last1, last2 = e1.v, e2.v
	}
	c.k, c.egF, c.egB, c.lastF, c.lastB = k, eg1, eg2, last1, last2
}
