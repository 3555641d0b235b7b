package tree

import (
	"fmt"
	"math"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// Strategy says how a tree handles NA (NaN) feature values, both when it
// chooses a split and when it routes a row through a fitted split.
type Strategy int

const (
	// Surrogate is rpart's default (usesurrogate = 2): the primary split is
	// chosen on the rows that observe its variable; rows missing it follow
	// the first of up to MaxSurrogate surrogate splits whose variable they
	// observe, ranked by agreement and kept only when better than the
	// majority rule; rows missing all of them go to the majority side.
	Surrogate Strategy = iota
	// MIA is "missing incorporated in attribute": every candidate (j, z) is
	// scored with the NA rows sent left and sent right, plus the split
	// "observed vs NA" on j; the best of all is kept with its NA side.
	MIA
	// Block chooses the split on the observed rows (as Surrogate does) and
	// then sends all NA rows as a block to the side giving the smaller
	// squared error (LightGBM style); for FitClass, the smaller Gini
	// score.
	Block
	// Prob chooses the split on the observed rows and sends each NA row
	// left with probability nL/(nL+nR) (C4.5 style), at training and at
	// prediction.
	Prob
	// Majority chooses the split on the observed rows and sends NA rows to
	// the child holding more observed rows.
	Majority
	// NoMissing rejects any NaN in X (learnerr.ErrInput); use it after
	// imputation.
	NoMissing
)

var strategyNames = [...]string{"surrogate", "mia", "block", "prob", "majority", "none"}

// String returns the strategy's pipeline name: "surrogate", "mia",
// "block", "prob", "majority" or "none".
func (s Strategy) String() string {
	if s < 0 || int(s) >= len(strategyNames) {
		return fmt.Sprintf("Strategy(%d)", int(s))
	}
	return strategyNames[s]
}

// ParseStrategy is the inverse of Strategy.String. Unknown names yield an
// error wrapping learnerr.ErrSetting.
func ParseStrategy(name string) (Strategy, error) {
	for i, n := range strategyNames {
		if n == name {
			return Strategy(i), nil
		}
	}
	return 0, fmt.Errorf("tree: unknown strategy %q: %w", name, learnerr.ErrSetting)
}

// availableCase reports whether the strategy scores splits on the rows
// that observe the split variable only (Algorithm "Splitting strategy").
func (s Strategy) availableCase() bool {
	return s == Surrogate || s == Block || s == Prob || s == Majority || s == NoMissing
}

// Gain says how an available-case split is scored when its variable has
// NA in the node. It does not affect MIA, whose criterion uses every row.
type Gain int

const (
	// GainRpart scores a split by the drop in the sum of squares (for
	// FitClass, the Gini score) of the rows observing the variable, as
	// rpart does: a variable missing for a fraction q of the node sees its
	// gain shrunk by about (1 − q).
	GainRpart Gain = iota
	// GainPerObserved divides that drop by the fraction of the node's rows
	// observing the variable: the CART criterion computed on the observed
	// sub-sample alone, which is how the paper's proof of Proposition 2
	// compares variables.
	GainPerObserved
)

// Params are the hyper-parameters of one tree. Counts are numbers of
// training entries: a row drawn k times by FitSample counts k times.
type Params struct {
	// Strategy handles missing values; see the Strategy constants.
	Strategy Strategy
	// MinSplit: a node with fewer entries is not split (rpart minsplit).
	// 0 disables the check.
	MinSplit int
	// MinBucket: every child of a split holds at least this many entries
	// (rpart minbucket, ≥ 1). For the available-case strategies it counts
	// the rows observing the split variable, as rpart does; for MIA it
	// counts the whole child including its NA rows.
	MinBucket int
	// CP is rpart's complexity parameter: a split is kept only when it
	// lowers the tree's risk (total sum of squares; for FitClass, the
	// misclassified count) by more than CP times the root's, with rpart's
	// cost-complexity bookkeeping. 0 keeps every split that lowers the
	// risk at all; for FitClass a subtree whose leaves misclassify as many
	// rows as its root does not, as in rpart.
	CP float64
	// MaxDepth bounds the depth of any node (root = 0), as rpart's
	// maxdepth. 0 means unlimited (rpart caps it at 30).
	MaxDepth int
	// MaxSurrogate is the number of surrogate splits kept per node under
	// Strategy Surrogate (rpart maxsurrogate). 0 keeps none: NA rows then
	// go to the majority side.
	MaxSurrogate int
	// MinNodeSize: a node with fewer entries is not split (ranger
	// min.node.size). 0 disables it. It acts like MinSplit; both apply.
	MinNodeSize int
	// Mtry is the number of candidate variables drawn, without
	// replacement, from the random source at each node (ranger mtry).
	// 0 means all variables, in column order, with no draw.
	Mtry int
	// Gain scores available-case splits; see GainRpart (the default).
	Gain Gain
}

// PaperDefaults returns the controls the paper ran rpart with: minbucket
// 30 (so minsplit 90), cp 0, no cross-validation pruning, maxdepth 30, five
// surrogates, Strategy Surrogate. Set Strategy for other strategies.
func PaperDefaults() Params {
	return Params{Strategy: Surrogate, MinSplit: 90, MinBucket: 30, CP: 0,
		MaxDepth: 30, MaxSurrogate: 5}
}

// RpartDefaults returns rpart.control()'s defaults: minsplit 20, minbucket
// round(20/3) = 7, cp 0.01, maxdepth 30, maxsurrogate 5, usesurrogate 2.
func RpartDefaults() Params {
	return Params{Strategy: Surrogate, MinSplit: 20, MinBucket: 7, CP: 0.01,
		MaxDepth: 30, MaxSurrogate: 5}
}

// validate checks p against a training set with d columns.
func (p Params) validate(d int) error {
	switch {
	case p.Strategy < Surrogate || p.Strategy > NoMissing:
		return fmt.Errorf("tree: unknown strategy %d: %w", int(p.Strategy), learnerr.ErrSetting)
	case p.Gain != GainRpart && p.Gain != GainPerObserved:
		return fmt.Errorf("tree: unknown gain %d: %w", int(p.Gain), learnerr.ErrSetting)
	case p.MinSplit < 0 || p.MinNodeSize < 0:
		return fmt.Errorf("tree: MinSplit %d and MinNodeSize %d must be ≥ 0: %w", p.MinSplit, p.MinNodeSize, learnerr.ErrSetting)
	case p.MinBucket < 1:
		return fmt.Errorf("tree: MinBucket %d must be ≥ 1: %w", p.MinBucket, learnerr.ErrSetting)
	case !(p.CP >= 0) || math.IsInf(p.CP, 1):
		return fmt.Errorf("tree: CP %v must be finite and ≥ 0: %w", p.CP, learnerr.ErrSetting)
	case p.MaxDepth < 0 || p.MaxSurrogate < 0:
		return fmt.Errorf("tree: MaxDepth %d and MaxSurrogate %d must be ≥ 0: %w", p.MaxDepth, p.MaxSurrogate, learnerr.ErrSetting)
	case p.Mtry < 0 || p.Mtry > d:
		return fmt.Errorf("tree: Mtry %d must be in [0, %d]: %w", p.Mtry, d, learnerr.ErrSetting)
	}
	return nil
}
