package forest

import (
	"fmt"
	"math"

	"github.com/misslab/misslab/internal/learn/learnerr"
	"github.com/misslab/misslab/internal/learn/tree"
)

// Defaults of ranger 0.14.1 (R/ranger.R, src/globals.h).
const (
	// DefaultNumTrees is ranger's num.trees.
	DefaultNumTrees = 500
	// DefaultMinNodeSize is ranger's min.node.size for regression.
	DefaultMinNodeSize = 5
	// DefaultMinNodeSizeProbability is ranger's min.node.size for a
	// probability forest (DEFAULT_MIN_NODE_SIZE_PROBABILITY), which
	// FitClass uses when Params.MinNodeSize is 0.
	DefaultMinNodeSizeProbability = 10
)

// Params are a forest's hyper-parameters. Counts are numbers of in-bag
// entries: a row drawn k times by the bootstrap counts k times, as in
// ranger.
type Params struct {
	// NumTrees is the number of trees (ranger num.trees), ≥ 1.
	NumTrees int
	// Mtry is the number of candidate columns drawn without replacement
	// at each node (ranger mtry). 0 means ranger's default, the same for
	// regression and probability forests: max(1, ⌊√p⌋), p being the
	// number of columns of the X given to Fit or FitClass. It must not
	// exceed p.
	Mtry int
	// MinNodeSize: a node holding MinNodeSize entries or fewer is a leaf
	// (ranger 0.14 min.node.size; ranger checks "≤", so children of a
	// split may be smaller, down to one entry). ≥ 0. FitClass reads 0 as
	// ranger does, as the task's default: DefaultMinNodeSizeProbability
	// (10). Fit reads it literally (a node of one entry is a leaf anyway,
	// so 0 grows the same trees as 1) and RangerDefaults sets 5.
	MinNodeSize int
	// MaxDepth bounds the depth of split nodes (root = 0): a node at
	// depth MaxDepth is a leaf. 0 means unlimited, as ranger's max.depth
	// NULL or 0.
	MaxDepth int
	// Replace draws the in-bag entries with replacement (ranger replace).
	Replace bool
	// SampleFraction is the fraction of rows drawn per tree, in (0, 1];
	// a tree gets ⌊n·SampleFraction⌋ entries, at least one (ranger
	// sample.fraction: 1 with replacement, 0.632 without).
	SampleFraction float64
	// Strategy is tree.NoMissing for complete data (imputed, or MIA as
	// ±∞ duplication) or tree.MIA to handle NaN inside the split search.
	Strategy tree.Strategy
	// Threads is the number of goroutines growing trees and predicting;
	// ≤ 0 means 1. It never changes results.
	Threads int
}

// RangerDefaults returns ranger 0.14.1's regression defaults: 500 trees,
// mtry ⌊√p⌋ (at least 1), min.node.size 5, unlimited depth, bootstrap
// with replacement of n rows, variance splitting; Strategy NoMissing and
// one thread.
func RangerDefaults() Params {
	return Params{NumTrees: DefaultNumTrees, MinNodeSize: DefaultMinNodeSize,
		Replace: true, SampleFraction: 1, Strategy: tree.NoMissing, Threads: 1}
}

// RangerClassDefaults returns ranger 0.14.1's defaults for a probability
// forest (ranger(probability = TRUE)): RangerDefaults with MinNodeSize 0,
// which FitClass reads as DefaultMinNodeSizeProbability (10). Mtry 0 is
// max(1, ⌊√p⌋) as for regression (ranger's ForestProbability uses the same
// rule); trees, bootstrap and depth are as for regression.
func RangerClassDefaults() Params {
	p := RangerDefaults()
	p.MinNodeSize = 0
	return p
}

// classMinNode resolves MinNodeSize for a probability forest: 0 is
// ranger's default for the task.
func (p Params) classMinNode() int {
	if p.MinNodeSize == 0 {
		return DefaultMinNodeSizeProbability
	}
	return p.MinNodeSize
}

// validate checks p against a training set with d columns.
func (p Params) validate(d int) error {
	switch {
	case p.NumTrees < 1:
		return fmt.Errorf("forest: NumTrees %d must be ≥ 1: %w", p.NumTrees, learnerr.ErrSetting)
	case p.Mtry < 0 || p.Mtry > d:
		return fmt.Errorf("forest: Mtry %d must be in [0, %d] (0 = max(1, ⌊√p⌋)): %w", p.Mtry, d, learnerr.ErrSetting)
	case p.MinNodeSize < 0 || p.MaxDepth < 0:
		return fmt.Errorf("forest: MinNodeSize %d and MaxDepth %d must be ≥ 0: %w", p.MinNodeSize, p.MaxDepth, learnerr.ErrSetting)
	case !(p.SampleFraction > 0 && p.SampleFraction <= 1):
		return fmt.Errorf("forest: SampleFraction %v must be in (0, 1]: %w", p.SampleFraction, learnerr.ErrSetting)
	case p.Strategy != tree.NoMissing && p.Strategy != tree.MIA:
		return fmt.Errorf("forest: strategy %v (a forest takes %v or %v): %w", p.Strategy, tree.NoMissing, tree.MIA, learnerr.ErrSetting)
	}
	return nil
}

// mtry resolves Mtry for d columns: ranger's max(1, ⌊√d⌋) when 0.
func (p Params) mtry(d int) int {
	if p.Mtry > 0 {
		return p.Mtry
	}
	m := int(math.Sqrt(float64(d)))
	for (m+1)*(m+1) <= d { // guard against √ rounding down a perfect square
		m++
	}
	for m*m > d {
		m--
	}
	return max(1, m)
}

// inBag is the number of entries a tree of a forest on n rows draws.
func (p Params) inBag(n int) int {
	return max(1, int(float64(n)*p.SampleFraction))
}

// noMissing is the strategy for complete data.
const noMissing = tree.NoMissing
