package boost

import "math"

// node is one node of a regression tree, in XGBoost's RegTree layout:
// nodes are numbered in allocation order (breadth first, left child
// first), a leaf has left = right = -1.
type node struct {
	left, right int32
	parent      int32 // -1 for the root
	feat        int32 // split feature (internal nodes)
	thresh      float32
	defLeft     bool
	deleted     bool    // pruned away
	value       float32 // leaf value: eta × weight (leaves only)
	weight      float32 // XGBoost's base_weight: −G/(H+λ) of the node
	loss        float32 // loss change of the split (internal nodes)
	hess        float64 // hessian sum (the row count for squared error)
}

func (n *node) isLeaf() bool { return n.left < 0 }

// tree is a fitted regression tree.
type tree struct {
	nodes []node
}

// pnode is a node of a fitted tree in the compact layout used to predict.
// A leaf points to itself (left = its own index, val = +Inf, feat 0,
// defLeft), so that a step from it by step stays there whatever the row.
type pnode struct {
	val     float32 // split threshold; +Inf for a leaf
	feat    int32   // split feature; 0 for a leaf
	left    int32   // index of the left child (the right child follows it); a leaf's own index
	out     float32 // leaf value (leaves only)
	defLeft bool    // missing values go left; true for a leaf
}

// compact appends the surviving nodes of t to dst in breadth-first order,
// children adjacent, and returns the extended slice and the depth of the
// surviving tree (0 for a single leaf).
func (t *tree) compact(dst []pnode) ([]pnode, int) {
	base := int32(len(dst))
	queue := []int32{0}
	depth, levelEnd := 0, 1 // queue[:levelEnd] holds the nodes up to depth
	for k := 0; k < len(queue); k++ {
		if k == levelEnd {
			depth, levelEnd = depth+1, len(queue)
		}
		nd := &t.nodes[queue[k]]
		if nd.isLeaf() {
			self := base + int32(k)
			dst = append(dst, pnode{val: float32(math.Inf(1)), left: self, out: nd.value, defLeft: true})
			continue
		}
		left := base + int32(len(queue))
		queue = append(queue, nd.left, nd.right)
		dst = append(dst, pnode{val: nd.thresh, feat: nd.feat, left: left, defLeft: nd.defLeft})
	}
	return dst, depth
}

// step moves from node i to the child that the float32 feature row x
// (NaN = missing) goes to: observed values < threshold go left, missing
// values follow the default direction, as in XGBoost's predictor. From a
// leaf it stays at the leaf. It is branch-free.
func step(nodes []pnode, i int32, x []float32) int32 {
	nd := &nodes[i]
	v := x[nd.feat]
	return nd.left + int32(b2u(!(v < nd.val))&(b2u(v == v)|b2u(!nd.defLeft)))
}

// prune is XGBoost's TreePruner with max_depth already respected by the
// grower: scanning nodes in index order, a split whose two children are
// leaves becomes a leaf (value eta × its weight) while its loss change is
// below gamma, walking up towards the root.
func (t *tree) prune(gamma, eta float32) {
	for i := range t.nodes {
		nd := &t.nodes[i]
		if !nd.isLeaf() || nd.deleted {
			continue
		}
		for c := int32(i); t.nodes[c].parent >= 0; {
			p := &t.nodes[t.nodes[c].parent]
			if !t.nodes[p.left].isLeaf() || !t.nodes[p.right].isLeaf() || !(float64(p.loss) < float64(gamma)) {
				break
			}
			t.nodes[p.left].deleted, t.nodes[p.right].deleted = true, true
			c = t.nodes[c].parent
			p.left, p.right = -1, -1
			p.value = eta * p.weight
		}
	}
}
