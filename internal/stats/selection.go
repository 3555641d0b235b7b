package stats

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mathext"
)

// Choice is the split variable one stump chose on one data set: the
// appendix's variable-selection experiment. Group, N and Rate together
// identify the cell a frequency is computed over (e.g. Group = "rpart,
// NA on X1 only", N = training size, Rate = missing rate); stats does
// not interpret them beyond sorting. Chosen is the variable name, or ""
// when the stump made no split.
type Choice struct {
	Group  string
	N      int
	Rate   float64
	Chosen string
}

// Selection is how often stumps of one cell chose Target.
type Selection struct {
	Group  string
	N      int
	Rate   float64
	Target string
	// Total is the number of stumps; NoSplit of them made no split;
	// Splits = Total − NoSplit; Hits of the splits chose Target.
	Total, NoSplit, Splits, Hits int
	// Freq = Hits/Splits, the frequency with which a split picks Target
	// over the other variables; NaN when Splits = 0.
	Freq float64
	// SE = √(Freq·(1−Freq)/Splits), the binomial standard error.
	SE float64
	// Lo, Hi is the Wilson score interval at level Conf (R's
	// prop.test(Hits, Splits, correct = FALSE)$conf.int).
	Lo, Hi, Conf float64
}

// SelectionFrequency counts, per (Group, Rate, N) cell, how often the
// stumps' split variable is target, with a binomial standard error and a
// Wilson interval at level conf. Cells are sorted by Group, then Rate,
// then N. Errors wrap ErrConfLevel or ErrNonFinite (NaN Rate).
func SelectionFrequency(choices []Choice, target string, conf float64) ([]Selection, error) {
	if !(conf > 0 && conf < 1) {
		return nil, fmt.Errorf("%w: got %v", ErrConfLevel, conf)
	}
	type key struct {
		group string
		rate  float64
		n     int
	}
	cells := map[key]*Selection{}
	for i, c := range choices {
		if math.IsNaN(c.Rate) {
			return nil, fmt.Errorf("%w: choice %d has Rate NaN", ErrNonFinite, i)
		}
		k := key{c.Group, c.Rate, c.N}
		s := cells[k]
		if s == nil {
			s = &Selection{Group: c.Group, N: c.N, Rate: c.Rate, Target: target, Conf: conf}
			cells[k] = s
		}
		s.Total++
		switch c.Chosen {
		case "":
			s.NoSplit++
		case target:
			s.Hits++
		}
	}
	out := make([]Selection, 0, len(cells))
	for _, s := range cells {
		s.Splits = s.Total - s.NoSplit
		s.Freq = float64(s.Hits) / float64(s.Splits)
		s.SE = math.Sqrt(s.Freq * (1 - s.Freq) / float64(s.Splits))
		s.Lo, s.Hi = Wilson(s.Hits, s.Splits, conf)
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b Selection) int {
		return cmp.Or(strings.Compare(a.Group, b.Group), cmp.Compare(a.Rate, b.Rate), cmp.Compare(a.N, b.N))
	})
	return out, nil
}

// Wilson returns the Wilson score interval for a binomial proportion with
// hits successes in n trials at confidence level conf, computed as R's
// prop.test(hits, n, correct = FALSE) does (z = qnorm((1+conf)/2); the
// bounds are exactly 0 at hits = 0 and 1 at hits = n). NaN, NaN when
// n < 1, hits is outside [0, n] or conf is outside (0, 1).
func Wilson(hits, n int, conf float64) (lo, hi float64) {
	if n < 1 || hits < 0 || hits > n || !(conf > 0 && conf < 1) {
		return math.NaN(), math.NaN()
	}
	z := mathext.NormalQuantile((1 + conf) / 2)
	nf := float64(n)
	p := float64(hits) / nf
	z22n := z * z / (2 * nf)
	half := z * math.Sqrt(p*(1-p)/nf+z22n/(2*nf))
	lo, hi = 0, 1
	if p > 0 {
		lo = (p + z22n - half) / (1 + 2*z22n)
	}
	if p < 1 {
		hi = (p + z22n + half) / (1 + 2*z22n)
	}
	return max(lo, 0), min(hi, 1)
}
