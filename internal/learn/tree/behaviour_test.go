package tree

import (
	"context"
	"reflect"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestControls checks the size controls on full-grown trees: every
// internal node has at least MinSplit and MinNodeSize entries, every child
// of a split at least MinBucket (entries observing the split variable, as
// rpart counts, for the available-case strategies; whole children for
// MIA), and no node is deeper than MaxDepth.
func TestControls(t *testing.T) {
	X, y := randomData(400, 5, 0.2, newRNG(4))
	cases := []Params{
		{MinSplit: 20, MinBucket: 7, MaxDepth: 30},
		{MinSplit: 90, MinBucket: 30, MaxDepth: 30},
		{MinSplit: 2, MinBucket: 1, MaxDepth: 3},
		{MinBucket: 1, MinNodeSize: 25},
		{MinBucket: 5},
	}
	for _, st := range []Strategy{Surrogate, MIA, Block, Prob, Majority} {
		for _, p := range cases {
			p.Strategy = st
			tr, err := Fit(context.Background(), X, y, p, newRNG(5))
			if err != nil {
				t.Fatal(err)
			}
			nodes := tr.Nodes()
			if tr.NumLeaves() < 2 {
				t.Errorf("%v %+v: no split at all", st, p)
			}
			for _, nd := range nodes {
				if p.MaxDepth > 0 && nd.Depth > p.MaxDepth {
					t.Errorf("%v %+v: node at depth %d", st, p, nd.Depth)
				}
				if nd.Leaf {
					continue
				}
				if nd.N < p.MinSplit || nd.N < p.MinNodeSize {
					t.Errorf("%v %+v: split node with %d entries", st, p, nd.N)
				}
				n0, n1 := nodes[nd.Left].N, nodes[nd.Right].N
				if st == MIA && (n0 < p.MinBucket || n1 < p.MinBucket) {
					t.Errorf("MIA %+v: children of %d and %d entries", p, n0, n1)
				}
				if st != MIA {
					k0, k1 := nd.ObservedLeft, nd.ObservedRight
					if k0 < p.MinBucket || k1 < p.MinBucket {
						t.Errorf("%v %+v: %d and %d observed entries on the sides", st, p, k0, k1)
					}
				}
			}
		}
	}
}

// TestMtry: Mtry = d is Mtry = 0; Mtry = 1 spreads root variables over
// seeds; a seed reproduces its tree.
func TestMtry(t *testing.T) {
	X, y := randomData(300, 6, 0.1, newRNG(6))
	full, _ := Fit(context.Background(), X, y, Params{Strategy: MIA, MinBucket: 5}, newRNG(7))
	all, _ := Fit(context.Background(), X, y, Params{Strategy: MIA, MinBucket: 5, Mtry: 6}, newRNG(7))
	if !reflect.DeepEqual(full.Nodes(), all.Nodes()) {
		t.Error("Mtry = d differs from Mtry = 0")
	}
	roots := map[int]bool{}
	for seed := range 40 {
		p := Params{Strategy: MIA, MinBucket: 5, Mtry: 1}
		a, _ := Fit(context.Background(), X, y, p, newRNG(uint64(seed)))
		b, _ := Fit(context.Background(), X, y, p, newRNG(uint64(seed)))
		if !reflect.DeepEqual(a.Nodes(), b.Nodes()) {
			t.Fatal("same seed, different trees")
		}
		roots[a.Root().Feature] = true
	}
	if len(roots) < 5 {
		t.Errorf("Mtry = 1: root variables %v over 40 seeds, want most of the 6", roots)
	}
}

// TestFitSampleIsDuplication: drawing a row k times is the same as
// duplicating it k times in X (ranger's bootstrap semantics).
func TestFitSampleIsDuplication(t *testing.T) {
	X, y := randomData(120, 4, 0.25, newRNG(8))
	rng := newRNG(9)
	rows := make([]int, 150)
	for i := range rows {
		rows[i] = rng.IntN(120)
	}
	Xd := mat.NewDense(len(rows), 4, nil)
	yd := make([]float64, len(rows))
	for i, r := range rows {
		Xd.SetRow(i, X.RawRowView(r))
		yd[i] = y[r]
	}
	for _, st := range []Strategy{Surrogate, MIA, Block, Majority, Prob} {
		p := Params{Strategy: st, MinBucket: 3, MinSplit: 8, MaxSurrogate: 5}
		a, err := FitSample(context.Background(), X, y, rows, p, newRNG(10))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Fit(context.Background(), Xd, yd, p, newRNG(10))
		if !reflect.DeepEqual(a.Nodes(), b.Nodes()) {
			t.Errorf("%v: FitSample differs from Fit on duplicated rows", st)
		}
	}
}
