package ctree

import "slices"

// NodeInfo describes one node of a fitted tree, for tests and reports.
type NodeInfo struct {
	// ID is the node's index in Nodes(): preorder, left child first
	// (partykit's node id − 1).
	ID    int
	Depth int // root = 0
	Leaf  bool
	// Feature is the split column (0-based); -1 for a leaf.
	Feature int
	// Threshold: rows with x ≤ Threshold go Left, as partykit's
	// breaks_split with right = TRUE. It is an observed training value.
	Threshold float64
	// Left and Right index Nodes(); -1 for a leaf.
	Left, Right int
	// ProbLeft is the fraction of the node's rows observing Feature that
	// went Left (partykit's prob_split before the majority rule).
	ProbLeft float64
	// MissingLeft: under Majority, rows with no usable surrogate go Left
	// (more observed rows went Left; ties go Right).
	MissingLeft bool
	// N is the number of training rows in the node.
	N int
	// Value is the node's prediction: the mean target of its rows.
	Value float64
	// Tests are the node's variable tests, one per column, or nil when
	// the node was not tested (it was at MaxDepth or had fewer than
	// MinSplit rows). A tested node may still be a leaf: nothing beat
	// MinCriterion, or no candidate admitted a split with MinBucket rows.
	Tests []VarTest
	// Surrogates are the node's surrogate splits, in the order used.
	Surrogates []SurrogateInfo
}

// SurrogateInfo describes one surrogate split: a row missing the primary
// variable but observing Feature goes Left when (x ≤ Threshold) == LowLeft.
type SurrogateInfo struct {
	Feature   int
	Threshold float64
	LowLeft   bool
}

// Nodes returns every node in preorder; Nodes()[0] is the root.
func (t *Model) Nodes() []NodeInfo {
	out := make([]NodeInfo, len(t.nodes))
	for i := range t.nodes {
		out[i] = t.info(i)
	}
	return out
}

// Root describes the root node: its Feature (-1 if the tree is a single
// leaf), Threshold and Tests are the tree's root variable, split point
// and per-variable root statistics.
func (t *Model) Root() NodeInfo { return t.info(0) }

func (t *Model) info(i int) NodeInfo {
	nd := &t.nodes[i]
	ni := NodeInfo{ID: i, Depth: int(nd.depth), Leaf: nd.feature < 0, Feature: int(nd.feature),
		Left: -1, Right: -1, N: int(nd.n), Value: nd.value}
	if nd.testHi > nd.testLo {
		ni.Tests = slices.Clone(t.tests[nd.testLo:nd.testHi])
	}
	if ni.Leaf {
		return ni
	}
	ni.Threshold, ni.Left, ni.Right = nd.threshold, int(nd.left), int(nd.right)
	ni.ProbLeft, ni.MissingLeft = nd.pLeft, nd.naLeft
	for _, s := range t.surr[nd.surLo:nd.surHi] {
		ni.Surrogates = append(ni.Surrogates, SurrogateInfo{Feature: s.feature, Threshold: s.thr, LowLeft: s.lowLeft})
	}
	return ni
}

// NumLeaves returns the number of leaves.
func (t *Model) NumLeaves() int {
	k := 0
	for i := range t.nodes {
		if t.nodes[i].feature < 0 {
			k++
		}
	}
	return k
}

// Depth returns the largest node depth (0 for a single leaf).
func (t *Model) Depth() int {
	d := 0
	for i := range t.nodes {
		d = max(d, int(t.nodes[i].depth))
	}
	return d
}

// NumFeatures returns the number of columns the tree was fitted on.
func (t *Model) NumFeatures() int { return t.d }

// Params returns the controls the tree was fitted with.
func (t *Model) Params() Params { return t.p }

// RootSplit reports the column and threshold of the root split; ok is
// false when the root is a leaf.
func (t *Model) RootSplit() (feature int, threshold float64, ok bool) {
	r := t.Root()
	return r.Feature, r.Threshold, !r.Leaf
}
