package tree

// NodeInfo describes one node of a fitted tree, for tests and reports.
type NodeInfo struct {
	Depth int  // root = 0
	Leaf  bool // no split
	// Feature is the split column (0-based); -1 for a leaf.
	Feature int
	// Threshold: observed rows with x < Threshold go to Left, the others
	// to Right. +Inf is MIA's "observed vs NA" split (NA go Right).
	Threshold float64
	// Left and Right index Nodes(); -1 for a leaf.
	Left, Right int
	// MissingLeft: NA rows go Left (MIA, Block, Majority). For Surrogate
	// and Prob it records the side with more primary-observed entries.
	MissingLeft bool
	// MissingSeen: training entries missing Feature reached this split.
	MissingSeen bool
	// ProbLeft is nL/(nL+nR) over the primary-observed training entries,
	// Prob's probability of sending an NA row Left.
	ProbLeft float64
	// ObservedLeft and ObservedRight count the training entries observing
	// Feature sent Left and Right (the counts MinBucket applies to under
	// the available-case strategies).
	ObservedLeft, ObservedRight int
	// N is the number of training entries in the node.
	N int
	// Value is the node's prediction: the mean target of its entries.
	Value float64
	// Deviance is the sum of squared deviations of its entries' targets.
	Deviance float64
	// Improve is the split's gain relative to Deviance (rpart "improve").
	Improve float64
	// CP is rpart's complexity of the node relative to the root deviance
	// (rpart's frame$complexity).
	CP float64
	// Surrogates are the node's surrogate splits, best first (Surrogate).
	Surrogates []SurrogateInfo
}

// SurrogateInfo describes one surrogate split: a row missing the primary
// variable but observing Feature goes Left when (x < Threshold) == LowLeft.
type SurrogateInfo struct {
	Feature   int
	Threshold float64
	LowLeft   bool
	Agree     float64 // rpart "agree": agreeing fraction of primary-observed entries
	Adj       float64 // rpart "adj": (Agree − majority) / (1 − majority)
}

// Nodes returns every node in preorder, the child with the lower mean
// first (rpart's frame order). Nodes()[0] is the root.
func (t *Model) Nodes() []NodeInfo {
	ids := t.preorder()
	pos := make([]int, len(t.nodes))
	for i, id := range ids {
		pos[id] = i
	}
	out := make([]NodeInfo, len(ids))
	for i, id := range ids {
		out[i] = t.info(id)
		if !out[i].Leaf {
			out[i].Left, out[i].Right = pos[out[i].Left], pos[out[i].Right]
		}
	}
	return out
}

// preorder returns the node ids in Nodes' order: preorder, the child
// grown first (rpart's left son) first.
func (t *Model) preorder() []int32 {
	out := make([]int32, 0, len(t.nodes))
	var walk func(id int32)
	walk = func(id int32) {
		out = append(out, id)
		if nd := &t.nodes[id]; nd.feature >= 0 {
			walk(t.firstChild(id))
			walk(nd.child[0] + nd.child[1] - t.firstChild(id))
		}
	}
	walk(0)
	return out
}

// firstChild returns the child grown first (rpart's left son).
func (t *Model) firstChild(id int32) int32 {
	nd := &t.nodes[id]
	return nd.child[nd.first]
}

func (t *Model) info(id int32) NodeInfo {
	nd := &t.nodes[id]
	ni := NodeInfo{Depth: int(nd.depth), Leaf: nd.feature < 0, Feature: int(nd.feature),
		Left: -1, Right: -1, N: int(nd.n), Value: nd.mean, Deviance: nd.risk,
		CP: nd.complexity / t.nodes[0].risk}
	if ni.Leaf {
		return ni
	}
	ni.Threshold, ni.Left, ni.Right = nd.threshold, int(nd.child[0]), int(nd.child[1])
	ni.MissingLeft, ni.MissingSeen, ni.ProbLeft = nd.naSide == naLeft, nd.naSeen, nd.pLeft
	ni.Improve = nd.improve
	ni.ObservedLeft, ni.ObservedRight = int(nd.obs[0]), int(nd.obs[1])
	for _, su := range t.surr[nd.surLo:nd.surHi] {
		ni.Surrogates = append(ni.Surrogates, SurrogateInfo{Feature: su.feature,
			Threshold: su.thr, LowLeft: su.lowLeft, Agree: su.agree, Adj: su.adj})
	}
	return ni
}

// Root describes the root node.
func (t *Model) Root() NodeInfo { return t.info(0) }

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

// Strategy returns the missing-value strategy the tree was fitted with.
func (t *Model) Strategy() Strategy { return t.strategy }

// RootSplit reports the column and threshold of the root split (rows
// with x < threshold go to one child); ok is false when the root is a
// leaf.
func (t *Model) RootSplit() (feature int, threshold float64, ok bool) {
	r := t.Root()
	return r.Feature, r.Threshold, !r.Leaf
}
