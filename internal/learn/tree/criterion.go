package tree

// criterion is what the kind of target brings to a tree's growth: the
// summary of a node and the scores of candidate splits. The growth itself
// (controls, cost-complexity bookkeeping, missing-value routing) is shared.
// anova is least squares (Fit); gini is rpart's class method (FitClass).
type criterion interface {
	// summarise returns the prediction stored in node id, whose entries
	// are the positions [lo, hi), and its risk: the sum of squares for
	// anova, rpart's misclassification loss for gini.
	summarise(id int32, lo, hi int) (value, risk float64)
	// scanAvailable returns the best split of column j scored on the
	// node's entries observing j; risk is the node's.
	scanAvailable(j, lo, hi int, risk float64) (cand, bool)
	// scanMIA returns the best MIA split of column j scored on all the
	// node's entries, with NA sent either way or split off.
	scanMIA(j, lo, hi int, value, risk float64) (cand, bool)
	// blockSide returns the side (naLeft or naRight) where Block sends the
	// NA entries of split c, given that some entries of [lo, hi) miss it.
	blockSide(c cand, lo, hi int, value float64) int8
}

// anova is the least-squares criterion of rpart's method "anova".
type anova struct{ g *grower }

func (a anova) summarise(_ int32, lo, hi int) (float64, float64) {
	return a.g.s.meanRisk(lo, hi)
}

func (a anova) scanAvailable(j, lo, hi int, risk float64) (cand, bool) {
	return a.g.scanAvailable(j, lo, hi, risk)
}

func (a anova) scanMIA(j, lo, hi int, mean, risk float64) (cand, bool) {
	return a.g.scanMIA(j, lo, hi, mean, risk)
}

// blockSide sends the NA block to the side leaving the smaller sum of
// squares (the larger between-group sum), ties to child 0.
func (a anova) blockSide(c cand, lo, hi int, mean float64) int8 {
	s0, s1, sNA, n0, n1, nNA := a.g.naSums(c, lo, hi, mean)
	l, r := s0+sNA, s1+sNA
	left := l*l/float64(n0+nNA) + s1*s1/float64(n1)
	right := s0*s0/float64(n0) + r*r/float64(n1+nNA)
	if right > left {
		return naRight
	}
	return naLeft
}
