package ctree

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/misslab/misslab/internal/learn/internal/learntest"

	"gonum.org/v1/gonum/mat"
)

// TestGoldenStockSurrogates pins down the one place where this package
// deliberately differs from partykit: the surrogate cut search. partykit
// searches surrogate cuts with minbucket = 0, which admits the degenerate
// cut "x ≤ max x" (every row on one side, zero variance); libcoin's
// 2 × 2 pseudo-inverse then yields an infinite statistic whenever
// s = (W/(W−1))·W − W²/(W−1) rounds below zero, and the degenerate cut
// becomes the surrogate. Walking stock partykit's trees (the "surrstock"
// fixtures) from the root, every surrogate must equal ours or be exactly
// that degenerate cut with s < 0; below a node with a degenerate
// surrogate the row sets differ and the walk stops.
func TestGoldenStockSurrogates(t *testing.T) {
	p := PaperDefaults()
	p.MaxSurrogate = 3
	degenerate := 0
	for _, data := range []string{"small", "mixed", "exp1", "exp1mask", "ties", "strong"} {
		X, y, _ := goldenData(t, data)
		tr, err := Fit(context.Background(), X, y, p, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		stem := filepath.Join("testdata", "golden", data+"_surrstock")
		nodes, surr := learntest.ReadCSV(t, stem+"_nodes.csv"), learntest.ReadCSV(t, stem+"_surrogates.csv")
		want := map[string][]SurrogateInfo{}
		for i := range surr.Rows {
			path := surr.Str(t, i, "path")
			want[path] = append(want[path], SurrogateInfo{Feature: int(surr.Num(t, i, "feature")),
				Threshold: surr.Num(t, i, "threshold"), LowLeft: surr.Num(t, i, "low_left") == 1})
		}
		split := map[string][2]float64{}
		for i := range nodes.Rows {
			split[nodes.Str(t, i, "path")] = [2]float64{nodes.Num(t, i, "feature"), nodes.Num(t, i, "threshold")}
		}
		rows := nodeRows(tr, X)
		var walk func(id int, path string)
		walk = func(id int, path string) {
			nd := tr.info(id)
			if nd.Leaf {
				return
			}
			if s := split[path]; int(s[0]) != nd.Feature || s[1] != nd.Threshold {
				t.Errorf("%s node %s: split (%d, %v), partykit (%v, %v)", data, path, nd.Feature, nd.Threshold, s[0], s[1])
				return
			}
			w := want[path]
			if len(w) != len(nd.Surrogates) {
				t.Errorf("%s node %s: %d surrogates, partykit %d", data, path, len(nd.Surrogates), len(w))
				return
			}
			stop := false
			for k, s := range nd.Surrogates {
				if s == w[k] {
					continue
				}
				top, n := maxObserved(X, rows[id], nd.Feature, s.Feature)
				if w[k].Feature != s.Feature || w[k].Threshold != top || !(degenerateS(n) < 0) {
					t.Errorf("%s node %s surrogate %d: %+v, partykit %+v (max %v over %d rows) unexplained",
						data, path, k+1, s, w[k], top, n)
				}
				degenerate++
				stop = true
			}
			if !stop {
				walk(nd.Left, path+"0")
				walk(nd.Right, path+"1")
			}
		}
		walk(0, "r")
	}
	if degenerate == 0 {
		t.Error("no degenerate partykit surrogate in the stock fixtures: the test checks nothing")
	}
	t.Logf("%d degenerate partykit surrogates explained", degenerate)
}

// degenerateS is libcoin's variance factor f1·W − f2·W² of the cut with
// every one of W rows on the left, computed in libcoin's order.
func degenerateS(n int) float64 {
	w := float64(n)
	f1, f2 := w/(w-1), 1/(w-1)
	return f1*w - f2*(w*w)
}

// maxObserved returns the largest value of column j over rows observing
// both column primary and column j, and how many such rows there are.
func maxObserved(X *mat.Dense, rows []int, primary, j int) (float64, int) {
	top, n := math.Inf(-1), 0
	for _, r := range rows {
		if v := X.At(r, j); !math.IsNaN(X.At(r, primary)) && !math.IsNaN(v) {
			top, n = max(top, v), n+1
		}
	}
	return top, n
}

// nodeRows returns, per node index, the training rows reaching it under
// Majority routing.
func nodeRows(tr *Model, X *mat.Dense) map[int][]int {
	out := map[int][]int{}
	n, _ := X.Dims()
	for i := range n {
		row := X.RawRowView(i)
		id := int32(0)
		for {
			out[int(id)] = append(out[int(id)], i)
			nd := &tr.nodes[id]
			if nd.feature < 0 {
				break
			}
			left := false
			if x := row[nd.feature]; !math.IsNaN(x) {
				left = x <= nd.threshold
			} else {
				left = tr.naLeft(nd, row, nil)
			}
			id = nd.right
			if left {
				id = nd.left
			}
		}
	}
	return out
}
