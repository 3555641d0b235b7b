package tree

import "math"

// surrogate is a surrogate split of a node: a row missing the primary
// variable but observing feature goes to child 0 when
// (x < thr) == lowLeft, to child 1 otherwise.
type surrogate struct {
	feature int
	thr     float64
	lowLeft bool
	agree   float64 // fraction of the primary-observed entries it classifies as the primary does
	adj     float64 // rpart's adjusted agreement: gain over the majority rule, in [0, 1]
}

// Codes of s.side: the primary split's verdict for an entry.
const (
	sideNA int8 = 0 // primary variable missing
	side0  int8 = 1 // goes to child 0
	side1  int8 = 2 // goes to child 1
)

// markSides records in s.side the side of the primary split c for every
// entry of [lo, hi) and returns the entry counts per side.
func (g *grower) markSides(c cand, lo, hi int) (t0, t1 int) {
	s := g.s
	k := s.observed(c.feature, lo, hi)
	vals, ids := s.val[c.feature][lo:hi], s.idx[c.feature][lo:hi]
	for p, e := range ids[:k] {
		if vals[p] < c.thr {
			s.side[e] = side0
			t0++
		} else {
			s.side[e] = side1
		}
	}
	for _, e := range ids[k:] {
		s.side[e] = sideNA
	}
	return t0, k - t0
}

// findSurrogates returns up to MaxSurrogate surrogate splits for the
// primary split c of the node [lo, hi), with rpart's rules
// (surrogatestyle = 0): for each other column, the threshold maximising
// the number of entries sent the primary's way among the entries
// observing both, with at least two such entries on each side and a
// strict gain over the majority rule; agreement counted over all
// primary-observed entries; ranked by agreement, ties to the lower
// column; kept only when the adjusted agreement exceeds 1e-10.
// s.side must hold the primary's sides (markSides).
func (g *grower) findSurrogates(c cand, lo, hi, t0, t1 int) []surrogate {
	var out []surrogate
	total := float64(t0 + t1)
	majority := float64(max(t0, t1)) / total
	for j := range g.s.d {
		if j == c.feature {
			continue
		}
		thr, lowLeft, agree, ok := g.surrogateScan(j, lo, hi, t0, t1)
		if !ok {
			continue
		}
		a := float64(agree) / total
		adj := (a - majority) / (1 - majority)
		if adj <= 1e-10 {
			continue
		}
		su := surrogate{feature: j, thr: thr, lowLeft: lowLeft, agree: a, adj: adj}
		pos := len(out)
		for pos > 0 && su.agree > out[pos-1].agree {
			pos--
		}
		if pos >= g.p.MaxSurrogate {
			continue
		}
		out = append(out, surrogate{})
		copy(out[pos+1:], out[pos:])
		out[pos] = su
		if len(out) > g.p.MaxSurrogate {
			out = out[:g.p.MaxSurrogate]
		}
	}
	return out
}

// surrogateScan is rpart's choose_surg for a continuous column j: it
// marches up the sorted observed values, moving entries from the "high"
// group to the "low" one, and at each boundary between distinct values
// (entries missing the primary included in the boundaries) scores both
// orientations. It returns the threshold, whether the low group goes to
// child 0, and the number of agreeing entries. t0 and t1 count the
// node's entries on each side of the primary.
func (g *grower) surrogateScan(j, lo, hi, t0, t1 int) (thr float64, lowLeft bool, agree int, ok bool) {
	s := g.s
	k := s.observed(j, lo, hi)
	vals, ids := s.val[j][lo:lo+k], s.idx[j][lo:lo+k]
	var cnt [3]int // per side code, over the entries missing column j
	for _, e := range s.idx[j][lo+k : hi] {
		cnt[s.side[e]]++
	}
	c0, c1 := t0-cnt[side0], t1-cnt[side1]
	agree = max(c0, c1)
	l0, l1 := 0, 0 // entries of the low group on side 0, side 1
	for i := 0; i < k && (c0-l0)+(c1-l1) >= 2; i++ {
		if l0+l1 >= 2 && vals[i] != vals[i-1] {
			if a := (c0 - l0) + l1; a > agree {
				agree, lowLeft, thr, ok = a, false, midpoint(vals[i-1], vals[i]), true
			} else if b := l0 + (c1 - l1); b > agree {
				agree, lowLeft, thr, ok = b, true, midpoint(vals[i-1], vals[i]), true
			}
		}
		sd := s.side[ids[i]] // sideNA 0, side0 1, side1 2: branch-free counts
		l0 += int(sd & 1)
		l1 += int(sd >> 1)
	}
	return thr, lowLeft, agree, ok
}

// routeSurrogate sets s.dest for the entries of [lo, hi) under the
// surrogate strategy: primary side when observed, else the first
// surrogate whose column is observed, else the side with more
// primary-observed entries, else (a tie) nowhere: rpart leaves such
// entries in the parent.
func (g *grower) routeSurrogate(lo, hi int, sur []surrogate, t0, t1 int) {
	s := g.s
	for _, e := range s.idx[0][lo:hi] {
		if s.side[e] != sideNA {
			s.dest[e] = s.side[e] - 1
			continue
		}
		s.dest[e] = majoritySide(t0, t1)
		for _, su := range sur {
			if v := s.at(e, su.feature); !math.IsNaN(v) {
				s.dest[e] = 1
				if (v < su.thr) == su.lowLeft {
					s.dest[e] = 0
				}
				break
			}
		}
	}
}

// majoritySide returns 0 or 1 for the side with more entries, 2 on a tie.
func majoritySide(t0, t1 int) int8 {
	switch {
	case t0 > t1:
		return 0
	case t1 > t0:
		return 1
	}
	return 2
}
