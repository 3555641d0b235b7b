package tree

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/internal/learntest"
	"github.com/misslab/misslab/internal/learn/learnerr"
)

// classData draws n rows of d columns (some integer-valued, so with
// ties) with NA at the given rate, and k classes depending on the first
// two columns through a multinomial logit.
func classData(n, d, k int, rate float64, rng *rand.Rand) (*mat.Dense, []float64) {
	X, _ := randomData(n, d, 0, rng)
	y := make([]float64, n)
	for i := range n {
		best := math.Inf(-1)
		for c := range k {
			s := float64(c)*X.At(i, 0) - float64(c*c)*0.3*X.At(i, 1%d) - math.Log(-math.Log(rng.Float64()))
			if s > best {
				best, y[i] = s, float64(c)
			}
		}
		for j := range d {
			if rng.Float64() < rate {
				X.Set(i, j, math.NaN())
			}
		}
	}
	return X, y
}

// TestFitClassErrors checks that bad input yields the documented
// sentinel error, never a panic.
func TestFitClassErrors(t *testing.T) {
	ctx := context.Background()
	good := mat.NewDense(4, 2, []float64{1, 2, 3, 4, 5, 6, 7, 8})
	y := []float64{0, 1, 0, 1}
	nan := math.NaN()
	p := PaperDefaults()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	fit := func(ctx context.Context, X *mat.Dense, y []float64, k int, q Params, rng *rand.Rand) error {
		_, err := FitClass(ctx, X, y, k, q, rng)
		return err
	}
	none := p
	none.Strategy = NoMissing
	badP := p
	badP.MinBucket = 0
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"nil rng", fit(ctx, good, y, 2, p, nil), learnerr.ErrInput},
		{"k = 1", fit(ctx, good, []float64{0, 0, 0, 0}, 1, p, newRNG(1)), learnerr.ErrSetting},
		{"bad params", fit(ctx, good, y, 2, badP, newRNG(1)), learnerr.ErrSetting},
		{"code = k", fit(ctx, good, []float64{0, 1, 2, 1}, 2, p, newRNG(1)), learnerr.ErrInput},
		{"negative code", fit(ctx, good, []float64{0, -1, 0, 1}, 2, p, newRNG(1)), learnerr.ErrInput},
		{"fractional code", fit(ctx, good, []float64{0, 0.5, 0, 1}, 2, p, newRNG(1)), learnerr.ErrInput},
		{"NaN code", fit(ctx, good, []float64{0, nan, 0, 1}, 2, p, newRNG(1)), learnerr.ErrInput},
		{"short y", fit(ctx, good, y[:3], 2, p, newRNG(1)), learnerr.ErrInput},
		{"nil X", fit(ctx, nil, y, 2, p, newRNG(1)), learnerr.ErrInput},
		{"Inf X", fit(ctx, mat.NewDense(4, 1, []float64{1, math.Inf(1), 2, 3}), y, 2, p, newRNG(1)), learnerr.ErrInput},
		{"NaN X, none", fit(ctx, mat.NewDense(4, 1, []float64{1, nan, 2, 3}), y, 2, none, newRNG(1)), learnerr.ErrInput},
		{"all NA (surrogate)", fit(ctx, mat.NewDense(4, 1, []float64{nan, nan, nan, nan}), y, 2, p, newRNG(1)), learnerr.ErrInput},
		{"cancelled", fit(cancelled, good, y, 2, p, newRNG(1)), context.Canceled},
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, c.err, c.want)
		}
	}
	m, err := FitClass(ctx, good, y, 2, p, newRNG(1))
	if err != nil {
		t.Fatal(err)
	}
	for name, X := range map[string]*mat.Dense{"3 columns": mat.NewDense(1, 3, nil), "nil": nil,
		"-Inf": mat.NewDense(1, 2, []float64{math.Inf(-1), 0})} {
		if _, err := m.PredictProba(ctx, X); !errors.Is(err, learnerr.ErrInput) {
			t.Errorf("PredictProba(%s): %v, want learnerr.ErrInput", name, err)
		}
	}
	if _, err := m.PredictProba(cancelled, good); !errors.Is(err, context.Canceled) {
		t.Errorf("PredictProba(cancelled): %v, want context.Canceled", err)
	}
}

// TestClassNodesConsistent: under every strategy and several controls a
// node's counts add up to its n, its probabilities are its class
// proportions (data priors) and sum to 1, its class is the most frequent
// (ties to the lower code), its deviance the count of the other classes,
// and PredictProba returns the probabilities of the node where
// Model.Predict's routing stops.
func TestClassNodesConsistent(t *testing.T) {
	X, y := classData(400, 5, 3, 0.2, newRNG(31))
	for _, st := range []Strategy{Surrogate, MIA, Block, Prob, Majority} {
		for _, p := range []Params{{MinSplit: 20, MinBucket: 7, MaxDepth: 30, MaxSurrogate: 5},
			{MinBucket: 1, CP: 0.001}, {MinBucket: 30, MinSplit: 90}} {
			p.Strategy = st
			m, err := FitClass(context.Background(), X, y, 3, p, newRNG(32))
			if err != nil {
				t.Fatal(err)
			}
			for i, nd := range m.Nodes() {
				checkClassNode(t, st, i, nd)
			}
			checkProbaRows(t, st, m, X)
		}
	}
}

func checkClassNode(t *testing.T, st Strategy, i int, nd ClassNodeInfo) {
	t.Helper()
	var n, psum float64
	mode := 0
	for j, c := range nd.Counts {
		n += c
		psum += nd.Prob[j]
		if c > nd.Counts[mode] {
			mode = j
		}
		if p := c / float64(nd.N); math.Abs(nd.Prob[j]-p) > 1e-15 {
			t.Errorf("%v node %d: P(class %d) = %v, proportion %v", st, i, j, nd.Prob[j], p)
		}
	}
	if int(n) != nd.N || math.Abs(psum-1) > 1e-15 || nd.Value != float64(mode) || nd.Deviance != float64(nd.N)-nd.Counts[mode] {
		t.Errorf("%v node %d: n %d, counts %v (sum %v), probabilities sum %v, class %v, dev %v",
			st, i, nd.N, nd.Counts, n, psum, nd.Value, nd.Deviance)
	}
}

func checkProbaRows(t *testing.T, st Strategy, m *ClassModel, X *mat.Dense) {
	t.Helper()
	P, err := m.PredictProba(context.Background(), X)
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := m.tree.leaves(context.Background(), X)
	if r, c := P.Dims(); r != len(ids) || c != m.NumClasses() {
		t.Fatalf("%v: PredictProba is %d × %d", st, r, c)
	}
	for i, id := range ids {
		if want := m.prob[int(id)*m.k : int(id+1)*m.k]; !slices.Equal(P.RawRowView(i), want) {
			t.Errorf("%v row %d: %v, node %d has %v", st, i, P.RawRowView(i), id, want)
		}
	}
}

// TestClassCodes: classes that never occur get probability 0 everywhere,
// and a larger k only appends zero columns (rpart sizes its tables by the
// largest code present); a pure training set is a single leaf sure of
// its class.
func TestClassCodes(t *testing.T) {
	X, y := classData(300, 3, 3, 0.1, newRNG(33))
	for i := range y {
		y[i] *= 2 // codes 0, 2, 4: 1 and 3 absent
	}
	ctx := context.Background()
	p := Params{Strategy: Surrogate, MinBucket: 5, MinSplit: 15, MaxSurrogate: 5}
	a, err := FitClass(ctx, X, y, 5, p, newRNG(1))
	if err != nil {
		t.Fatal(err)
	}
	b, err := FitClass(ctx, X, y, 8, p, newRNG(1))
	if err != nil {
		t.Fatal(err)
	}
	pa, _ := a.PredictProba(ctx, X)
	pb, _ := b.PredictProba(ctx, X)
	for i := range 300 {
		ra, rb := pa.RawRowView(i), pb.RawRowView(i)
		if !slices.Equal(ra, rb[:5]) || slices.ContainsFunc(rb[5:], func(v float64) bool { return v != 0 }) ||
			ra[1] != 0 || ra[3] != 0 {
			t.Fatalf("row %d: k = 5 gives %v, k = 8 gives %v", i, ra, rb)
		}
	}
	pure := slices.Repeat([]float64{3}, 300)
	m, err := FitClass(ctx, X, pure, 4, p, newRNG(1))
	if err != nil {
		t.Fatal(err)
	}
	if pm, _ := m.PredictProba(ctx, X.Slice(0, 1, 0, 3).(*mat.Dense)); m.NumLeaves() != 1 || !slices.Equal(pm.RawRowView(0), []float64{0, 0, 0, 1}) {
		t.Errorf("pure class 3: %d leaves, probabilities %v", m.NumLeaves(), pm.RawRowView(0))
	}
}

// TestClassTieOrder: the m4apr fixture's fully grown tree comes out
// differently (some improve differs in its last bits) when the columns are
// presorted stably instead of in rpart's quicksort order, so
// TestClassGoldenRpart's m4apr/full case checks that order.
func TestClassTieOrder(t *testing.T) {
	train := learntest.ReadCSV(t, filepath.Join("testdata", "golden_class", "m4apr_train.csv"))
	X, y := train.Matrix(t, train.XNames()), train.Column(t, "y")
	grow := func(order func(v []float64, idx, cnt []int32)) []NodeInfo {
		raw := X.RawMatrix()
		entries, err := entryRows(raw, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		g := newGrower(context.Background(), classGoldenFull, newSample(raw.Data, raw.Stride, raw.Cols, y, entries, order), newRNG(1))
		crit := newGini(y, entries)
		crit.g, g.crit = g, crit
		tr, err := g.run()
		if err != nil {
			t.Fatal(err)
		}
		return tr.Nodes()
	}
	if a, b := grow(rpartOrder), grow(sortColumn); slices.EqualFunc(a, b, func(x, y NodeInfo) bool {
		return x.Feature == y.Feature && x.Threshold == y.Threshold && x.Improve == y.Improve && x.N == y.N
	}) {
		t.Error("m4apr/full: a stable presort gives rpart's tree too; the fixture no longer tests the order of ties")
	}
	for _, c := range []struct {
		counts []int
		rpart  bool // rpart's order needed
	}{{[]int{50, 90, 100, 60}, true}, {[]int{100, 100, 100}, false}, {[]int{300, 700}, false}, {[]int{0, 90, 0, 100, 60}, false}} {
		var y []float64
		var rows []int32
		for j, n := range c.counts {
			for range n {
				y, rows = append(y, float64(j)), append(rows, int32(len(rows)))
			}
		}
		got := reflect.ValueOf(newGini(y, rows).presort()).Pointer() == reflect.ValueOf(rpartOrder).Pointer()
		if got != c.rpart {
			t.Errorf("counts %v: rpart's order chosen %v, want %v", c.counts, got, c.rpart)
		}
	}
}
