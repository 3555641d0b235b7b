package boost

import "math"

// rtEps is XGBoost's kRtEps (float32 1e-6): the minimal loss change of a
// split and the gap of the all-observed-versus-missing threshold.
const rtEps float32 = 1e-6

// scorer evaluates XGBoost's gain and weight formulas with XGBoost's
// mixture of precisions: gradient sums in float64, each gain term
// G²/(H+λ) rounded to float32 before the float32 division, sums and
// differences of gain terms in float32.
type scorer struct {
	lambda, alpha, mcw float64 // float32-rounded parameters
	minH               int     // smallest row count ≥ min_child_weight
	// denom[h] = float32(h + λ) for a hessian sum (row count) h.
	denom []float32
	// inv[h] = 1/(h + λ) in float64 (0 for h = 0), for screening (scan);
	// invS[h] = inv[h]·(1 + 1e-6), the same inflated by the screen's
	// error bound.
	inv, invS []float64
	// exhaustive turns screening off (tests compare both ways).
	exhaustive bool
}

func newScorer(p Params, n int) *scorer {
	s := &scorer{
		lambda: float64(float32(p.Lambda)),
		alpha:  float64(float32(p.Alpha)),
		mcw:    float64(float32(p.MinChildWeight)),
		denom:  make([]float32, n+1),
		inv:    make([]float64, n+1),
		invS:   make([]float64, n+1),
	}
	s.minH = int(min(math.Ceil(s.mcw), float64(n+1))) // counts are ≤ n
	for h := range s.denom {
		s.denom[h] = float32(float64(h) + s.lambda)
		if h > 0 {
			s.inv[h] = 1 / (float64(h) + s.lambda)
			s.invS[h] = s.inv[h] * (1 + 1e-6)
		}
	}
	return s
}

// thresholdL1 is the soft-thresholding of a gradient sum by α.
func (s *scorer) thresholdL1(g float64) float64 {
	switch {
	case g > s.alpha:
		return g - s.alpha
	case g < -s.alpha:
		return g + s.alpha
	}
	return 0
}

// gain is XGBoost's CalcGainGivenWeight without constraints:
// float32(T(G)²) / float32(H+λ), 0 for an empty side. It has no
// min_child_weight check, as in XGBoost.
func (s *scorer) gain(g float64, h int) float32 {
	if h <= 0 {
		return 0
	}
	if s.alpha != 0 {
		g = s.thresholdL1(g)
	}
	return float32(g*g) / s.denom[h]
}

// weight is XGBoost's CalcWeight: −T(G)/(H+λ) in float64 rounded to
// float32, 0 when H is below min_child_weight.
func (s *scorer) weight(g float64, h int) float32 {
	if float64(h) < s.mcw || h <= 0 {
		return 0
	}
	return float32(-s.thresholdL1(g) / (float64(h) + s.lambda))
}

// split is a candidate split of a node: XGBoost's SplitEntry without the
// child statistics (the children's are recomputed from their rows).
type split struct {
	loss    float32 // loss change, XGBoost's loss_chg
	feat    int32   // feature index
	thresh  float32 // observed values < thresh go left
	defLeft bool    // missing values go left
}

// better is XGBoost's SplitEntry::NeedReplace: a candidate on a feature
// not before the current one must be strictly better; one on an earlier
// feature wins ties. Infinite losses never win.
func (b *split) better(loss float32, f int32) bool {
	if b.feat <= f {
		return loss > b.loss && loss <= math.MaxFloat32
	}
	return !(b.loss > loss) && !math.IsInf(float64(loss), 0)
}

// nodeStats are the gradient statistics of a node being split.
type nodeStats struct {
	g    float64 // gradient sum, accumulated in row order
	h    int     // row count, the hessian sum for squared error
	hs   float64 // hessian sum in row order, set only for weighted hessians
	root float32 // gain of the node unsplit, float32 like XGBoost's root_gain
}

// midpoint is XGBoost's threshold between the adjacent distinct values v
// and last: their float32 midpoint, or last when the midpoint rounds to v.
func midpoint(v, last float32) float32 {
	m := (v + last) * 0.5
	if m == v {
		return last
	}
	return m
}

// scan is XGBoost's EnumerateSplit over the observed entries seg of one
// feature in a node (ascending values). The descending scan (d_step = −1,
// backward) accumulates the right child from the largest value down and
// sends missing values left; the ascending scan (forward) accumulates the
// left child from the smallest value up and sends missing values right.
// Both end with the split that separates every observed value from the
// missing ones. best is updated in place.
//
// Screening: each candidate's loss change is first evaluated in float64
// with multiplications only (within ~1e-15 relative of the real number),
// whereas the float32 value XGBoost computes differs from the real number
// by at most 2⁻²⁴·(5·(G_L²/(H_L+λ) + G_R²/(H_R+λ)) + |root gain|): one
// rounding each for the square, the denominator, the quotient, the sum and
// the difference. Only candidates that this error could lift to best.loss
// get the exact float32 evaluation, so screening never changes the chosen
// split; it saves the two divisions on almost every candidate.
func (s *scorer) scan(seg []entry, grad []float32, f int32, ns nodeStats, best *split, backward bool) {
	var eg float64 // gradient sum of the scanned side
	var last float32
	switch {
	case s.alpha != 0:
		eg, last = s.scanL1(seg, grad, f, ns, best, backward)
	case backward:
		eg, last = s.scanDown(seg, grad, f, ns, best)
	default:
		eg, last = s.scanUp(seg, grad, f, ns, best)
	}
	s.endCandidate(eg, last, len(seg), ns, f, backward, best)
}

// endCandidate evaluates a scan's last candidate, the split of the eh
// observed entries (gradient sum eg, last value scanned last) from the
// missing ones.
func (s *scorer) endCandidate(eg float64, last float32, eh int, ns nodeStats, f int32, backward bool, best *split) {
	if float64(eh) >= s.mcw && float64(ns.h-eh) >= s.mcw {
		gap := abs32(last) + rtEps
		if backward {
			gap = -gap
		}
		s.candidate(eg, eh, ns, f, last+gap, backward, best)
	}
}

// scanUp is scan's loop over the candidates between values for α = 0 in
// the ascending direction. It returns the gradient sum of seg and the
// last value scanned.
func (s *scorer) scanUp(seg []entry, grad []float32, f int32, ns nodeStats, best *split) (float64, float32) {
	c := cursor{lo: max(s.minH, 1), hi: ns.h - s.minH, h: ns.h, tot: ns.g, invS: s.invS[:ns.h+1]}
	root := float64(ns.root)
	c.bar = s.bar(best.loss, root)
	for c.next(seg, grad); c.k < len(seg); c.next(seg, grad) {
		v := seg[c.k].v
		if s.candidate(c.eg, c.k, ns, f, midpoint(v, c.last), false, best) {
			c.bar = s.bar(best.loss, root)
		}
		c.eg += float64(grad[seg[c.k].row])
		c.last = v
		c.k++
	}
	return c.eg, c.last
}

// scanDown is scanUp in the descending direction.
func (s *scorer) scanDown(seg []entry, grad []float32, f int32, ns nodeStats, best *split) (float64, float32) {
	c := cursor{lo: max(s.minH, 1), hi: ns.h - s.minH, h: ns.h, tot: ns.g, invS: s.invS[:ns.h+1]}
	root := float64(ns.root)
	c.bar = s.bar(best.loss, root)
	n := len(seg)
	for c.nextDown(seg, grad); c.k < n; c.nextDown(seg, grad) {
		e := seg[n-1-c.k]
		if s.candidate(c.eg, c.k, ns, f, midpoint(e.v, c.last), true, best) {
			c.bar = s.bar(best.loss, root)
		}
		c.eg += float64(grad[e.row])
		c.last = e.v
		c.k++
	}
	return c.eg, c.last
}

// cursor is the state of a scan for α = 0: k entries scanned, whose
// gradients sum to eg and whose last value is last; candidates need
// lo ≤ k ≤ hi and a screened gain sum ≥ bar (see scan), evaluated with
// invS, the scorer's inverse denominators inflated by 1 + 1e-6.
type cursor struct {
	k, lo, hi, h int
	eg, tot, bar float64
	last         float32
	invS         []float64
}

// next advances c over seg (ascending) to the next candidate that passes
// the screen, or to the end (c.k = len(seg)).
func (c *cursor) next(seg []entry, grad []float32) {
	k, h, eg, tot, bar, last, inv := c.k, c.h, c.eg, c.tot, c.bar, c.last, c.invS
	n := len(seg)
	for ; k < min(c.lo, n); k++ {
		e := seg[k]
		eg += float64(grad[e.row])
		last = e.v
	}
	if end := min(c.hi+1, n); k < end {
		// candidates k+i: gain terms inv[k+i] = ia[i], inv[h−k−i] = ib[m−1−i]
		s := seg[k:end]
		m := len(s)
		ia, ib := inv[k : k+m][:m], inv[h-k-m+1 : h-k+1][:m]
		for i, e := range s {
			// screen first: the tie test runs only on the few that pass
			if g2 := tot - eg; eg*eg*ia[i]+g2*g2*ib[m-1-i] >= bar && e.v != last {
				c.k, c.eg, c.last = k+i, eg, last
				return
			}
			eg += float64(grad[e.row])
			last = e.v
		}
		k = end
	}
	for ; k < n; k++ {
		e := seg[k]
		eg += float64(grad[e.row])
		last = e.v
	}
	c.k, c.eg, c.last = k, eg, last
}

// nextDown is next over seg in descending order: c.k counts entries from
// the end of seg.
func (c *cursor) nextDown(seg []entry, grad []float32) {
	h, eg, tot, bar, last, inv := c.h, c.eg, c.tot, c.bar, c.last, c.invS
	n := len(seg)
	j := n - 1 - c.k // index of the next entry
	for stop := n - 1 - min(c.lo, n); j > stop; j-- {
		e := seg[j]
		eg += float64(grad[e.row])
		last = e.v
	}
	if end := min(c.hi+1, n); j >= n-end {
		// s[i] is seg[j'] with j' = n−end+i, k = end−1−i entries scanned
		// before it: gain terms inv[k] = ia[m−1−i], inv[h−k] = ib[i]
		s := seg[n-end : j+1]
		m := len(s)
		ia, ib := inv[end-m : end][:m], inv[h-end+1 : h-end+1+m][:m]
		for i := m - 1; i >= 0; i-- {
			e := s[i]
			if g2 := tot - eg; eg*eg*ia[m-1-i]+g2*g2*ib[i] >= bar && e.v != last {
				c.k, c.eg, c.last = end-1-i, eg, last
				return
			}
			eg += float64(grad[e.row])
			last = e.v
		}
		j = n - end - 1
	}
	for ; j >= 0; j-- {
		e := seg[j]
		eg += float64(grad[e.row])
		last = e.v
	}
	c.k, c.eg, c.last = n-1-j, eg, last
}

// scanL1 is scan's loop over the candidates between values for any α,
// in either direction.
func (s *scorer) scanL1(seg []entry, grad []float32, f int32, ns nodeStats, best *split, backward bool) (float64, float32) {
	k, step, end := 0, 1, len(seg)
	if backward {
		k, step, end = len(seg)-1, -1, -1
	}
	lo, hi := max(s.minH, 1), ns.h-s.minH // candidates need lo ≤ eh ≤ hi
	root := float64(ns.root)
	bar := s.bar(best.loss, root)
	var eg float64
	eh := 0
	var last float32
	for ; k != end; k += step {
		e := seg[k]
		if eh >= lo && eh <= hi && e.v != last {
			g1, g2 := s.thresholdL1(eg), s.thresholdL1(ns.g-eg)
			if s.screen(g1, eh, g2, ns.h-eh) >= bar &&
				s.candidate(eg, eh, ns, f, midpoint(e.v, last), backward, best) {
				bar = s.bar(best.loss, root)
			}
		}
		eg += float64(grad[e.row])
		eh++
		last = e.v
	}
	return eg, last
}

// screen is the float64 gain sum of a candidate with thresholded gradient
// sums g1, g2 and row counts h1, h2, inflated by the relative error bound
// of XGBoost's float32 evaluation (see scan).
func (s *scorer) screen(g1 float64, h1 int, g2 float64, h2 int) float64 {
	return (g1*g1*s.inv[h1] + g2*g2*s.inv[h2]) * (1 + 1e-6)
}

// bar is the screening threshold: a candidate whose float64 gain sum
// times (1+1e-6) is below it cannot beat the loss change best. The
// absolute 1e-30 covers float32 underflow, where rounding errors are
// absolute rather than relative.
func (s *scorer) bar(best float32, root float64) float64 {
	if s.exhaustive {
		return math.Inf(-1)
	}
	return float64(best) + root - 1e-6*math.Abs(root) - 1e-30
}

// candidate evaluates the split whose scanned side has statistics (g, h)
// exactly as XGBoost does and records it in best if it wins.
func (s *scorer) candidate(g float64, h int, ns nodeStats, f int32, thresh float32, defLeft bool, best *split) bool {
	loss := s.gain(g, h) + s.gain(ns.g-g, ns.h-h) - ns.root
	if !best.better(loss, f) {
		return false
	}
	*best = split{loss: loss, feat: f, thresh: thresh, defLeft: defLeft}
	return true
}

func abs32(v float32) float32 { return math.Float32frombits(math.Float32bits(v) &^ (1 << 31)) }
