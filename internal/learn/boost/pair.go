package boost

// scanBoth is scan in both directions, ascending then descending, for
// α = 0, with the result of the two scans one after the other: both
// directions advance in one loop (two independent chains of additions
// instead of one after the other), each keeping its own best, and the
// two are merged as the sequential scans would leave them. Within one
// feature a candidate replaces the best only if strictly better, so the
// sequential result is the first candidate of the largest loss change in
// scan order (ascending before descending) if it beats the incoming best:
// the descending scan's best wins only if strictly better than the
// ascending one's. A candidate below the larger of the two bests so far
// can win in neither way, so both directions screen against it.
func (s *scorer) scanBoth(seg []entry, grad []float32, f int32, ns nodeStats, best *split) {
	bf, bb := *best, *best
	c := pair{lo: max(s.minH, 1), hi: ns.h - s.minH, h: ns.h, tot: ns.g, invS: s.invS[:ns.h+1]}
	root := float64(ns.root)
	c.bar = s.bar(max(bf.loss, bb.loss), root)
	n := len(seg)
	for c.next(seg, grad); c.k < n; c.next(seg, grad) {
		eF, eB := seg[c.k], seg[n-1-c.k]
		upd := false
		if c.hitF && s.candidate(c.egF, c.k, ns, f, midpoint(eF.v, c.lastF), false, &bf) {
			upd = true
		}
		if c.hitB && s.candidate(c.egB, c.k, ns, f, midpoint(eB.v, c.lastB), true, &bb) {
			upd = true
		}
		if upd {
			c.bar = s.bar(max(bf.loss, bb.loss), root)
		}
		c.egF += float64(grad[eF.row])
		c.egB += float64(grad[eB.row])
		c.lastF, c.lastB = eF.v, eB.v
		c.k++
	}
	s.endCandidate(c.egF, c.lastF, n, ns, f, false, &bf)
	s.endCandidate(c.egB, c.lastB, n, ns, f, true, &bb)
	*best = bf
	if bb.loss > bf.loss {
		*best = bb
	}
}

// pair is the state of scanBoth: k entries scanned in each direction,
// whose gradients sum to egF ascending and egB descending and whose last
// values are lastF and lastB; hitF and hitB tell which direction's
// candidate at k passed the screen (see cursor).
type pair struct {
	k, lo, hi, h int
	egF, egB     float64
	tot, bar     float64
	lastF, lastB float32
	invS         []float64
	hitF, hitB   bool
}

// next advances c to the next k where a candidate of either direction
// passes the screen, or to the end (c.k = len(seg)).
func (c *pair) next(seg []entry, grad []float32) {
	k, h, tot, bar, inv := c.k, c.h, c.tot, c.bar, c.invS
	egF, egB, lastF, lastB := c.egF, c.egB, c.lastF, c.lastB
	n := len(seg)
	for ; k < min(c.lo, n); k++ {
		eF, eB := seg[k], seg[n-1-k]
		egF += float64(grad[eF.row])
		egB += float64(grad[eB.row])
		lastF, lastB = eF.v, eB.v
	}
	if end := min(c.hi+1, n); k < end {
		// candidates k+i: gain terms inv[k+i] = ia[i], inv[h−k−i] =
		// ib[m−1−i]; ascending entry s[i], descending entry r[m−1−i]
		s, r := seg[k:end], seg[n-end:n-k]
		m := len(s)
		r = r[:m]
		ia, ib := inv[k : k+m][:m], inv[h-k-m+1 : h-k+1][:m]
		for i, eF := range s {
			eB := r[m-1-i]
			a, b := ia[i], ib[m-1-i]
			gF, gB := tot-egF, tot-egB
			hitF := egF*egF*a+gF*gF*b >= bar && eF.v != lastF
			hitB := egB*egB*a+gB*gB*b >= bar && eB.v != lastB
			if hitF || hitB {
				c.k, c.egF, c.egB, c.lastF, c.lastB, c.hitF, c.hitB = k+i, egF, egB, lastF, lastB, hitF, hitB
				return
			}
			egF += float64(grad[eF.row])
			egB += float64(grad[eB.row])
			lastF, lastB = eF.v, eB.v
		}
		k = end
	}
	for ; k < n; k++ {
		eF, eB := seg[k], seg[n-1-k]
		egF += float64(grad[eF.row])
		egB += float64(grad[eB.row])
		lastF, lastB = eF.v, eB.v
	}
	c.k, c.egF, c.egB, c.lastF, c.lastB = k, egF, egB, lastF, lastB
}
