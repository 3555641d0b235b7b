package boost

// Growth with per-row hessians (the logistic and softmax losses): the
// same colmaker semantics as the squared-error path, with the hessian
// sums that path knows to be row counts accumulated in float64 instead,
// in XGBoost's orders (row order for a node, scan order for a side, the
// other side by subtraction from the node).

// gpair is a row's gradient and hessian in float64, side by side so that
// a scan reads both from one cache line.
type gpair struct{ g, h float64 }

// weigh makes g grow trees on per-row hessians: g.hess is then to be
// filled before every grow, like g.grad.
func (g *grower) weigh() {
	g.hess = make([]float32, g.ds.n)
	g.gh = make([]gpair, g.ds.n)
}

// statsW is stats with per-row hessians, both sums in row order.
func (g *grower) statsW(rows []int32) nodeStats {
	var sg, sh float64
	for _, r := range rows {
		sg += g.gh[r].g
		sh += g.gh[r].h
	}
	return nodeStats{g: sg, h: len(rows), hs: sh, root: g.sc.gainW(sg, sh)}
}

// bestSplitW is bestSplit with per-row hessians: every feature of node a
// in index order, ascending scan first where XGBoost does both.
func (g *grower) bestSplitW(a *active) split {
	var best split
	d := g.ds.d
	s := g.segs[2*d*int(a.seg) : 2*d*int(a.seg+1)]
	for f := range d {
		seg := g.src[f][s[2*f]:s[2*f+1]]
		if g.ds.forward[f] {
			g.sc.scanW(seg, g.gh, int32(f), a.st, &best, false)
		}
		g.sc.scanW(seg, g.gh, int32(f), a.st, &best, true)
	}
	return best
}

// gainW is gain for a real hessian sum h: float32(T(G)²)/float32(h+λ),
// 0 for h ≤ 0 (XGBoost's CalcGainGivenWeight, no min_child_weight check).
func (s *scorer) gainW(g, h float64) float32 {
	if h <= 0 {
		return 0
	}
	if s.alpha != 0 {
		g = s.thresholdL1(g)
	}
	return float32(g*g) / float32(h+s.lambda)
}

// weightW is weight for a real hessian sum h: −T(G)/(h+λ) in float64
// rounded to float32, 0 when h is below min_child_weight or h ≤ 0.
func (s *scorer) weightW(g, h float64) float32 {
	if h < s.mcw || h <= 0 {
		return 0
	}
	return float32(-s.thresholdL1(g) / (h + s.lambda))
}

// scanW is XGBoost's EnumerateSplit with per-row hessians over the
// observed entries seg of feature f in a node (ascending values), in the
// direction backward tells (see scan): each value after the first
// bounds a candidate if both sides' hessian sums reach
// min_child_weight, the scanned side summed in scan order and the other
// obtained by subtraction from the node's sums, as in XGBoost; the scan
// ends with the split "observed | missing". Candidates are screened as
// in scan (see screenW) before their exact evaluation.
func (s *scorer) scanW(seg []entry, gh []gpair, f int32, ns nodeStats, best *split, backward bool) {
	k, step, end := 0, 1, len(seg)
	if backward {
		k, step, end = len(seg)-1, -1, -1
	}
	root := float64(ns.root)
	bar := s.bar(best.loss, root)
	var eg, eh float64
	var last float32
	for first := true; k != end; k += step {
		e := seg[k]
		if rh := ns.hs - eh; !first && e.v != last && eh >= s.mcw && rh >= s.mcw {
			g1, g2 := eg, ns.g-eg
			if s.alpha != 0 {
				g1, g2 = s.thresholdL1(g1), s.thresholdL1(g2)
			}
			if s.screenW(g1, eh, g2, rh, bar) && s.candidateW(eg, eh, ns, f, midpoint(e.v, last), backward, best) {
				bar = s.bar(best.loss, root)
			}
		}
		first = false
		p := gh[e.row]
		eg += p.g
		eh += p.h
		last = e.v
	}
	if eh >= s.mcw && ns.hs-eh >= s.mcw {
		gap := abs32(last) + rtEps
		if backward {
			gap = -gap
		}
		s.candidateW(eg, eh, ns, f, last+gap, backward, best)
	}
}

// screenW reports whether the candidate with sides (g1, h1) and (g2, h2),
// gradient sums already thresholded by α, may reach the screening
// threshold bar (see scan and bar): whether
// (g1²/(h1+λ) + g2²/(h2+λ))·(1 + 1e-6) ≥ bar, evaluated without
// division as g1²(h2+λ) + g2²(h1+λ) against bar·(h1+λ)(h2+λ). A side
// whose hessian sum is not positive (XGBoost's gain is then 0) is left
// to the exact evaluation. The float64 rounding of either form is far
// below the 1e-6 margin.
func (s *scorer) screenW(g1, h1, g2, h2, bar float64) bool {
	d1, d2 := h1+s.lambda, h2+s.lambda
	return h1 <= 0 || h2 <= 0 || (g1*g1*d2+g2*g2*d1)*(1+1e-6) >= bar*d1*d2
}

// candidateW is candidate for a scanned side with gradient sum g and
// hessian sum h.
func (s *scorer) candidateW(g, h float64, ns nodeStats, f int32, thresh float32, defLeft bool, best *split) bool {
	loss := s.gainW(g, h) + s.gainW(ns.g-g, ns.hs-h) - ns.root
	if !best.better(loss, f) {
		return false
	}
	*best = split{loss: loss, feat: f, thresh: thresh, defLeft: defLeft}
	return true
}
