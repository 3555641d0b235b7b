package tree

// gini is rpart's method "class" with its defaults: the Gini index
// (parms split = "gini"), priors equal to the training class proportions
// and the 0-1 loss. Every sum and product is formed in rpart's order
// (gini.c), so that nodes, splits and ties come out bit for bit as rpart's.
type gini struct {
	g  *grower
	nc int     // rpart's numclass: the largest class code present, plus 1
	y  []int32 // class code of each entry
	// prior[j] is rpart's prior over the class frequency: 1 for a class
	// present (the data priors), 0 for an absent one.
	prior []float64
	// aprior[j] is rpart's altered prior, prior × (loss row sum) over
	// frequency, normalised: 1 up to rounding with data priors and the 0-1
	// loss, and the weight one entry of class j carries in the Gini sums.
	aprior []float64
	// total[j] counts the entries of class j; n is their sum.
	total             []float64
	n                 float64
	left, right, rest []float64 // per-class scratch
	counts            []float64 // counts[id*nc+j]: entries of class j in node id
}

// newGini sets up the criterion for the training entries rows (rows of
// X, in order), whose classes are y[row] (codes 0, 1, …), as rpart's
// giniinit does. Its grower is set by the caller.
func newGini(y []float64, rows []int32) *gini {
	c := &gini{y: make([]int32, len(rows))}
	for e, r := range rows {
		c.y[e] = int32(y[r])
		c.nc = max(c.nc, int(c.y[e])+1)
	}
	nc := c.nc
	c.prior, c.aprior, c.total = make([]float64, nc), make([]float64, nc), make([]float64, nc)
	c.left, c.right, c.rest = make([]float64, nc), make([]float64, nc), make([]float64, nc)
	for _, k := range c.y {
		c.total[k]++
	}
	c.n = float64(len(rows))
	freq := make([]float64, nc) // R's prior, counts/sum(counts), is the same number
	var temp float64
	for i := range nc {
		freq[i] = c.total[i] / c.n
		c.prior[i] = freq[i]
		for j := range nc {
			if j != i { // loss 1 off the diagonal; 0 × prior adds nothing
				temp += c.prior[i]
				c.aprior[i] += c.prior[i]
			}
		}
	}
	for i := range nc {
		if freq[i] > 0 {
			c.prior[i] /= freq[i]
			c.aprior[i] /= float64(temp * freq[i])
		}
	}
	return c
}

// presort returns the column sort FitClass needs: rpart's own order when
// the altered priors of the classes present differ (in their last bits),
// since the weight sums then depend on the order of tied rows; otherwise
// every weight is the same number, any order gives the same sums, and
// the faster stable sort is used.
func (c *gini) presort() func(v []float64, idx, cnt []int32) {
	var a float64
	for j, t := range c.total {
		switch {
		case t == 0:
		case a == 0:
			a = c.aprior[j]
		case c.aprior[j] != a:
			return rpartOrder
		}
	}
	return sortColumn
}

// summarise is rpart's ginidev: it counts the classes of node id,
// stores the counts, and returns the class of least expected loss (ties to
// the lower code) and that loss, the node's risk (with data priors, the
// number of entries not of that class).
func (c *gini) summarise(id int32, lo, hi int) (float64, float64) {
	need := (int(id) + 1) * c.nc
	for len(c.counts) < need {
		c.counts = append(c.counts, 0)
	}
	freq := c.counts[int(id)*c.nc : need]
	clear(freq)
	for _, e := range c.g.s.idx[0][lo:hi] {
		freq[c.y[e]]++
	}
	best, risk := 0, 0.0
	for i := range c.nc {
		var temp float64
		for j, f := range freq {
			if j != i {
				temp += float64(f * c.prior[j])
			}
		}
		if i == 0 || temp < risk {
			best, risk = i, temp
		}
	}
	return float64(best), risk
}

// scanAvailable is rpart's gini splitting function for a continuous
// column: on the node's entries observing column j, in presorted order,
// it moves one entry at a time from the right group to the left and, at
// each boundary between distinct values leaving at least MinBucket
// entries on both sides, scores w_L·I(L) + w_R·I(R), with w the
// altered-prior weight of a group and I its Gini index under the
// altered priors. The lowest score wins, the first one on ties; improve
// is the drop w·I(node) − score, unscaled as rpart reports it.
// The child whose mean class code (under those shares) is lower is grown
// first, as rpart's left son.
func (c *gini) scanAvailable(j, lo, hi int, _ float64) (cand, bool) {
	s := c.g.s
	k := s.observed(j, lo, hi)
	vals, ids := s.val[j][lo:lo+k], s.idx[j][lo:lo+k]
	if k < 2 || vals[0] == vals[k-1] {
		return cand{}, false
	}
	left, right := c.left, c.right
	lwt, rwt := 0.0, c.startRight(ids)
	total := c.impurity(right, rwt)
	best, where, firstLow := total, -1, false
	// A split beats the best only if its score is below best, that is
	// if Σ(a·l)²/lwt + Σ(a·r)²/rwt exceeds w − best; bound is w − best
	// less a margin far above rounding, for mayBeat.
	w := rwt
	bound := w - best - 1e-9*w
	minb := c.g.p.MinBucket
	for i := 0; k-i > minb; i++ {
		y := c.y[ids[i]]
		rwt -= c.aprior[y]
		lwt += c.aprior[y]
		right[y]--
		left[y]++
		if i+1 >= minb && vals[i+1] != vals[i] && c.mayBeat(lwt, rwt, bound) {
			if t, low := c.splitScore(lwt, rwt); t < best {
				best, where, firstLow = t, i, low
				bound = w - best - 1e-9*w
			}
		}
	}
	if where < 0 {
		return cand{}, false
	}
	improve := total - best
	if c.g.p.Gain == GainPerObserved {
		improve *= float64(hi-lo) / float64(k)
	}
	return cand{feature: j, thr: midpoint(vals[where], vals[where+1]), gain: improve,
		improve: improve, naSide: naNone, firstLow: firstLow}, true
}

// startRight puts every entry of ids in the right group (c.right holds
// their class counts, c.left none) and returns the group's altered-prior
// weight, summed in order as rpart does.
func (c *gini) startRight(ids []int32) float64 {
	clear(c.left)
	clear(c.right)
	var w float64
	for _, e := range ids {
		w += c.aprior[c.y[e]]
		c.right[c.y[e]]++
	}
	return w
}

// impurity returns w·Σ_j p_j(1 − p_j), p_j = aprior_j·n_j/w, for a group
// with class counts n and altered-prior weight w.
func (c *gini) impurity(n []float64, w float64) float64 {
	var t float64
	for j, a := range c.aprior {
		p := a * n[j] / w
		t += float64(w * float64(p*(1-p)))
	}
	return t
}

// mayBeat is a division-free filter for splitScore. In exact arithmetic
// the score is lwt + rwt − Σ(a_j·l_j)²/lwt − Σ(a_j·r_j)²/rwt, so when
// Σ(a_j·l_j)²·rwt + Σ(a_j·r_j)²·lwt < bound·lwt·rwt, with bound the total
// weight less the best score and less a margin of 1e-9 times the weight
// (which dwarfs every rounding error of either expression), the split
// scores above the best and is skipped. It never changes the result.
func (c *gini) mayBeat(lwt, rwt, bound float64) bool {
	var sl, sr float64
	for j, a := range c.aprior {
		l, r := a*c.left[j], a*c.right[j]
		sl += l * l
		sr += r * r
	}
	return bound*lwt*rwt <= sl*rwt+sr*lwt
}

// splitScore returns rpart's score of the split between c.left and
// c.right (weights lwt and rwt) and whether the left group's mean class
// code is the lower one.
func (c *gini) splitScore(lwt, rwt float64) (float64, bool) {
	var t, lmean, rmean float64
	for j, a := range c.aprior {
		p := a * c.left[j] / lwt
		t += float64(lwt * float64(p*(1-p)))
		lmean += float64(p * float64(j))
		p = a * c.right[j] / rwt
		t += float64(rwt * float64(p*(1-p)))
		rmean += float64(p * float64(j))
	}
	return t, lmean < rmean
}
