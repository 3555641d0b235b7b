package tree

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// giniScore returns n·Σ p_j(1 − p_j) over the class codes ys: rpart's
// weighted Gini score of a group under data priors.
func giniScore(ys []float64) float64 {
	if len(ys) == 0 {
		return 0
	}
	cnt := map[float64]float64{}
	for _, v := range ys {
		cnt[v]++
	}
	n := float64(len(ys))
	var s float64
	for _, c := range cnt {
		s += n * (c / n) * (1 - c/n)
	}
	return s
}

// giniCandidates enumerates, by brute force, every root split of column
// j (every midpoint between consecutive distinct observed values, with
// MIA's NA sides and "observed vs NA") that respects minb, with its gain
// scored from scratch by giniScore.
func giniCandidates(X *mat.Dense, y []float64, j int, st Strategy, gain Gain, minb int) []bruteSplit {
	n, _ := X.Dims()
	var obs []float64
	for i := range n {
		if v := X.At(i, j); !math.IsNaN(v) {
			obs = append(obs, v)
		}
	}
	slices.Sort(obs)
	obs = slices.Compact(obs)
	var out []bruteSplit
	for i := 1; i <= len(obs); i++ {
		thr := math.Inf(1)
		if i < len(obs) {
			thr = (obs[i-1] + obs[i]) / 2
		}
		var lo, hi, na []float64
		for r := range n {
			switch v := X.At(r, j); {
			case math.IsNaN(v):
				na = append(na, y[r])
			case v < thr:
				lo = append(lo, y[r])
			default:
				hi = append(hi, y[r])
			}
		}
		add := func(a, b []float64, naLeft bool, scale float64) {
			if len(a) >= minb && len(b) >= minb {
				g := giniScore(slices.Concat(a, b)) - giniScore(a) - giniScore(b)
				out = append(out, bruteSplit{j, thr, naLeft, g * scale})
			}
		}
		switch {
		case st != MIA && i < len(obs):
			scale := 1.0
			if gain == GainPerObserved {
				scale = float64(n) / float64(len(lo)+len(hi))
			}
			add(lo, hi, false, scale)
		case st == MIA && i == len(obs) && len(na) > 0:
			add(lo, na, false, 1)
		case st == MIA && i < len(obs):
			full := giniScore(y)
			for _, left := range []bool{true, false} {
				a, b := lo, slices.Concat(hi, na)
				if left {
					a, b = slices.Concat(lo, na), hi
				}
				if len(a) >= minb && len(b) >= minb {
					out = append(out, bruteSplit{j, thr, left, full - giniScore(a) - giniScore(b)})
				}
			}
		}
	}
	return out
}

// TestClassStumpBruteForce checks the root split search of every
// strategy's class tree against exhaustive enumeration on random small
// data sets with NA and ties: the gain the search reports is the
// brute-force gain of the split it chose, and no admissible split gains
// more (ties within rounding may go either way). The search is called
// directly: with cp = 0 rpart's bookkeeping (and FitClass's) still drops
// a stump whose two leaves predict the same class.
func TestClassStumpBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 35))
	for trial := range 80 {
		n, d, k := 20+rng.IntN(60), 1+rng.IntN(4), 2+rng.IntN(3)
		X, y := classData(n, d, k, []float64{0, 0.1, 0.3, 0.6}[trial%4], rng)
		minb := 1 + rng.IntN(6)
		for _, tc := range []struct {
			st   Strategy
			gain Gain
		}{{MIA, GainRpart}, {Block, GainRpart}, {Block, GainPerObserved}, {Majority, GainRpart}} {
			root := rootSearch(t, X, y, Params{Strategy: tc.st, Gain: tc.gain, MinBucket: minb})
			checkStump(t, trial, tc.st, root, X, y, tc.gain, minb)
		}
	}
}

// rootSearch runs FitClass's split search on the root of (X, y) and
// describes its result as a NodeInfo (Leaf when nothing was found).
func rootSearch(t *testing.T, X *mat.Dense, y []float64, p Params) NodeInfo {
	t.Helper()
	raw := X.RawMatrix()
	entries, err := entryRows(raw, nil, p.Strategy == Surrogate)
	if err != nil {
		t.Fatal(err)
	}
	crit := newGini(y, entries)
	g := newGrower(context.Background(), p, newSample(raw.Data, raw.Stride, raw.Cols, y, entries, crit.presort()), newRNG(1))
	crit.g, g.crit = g, crit
	value, risk := g.crit.summarise(0, 0, g.s.n)
	c, ok := g.bestSplit(0, g.s.n, value, risk)
	if !ok {
		return NodeInfo{Leaf: true, Feature: -1}
	}
	seen := g.s.observed(c.feature, 0, g.s.n) < g.s.n
	return NodeInfo{Feature: c.feature, Threshold: c.thr, Improve: c.improve, MissingSeen: seen, MissingLeft: c.naSide == naLeft}
}

func checkStump(t *testing.T, trial int, st Strategy, root NodeInfo, X *mat.Dense, y []float64, gain Gain, minb int) {
	t.Helper()
	_, d := X.Dims()
	best, chosen := 0.0, math.NaN()
	for j := range d {
		for _, c := range giniCandidates(X, y, j, st, gain, minb) {
			best = max(best, c.gain)
			if !root.Leaf && c.feature == root.Feature && c.thr == root.Threshold &&
				(st != MIA || !root.MissingSeen || math.IsInf(c.thr, 1) || c.naLeft == root.MissingLeft) {
				chosen = c.gain
			}
		}
	}
	tol := 1e-9 * math.Max(1, best)
	switch {
	case root.Leaf && best > tol:
		t.Errorf("trial %d %v: no split, brute force gains %v", trial, st, best)
	case !root.Leaf && math.IsNaN(chosen):
		t.Errorf("trial %d %v: split x%d < %v is not admissible", trial, st, root.Feature+1, root.Threshold)
	case !root.Leaf && (math.Abs(chosen-root.Improve) > tol || chosen < best-tol):
		t.Errorf("trial %d %v: split x%d < %v gains %v (reported %v), best %v",
			trial, st, root.Feature+1, root.Threshold, chosen, root.Improve, best)
	}
}

// TestClassNAStrategies: NA rows of class 1 at a split between a pure
// class-0 side (the larger) and a pure class-1 side. MIA and Block send
// them to the class-1 side, Majority to the larger side whatever their
// class, and so do rows NA at prediction; MIA splits "observed vs NA"
// off when the missingness itself is the class.
func TestClassNAStrategies(t *testing.T) {
	nan := math.NaN()
	xs := []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, nan, nan, nan}
	y := []float64{0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1}
	X := mat.NewDense(len(xs), 1, xs)
	for _, c := range []struct {
		st     Strategy
		naProb []float64 // PredictProba of an NA row
	}{{MIA, []float64{0, 1}}, {Block, []float64{0, 1}}, {Majority, []float64{6.0 / 9, 3.0 / 9}}} {
		m, err := FitClass(context.Background(), X, y, 2, Params{Strategy: c.st, MinBucket: 2, MaxDepth: 1}, newRNG(1))
		if err != nil {
			t.Fatal(err)
		}
		if j, thr, ok := m.RootSplit(); !ok || j != 0 || thr != 5.5 {
			t.Errorf("%v: root split %d, %v, %v; want x1 < 5.5", c.st, j, thr, ok)
		}
		P, _ := m.PredictProba(context.Background(), mat.NewDense(1, 1, []float64{nan}))
		if got := P.RawRowView(0); math.Abs(got[0]-c.naProb[0]) > 1e-15 || math.Abs(got[1]-c.naProb[1]) > 1e-15 {
			t.Errorf("%v: NA row gets %v, want %v", c.st, got, c.naProb)
		}
	}
	miss := []float64{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1}
	m, err := FitClass(context.Background(), X, miss, 2, Params{Strategy: MIA, MinBucket: 2}, newRNG(1))
	if err != nil {
		t.Fatal(err)
	}
	if _, thr, ok := m.RootSplit(); !ok || !math.IsInf(thr, 1) || m.NumLeaves() != 2 {
		t.Errorf("MIA on y = 1{NA}: root threshold %v (split %v), %d leaves; want observed vs NA", thr, ok, m.NumLeaves())
	}
}

// TestClassConcurrentPredict: a fitted class tree is read-only;
// concurrent PredictProba calls (run under -race) agree, Prob included.
func TestClassConcurrentPredict(t *testing.T) {
	X, y := classData(300, 4, 3, 0.3, newRNG(36))
	for _, st := range []Strategy{Surrogate, Prob, MIA} {
		m, err := FitClass(context.Background(), X, y, 3, Params{Strategy: st, MinBucket: 5, MaxSurrogate: 5}, newRNG(37))
		if err != nil {
			t.Fatal(err)
		}
		want, _ := m.PredictProba(context.Background(), X)
		done := make(chan *mat.Dense)
		for range 4 {
			go func() {
				got, _ := m.PredictProba(context.Background(), X)
				done <- got
			}()
		}
		for range 4 {
			if got := <-done; !mat.Equal(got, want) {
				t.Errorf("%v: concurrent PredictProba differs", st)
			}
		}
	}
}
