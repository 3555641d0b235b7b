package ctree

import (
	"fmt"
	"math"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// TestType says how the per-variable p-values of a node are adjusted
// before they are compared (partykit ctree_control testtype).
type TestType int

const (
	// Bonferroni is partykit's default: with k variables tested in the
	// node (non-constant, observed at least twice), the criterion is
	// k·log(1 − p), i.e. the adjusted p-value 1 − (1 − p)^k (a Šidák
	// adjustment, which partykit and party both call "Bonferroni").
	Bonferroni TestType = iota
	// Univariate compares the unadjusted p-values.
	Univariate
)

// Missing says where a row goes when it misses the split variable and
// every surrogate of the split (or the split has no surrogates).
type Missing int

const (
	// Majority sends it to the child holding more of the training rows
	// that observe the split variable; ties go right. This is partykit's
	// ctree_control(majority = TRUE) and party's only rule, which the
	// paper's runs used.
	Majority Missing = iota
	// Random sends it left with probability nL/(nL+nR) over the rows
	// observing the split variable, as partykit's default
	// (majority = FALSE) does at fit and at predict time.
	Random
)

// tol is libcoin's default tolerance sqrt(.Machine$double.eps): a
// variable whose linear statistic has variance below it is not tested.
var tol = math.Sqrt(0x1p-52)

// Params are the controls of one conditional inference tree, named after
// partykit's ctree_control. Counts are numbers of training rows.
type Params struct {
	// TestType adjusts p-values; see Bonferroni (the default).
	TestType TestType
	// MinCriterion: a node is split only when some variable has
	// 1 − (adjusted p-value) > MinCriterion (compared on the log scale,
	// as partykit does). In [0, 1]; partykit default 0.95, the paper 0
	// (split whenever a split satisfying MinBucket exists).
	MinCriterion float64
	// MinSplit: a node with fewer rows is not split (partykit minsplit,
	// default 20). 0 disables the check.
	MinSplit int
	// MinBucket: each child holds at least this many of the rows that
	// observe the split variable (partykit minbucket, default 7; the
	// paper 30). At least 1.
	MinBucket int
	// MinProb raises MinBucket in a node of n rows to ceil(n·MinProb)
	// (partykit minprob, default 0.01). In [0, 1].
	MinProb float64
	// MaxDepth bounds the depth of a split node (root = 0): nodes at
	// depth MaxDepth are leaves. 0 means unlimited (partykit's Inf);
	// MaxDepth 1 grows stumps.
	MaxDepth int
	// SplitTry is the number of best-ranked variables tried, in order,
	// for a split satisfying MinBucket (partykit splittry, default 2).
	SplitTry int
	// MaxSurrogate is the number of surrogate splits kept per node
	// (partykit maxsurrogate, default 0).
	MaxSurrogate int
	// Missing routes rows that miss the split variable and all
	// surrogates; see Majority (the zero value) and Random.
	Missing Missing
}

// PaperDefaults returns the controls of the paper's ctree runs: the
// package defaults with mincriterion 0 and minbucket 30, NA rows to the
// majority child (party::ctree, which the paper's code called, has no
// other rule without surrogates). MinSplit stays at 20: with MinBucket
// 30 no node of fewer than 60 rows can be split anyway.
func PaperDefaults() Params {
	p := PartykitDefaults()
	p.MinCriterion, p.MinBucket, p.Missing = 0, 30, Majority
	return p
}

// PartykitDefaults returns ctree_control()'s defaults: testtype
// Bonferroni, mincriterion 0.95, minsplit 20, minbucket 7, minprob 0.01,
// maxdepth Inf, splittry 2, maxsurrogate 0, majority FALSE (Random).
func PartykitDefaults() Params {
	return Params{TestType: Bonferroni, MinCriterion: 0.95, MinSplit: 20, MinBucket: 7,
		MinProb: 0.01, SplitTry: 2, Missing: Random}
}

// validate checks p.
func (p Params) validate() error {
	switch {
	case p.TestType != Bonferroni && p.TestType != Univariate:
		return fmt.Errorf("ctree: unknown test type %d: %w", int(p.TestType), learnerr.ErrSetting)
	case p.Missing != Majority && p.Missing != Random:
		return fmt.Errorf("ctree: unknown missing rule %d: %w", int(p.Missing), learnerr.ErrSetting)
	case !(p.MinCriterion >= 0 && p.MinCriterion <= 1):
		return fmt.Errorf("ctree: MinCriterion %v must be in [0, 1]: %w", p.MinCriterion, learnerr.ErrSetting)
	case !(p.MinProb >= 0 && p.MinProb <= 1):
		return fmt.Errorf("ctree: MinProb %v must be in [0, 1]: %w", p.MinProb, learnerr.ErrSetting)
	case p.MinBucket < 1:
		return fmt.Errorf("ctree: MinBucket %d must be ≥ 1: %w", p.MinBucket, learnerr.ErrSetting)
	case p.MinSplit < 0 || p.MaxDepth < 0 || p.MaxSurrogate < 0:
		return fmt.Errorf("ctree: MinSplit %d, MaxDepth %d and MaxSurrogate %d must be ≥ 0: %w",
			p.MinSplit, p.MaxDepth, p.MaxSurrogate, learnerr.ErrSetting)
	case p.SplitTry < 1:
		return fmt.Errorf("ctree: SplitTry %d must be ≥ 1: %w", p.SplitTry, learnerr.ErrSetting)
	}
	return nil
}
