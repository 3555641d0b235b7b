package tree

// ClassNodeInfo describes one node of a fitted classification tree, for
// tests and reports. In the embedded NodeInfo, Value is the node's
// predicted class code (rpart's yval − 1: the class of least expected
// loss, ties to the lower code), Deviance is rpart's dev (that expected
// loss: with data priors, the number of training entries of the other
// classes), Improve is rpart's Gini improve, unscaled (the drop in the
// altered-prior-weighted Gini score w·I, about the node's entries times
// the drop in the Gini index), and CP is the complexity over the root's
// Deviance (rpart's frame$complexity).
type ClassNodeInfo struct {
	NodeInfo
	// Counts are the training entries of each class in the node (k
	// values, rpart's yval2 counts).
	Counts []float64
	// Prob are the node's class probabilities (k values summing to 1):
	// rpart's yprob, the rows predict(type = "prob") returns.
	Prob []float64
}

// Nodes returns every node in preorder, rpart's left son (the child whose
// mean class code is lower) first, as rpart's frame lists them.
// Nodes()[0] is the root.
func (m *ClassModel) Nodes() []ClassNodeInfo {
	ids := m.tree.preorder()
	base := m.tree.Nodes()
	out := make([]ClassNodeInfo, len(ids))
	for i, id := range ids {
		cnt := make([]float64, m.k)
		copy(cnt, m.counts[int(id)*m.nc:int(id+1)*m.nc])
		prob := make([]float64, m.k)
		copy(prob, m.prob[int(id)*m.k:int(id+1)*m.k])
		out[i] = ClassNodeInfo{NodeInfo: base[i], Counts: cnt, Prob: prob}
	}
	return out
}

// RootSplit reports the column and threshold of the root split (rows
// with x < threshold go to one child; +Inf is MIA's "observed vs NA"
// split); ok is false when the root is a leaf.
func (m *ClassModel) RootSplit() (feature int, threshold float64, ok bool) {
	return m.tree.RootSplit()
}

// NumClasses returns k, the number of columns of PredictProba.
func (m *ClassModel) NumClasses() int { return m.k }

// NumLeaves returns the number of leaves.
func (m *ClassModel) NumLeaves() int { return m.tree.NumLeaves() }

// Depth returns the largest node depth (0 for a single leaf).
func (m *ClassModel) Depth() int { return m.tree.Depth() }

// NumFeatures returns the number of columns the tree was fitted on.
func (m *ClassModel) NumFeatures() int { return m.tree.d }

// Strategy returns the missing-value strategy the tree was fitted with.
func (m *ClassModel) Strategy() Strategy { return m.tree.strategy }
