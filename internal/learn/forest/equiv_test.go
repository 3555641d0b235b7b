package forest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/tree"
)

// TestSameTreeAsTreePackage grows one tree with the forest's grower and
// one with tree.FitSample on the same bootstrap rows, every column a
// candidate (so no random draw is involved), with the tree package's
// controls that encode ranger's rule (Params.treeParams). The two must
// partition the in-bag rows identically: every in-bag row gets the same
// fitted value (leaf mean) from both, and both trees have the same
// number of leaves. This checks the forest's grower (minimum node size
// "≤", children of any size, midpoint thresholds, MIA's three ways of
// sending NA) against the independently written and rpart-tested tree
// package.
func TestSameTreeAsTreePackage(t *testing.T) {
	cases := []struct {
		name     string
		n        int
		strategy tree.Strategy
		minNode  int
		maxDepth int
		ties     bool // round X to one decimal: many ties
	}{
		{"complete/mns5", 300, tree.NoMissing, 5, 0, false},
		{"complete/mns1", 200, tree.NoMissing, 1, 0, false},
		{"complete/ties", 300, tree.NoMissing, 5, 0, true},
		{"complete/depth3", 300, tree.NoMissing, 5, 3, false},
		{"mia/mns5", 300, tree.MIA, 5, 0, false},
		{"mia/mns1", 200, tree.MIA, 1, 0, false},
		{"mia/ties", 300, tree.MIA, 3, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for rep := range 5 {
				rng := rand.New(rand.NewPCG(uint64(rep), 42))
				q := drawQuad(tc.n, rng)
				X := q.x
				if tc.strategy == tree.MIA {
					X = q.withNA()
				}
				if tc.ties {
					roundDense(X, 10)
				}
				p := RangerDefaults()
				p.Strategy, p.MinNodeSize, p.MaxDepth, p.Mtry = tc.strategy, tc.minNode, tc.maxDepth, quadD
				rows := p.bootstrap(tc.n, draw{rand.NewPCG(uint64(rep), 43)})
				if err := sameTree(X, q.y, rows, p); err != nil {
					t.Fatalf("rep %d: %v", rep, err)
				}
			}
		})
	}
}

// sameTree grows both trees and compares them on the in-bag rows.
func sameTree(X *mat.Dense, y []float64, rows []int, p Params) error {
	tp := p.treeParams(p.Mtry)
	ref, err := tree.FitSample(context.Background(), X, y, rows, tp, rand.New(rand.NewPCG(0, 0)))
	if err != nil {
		return err
	}
	g := newGrower(newData(X, y), p)
	nodes := g.growTree(rows, draw{rand.NewPCG(0, 0)})
	f := &Model{trees: [][]node{nodes}, d: p.Mtry, strategy: p.Strategy, threads: 1}
	in := mat.NewDense(len(rows), p.Mtry, nil)
	for k, r := range rows {
		in.SetRow(k, X.RawRowView(r))
	}
	want, err := ref.Predict(context.Background(), in)
	if err != nil {
		return err
	}
	got, err := f.Predict(context.Background(), in)
	if err != nil {
		return err
	}
	for k := range rows {
		if math.Abs(got[k]-want[k]) > 1e-9*(1+math.Abs(want[k])) {
			return fmt.Errorf("in-bag row %d: forest grower %v, tree package %v", rows[k], got[k], want[k])
		}
	}
	leaves := 0
	for _, nd := range nodes {
		if nd.feat < 0 {
			leaves++
		}
	}
	if leaves != ref.NumLeaves() {
		return fmt.Errorf("%d leaves, tree package %d", leaves, ref.NumLeaves())
	}
	return nil
}

// roundDense rounds every non-NaN entry of X to 1/scale.
func roundDense(X *mat.Dense, scale float64) {
	raw := X.RawMatrix()
	for i, v := range raw.Data {
		raw.Data[i] = math.Round(v*scale) / scale
	}
}

// treeParams are the tree package's controls that encode ranger's rule
// for a forest on d columns: no pruning (CP 0), children of any size
// (MinBucket 1), nodes with at most MinNodeSize entries left unsplit (the
// tree package's MinNodeSize means "fewer than", hence +1), every column
// a candidate.
func (p Params) treeParams(d int) tree.Params {
	return tree.Params{Strategy: p.Strategy, MinBucket: 1, CP: 0, MaxDepth: p.MaxDepth,
		MinNodeSize: p.MinNodeSize + 1, Mtry: d}
}
