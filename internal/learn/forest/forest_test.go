package forest

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
	"github.com/misslab/misslab/internal/learn/tree"
)

// fit is Fit with a fixed seed that fails the test on error.
func fit(t *testing.T, X *mat.Dense, y []float64, p Params, seed uint64) *Model {
	t.Helper()
	f, err := Fit(context.Background(), X, y, p, rand.New(rand.NewPCG(seed, 7)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// predict is Predict that fails the test on error.
func predict(t *testing.T, f *Model, X *mat.Dense) []float64 {
	t.Helper()
	out, err := f.Predict(context.Background(), X)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRangerDefaults(t *testing.T) {
	p := RangerDefaults()
	want := Params{NumTrees: 500, Mtry: 0, MinNodeSize: 5, MaxDepth: 0, Replace: true,
		SampleFraction: 1, Strategy: tree.NoMissing, Threads: 1}
	if p != want {
		t.Fatalf("RangerDefaults() = %+v, want %+v", p, want)
	}
}

// TestMtryDefault checks ranger's max(1, ⌊√p⌋) for regression.
func TestMtryDefault(t *testing.T) {
	for _, tc := range []struct{ d, want int }{
		{1, 1}, {2, 1}, {3, 1}, {4, 2}, {8, 2}, {9, 3}, {12, 3}, {15, 3}, {16, 4},
		{99, 9}, {100, 10}, {10000, 100}, {10001, 100},
	} {
		if got := RangerDefaults().mtry(tc.d); got != tc.want {
			t.Errorf("mtry(%d) = %d, want %d", tc.d, got, tc.want)
		}
	}
	p := RangerDefaults()
	p.Mtry = 5
	if got := p.mtry(9); got != 5 {
		t.Errorf("explicit Mtry 5 resolved to %d", got)
	}
}

// TestBootstrap checks the in-bag draws: n draws with replacement cover
// a fraction 1 − (1 − 1/n)^n ≈ 0.632 of the rows on average (sd over
// 200 trees of n = 1000: about 0.015/√200 ≈ 0.001); without replacement
// ⌊n·fraction⌋ distinct rows.
func TestBootstrap(t *testing.T) {
	const n, trees = 1000, 200
	r := draw{rand.NewPCG(3, 3)}
	p := RangerDefaults()
	var covered float64
	for range trees {
		rows := p.bootstrap(n, r)
		if len(rows) != n {
			t.Fatalf("%d in-bag entries, want %d", len(rows), n)
		}
		covered += float64(distinct(rows)) / n / trees
	}
	want := 1 - math.Pow(1-1.0/n, n)
	if math.Abs(covered-want) > 0.005 {
		t.Errorf("bootstrap covers %.4f of the rows, want %.4f", covered, want)
	}
	p.Replace, p.SampleFraction = false, 0.632
	rows := p.bootstrap(n, r)
	if len(rows) != 632 || distinct(rows) != 632 {
		t.Errorf("without replacement: %d entries, %d distinct, want 632", len(rows), distinct(rows))
	}
	p.SampleFraction = 1e-9
	if rows := p.bootstrap(n, r); len(rows) != 1 {
		t.Errorf("tiny fraction: %d entries, want 1", len(rows))
	}
}

func distinct(rows []int) int {
	seen := map[int]bool{}
	for _, r := range rows {
		seen[r] = true
	}
	return len(seen)
}

// TestNoSplitIsBootstrapMean: when no node may split, every tree predicts
// the mean target of its in-bag entries (repeats counted), as ranger's
// leaves do. Without replacement and fraction 1 that is the sample mean
// exactly; with the bootstrap, the forest's prediction is an average of
// B bootstrap means: unbiased for the sample mean with standard
// deviation σ/√(nB).
func TestNoSplitIsBootstrapMean(t *testing.T) {
	const n = 400
	r := rand.New(rand.NewPCG(5, 5))
	q := drawQuad(n, r)
	ybar, sd := meanSD(q.y)
	p := RangerDefaults()
	p.MinNodeSize = n
	for _, tc := range []struct {
		name    string
		replace bool
		trees   int
		tol     float64
	}{
		{"subsample all", false, 3, 1e-12 * math.Abs(ybar)},
		{"bootstrap", true, 200, 4 * sd / math.Sqrt(n*200)},
	} {
		p.Replace, p.NumTrees = tc.replace, tc.trees
		f := fit(t, q.x, q.y, p, 1)
		if f.NumNodes() != tc.trees {
			t.Fatalf("%s: %d nodes for %d single-leaf trees", tc.name, f.NumNodes(), tc.trees)
		}
		got := predict(t, f, q.x.Slice(0, 2, 0, quadD).(*mat.Dense))
		if got[0] != got[1] || math.Abs(got[0]-ybar) > tc.tol {
			t.Errorf("%s: predictions %v, want the sample mean %v ± %.3g", tc.name, got, ybar, tc.tol)
		}
	}
}

// TestConstantTarget: a constant target gives pure roots and that
// constant everywhere.
func TestConstantTarget(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	q := drawQuad(100, r)
	y := make([]float64, 100)
	for i := range y {
		y[i] = 2.5
	}
	p := RangerDefaults()
	p.NumTrees = 20
	f := fit(t, q.x, y, p, 2)
	if f.NumNodes() != 20 {
		t.Errorf("%d nodes, want 20 single leaves", f.NumNodes())
	}
	for i, v := range predict(t, f, q.x) {
		if v != 2.5 {
			t.Fatalf("prediction %d = %v, want 2.5", i, v)
		}
	}
}

// TestStepFunction: y = 1{x > 0} on one column. Every tree's root split
// separates its in-bag rows perfectly (the only split with zero
// within-node error), so both children are pure leaves and every point
// outside the gap around 0 left by the bootstraps is predicted exactly.
func TestStepFunction(t *testing.T) {
	const n = 200
	X := mat.NewDense(n, 1, nil)
	y := make([]float64, n)
	for i := range n {
		x := -1 + 2*float64(i)/(n-1)
		X.Set(i, 0, x)
		if x > 0 {
			y[i] = 1
		}
	}
	p := RangerDefaults()
	p.NumTrees = 50
	f := fit(t, X, y, p, 3)
	if f.NumNodes() != 3*50 {
		t.Errorf("%d nodes, want 50 stumps", f.NumNodes())
	}
	test := mat.NewDense(4, 1, []float64{-1, -0.5, 0.5, 1})
	want := []float64{0, 0, 1, 1}
	for i, v := range predict(t, f, test) {
		if v != want[i] {
			t.Errorf("f(%v) = %v, want %v", test.At(i, 0), v, want[i])
		}
	}
}

// TestMIAObservedVsMissing: y = 5 exactly when x1 is NA. The only split
// separating the targets is MIA's "observed vs NA", so every tree routes
// NA rows to a leaf of 5s and observed rows to leaves of 0s. A column
// that never had NA at training sends NA to the child holding more
// in-bag entries.
func TestMIAObservedVsMissing(t *testing.T) {
	const n = 300
	r := rand.New(rand.NewPCG(8, 8))
	X := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for i := range n {
		X.Set(i, 0, r.NormFloat64())
		X.Set(i, 1, r.NormFloat64())
		if i%3 == 0 {
			X.Set(i, 0, math.NaN())
			y[i] = 5
		}
	}
	p := RangerDefaults()
	p.Strategy, p.NumTrees, p.Mtry = tree.MIA, 30, 2
	f := fit(t, X, y, p, 4)
	test := mat.NewDense(3, 2, []float64{math.NaN(), 0.3, 1.2, -0.7, -2, math.NaN()})
	got := predict(t, f, test)
	if got[0] != 5 || got[1] != 0 || got[2] != 0 {
		t.Errorf("predictions %v, want [5 0 0]", got)
	}
}

// TestMIAOnCompleteData: with no NA anywhere, MIA's split search reduces
// to the plain one, so the same random source gives the same forest.
func TestMIAOnCompleteData(t *testing.T) {
	q := drawQuad(300, rand.New(rand.NewPCG(9, 9)))
	p := RangerDefaults()
	p.NumTrees = 30
	plain := predict(t, fit(t, q.x, q.y, p, 5), q.x)
	p.Strategy = tree.MIA
	mia := predict(t, fit(t, q.x, q.y, p, 5), q.x)
	for i := range plain {
		if plain[i] != mia[i] {
			t.Fatalf("row %d: %v without NA handling, %v with MIA", i, plain[i], mia[i])
		}
	}
}

// TestThreadsDoNotChangeResults: the same random source gives
// bit-identical forests and predictions with 1, 2 and 4 threads, for
// both strategies.
func TestThreadsDoNotChangeResults(t *testing.T) {
	tr, te := goldenData(11, 300, 300)
	for _, st := range []tree.Strategy{tree.NoMissing, tree.MIA} {
		Xtr, Xte := tr.x, te.x
		if st == tree.MIA {
			Xtr, Xte = tr.withNA(), te.withNA()
		}
		var ref []float64
		var refNodes int
		for _, threads := range []int{1, 2, 4} {
			p := RangerDefaults()
			p.NumTrees, p.Strategy, p.Threads = 60, st, threads
			f := fit(t, Xtr, tr.y, p, 10)
			got := predict(t, f, Xte)
			if ref == nil {
				ref, refNodes = got, f.NumNodes()
				continue
			}
			if f.NumNodes() != refNodes {
				t.Errorf("%v, %d threads: %d nodes, 1 thread %d", st, threads, f.NumNodes(), refNodes)
			}
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(ref[i]) {
					t.Fatalf("%v, %d threads: row %d predicts %v, 1 thread %v", st, threads, i, got[i], ref[i])
				}
			}
		}
		other := predict(t, fit(t, Xtr, tr.y, Params{NumTrees: 60, MinNodeSize: 5, Replace: true,
			SampleFraction: 1, Strategy: st}, 11), Xte)
		if other[0] == ref[0] && other[1] == ref[1] {
			t.Errorf("%v: another seed gave the same predictions", st)
		}
	}
}

// TestBadInput: unusable data and parameters give errors wrapping the
// documented sentinels, never a panic.
func TestBadInput(t *testing.T) {
	q := drawQuad(20, rand.New(rand.NewPCG(12, 12)))
	X, y := q.x, q.y
	nanY := append([]float64(nil), y...)
	nanY[3] = math.NaN()
	infY := append([]float64(nil), y...)
	infY[4] = math.Inf(-1)
	infX := mat.DenseCopyOf(X)
	infX.Set(2, 1, math.Inf(1))
	nanX := mat.DenseCopyOf(X)
	nanX.Set(5, 0, math.NaN())
	ok := RangerDefaults()
	ok.NumTrees = 5
	with := func(mod func(*Params)) Params { p := ok; mod(&p); return p }
	rng := rand.New(rand.NewPCG(1, 1))
	cases := []struct {
		name string
		X    *mat.Dense
		y    []float64
		p    Params
		rng  *rand.Rand
		want []error
	}{
		{"NaN target", X, nanY, ok, rng, []error{learnerr.ErrInput}},
		{"Inf target", X, infY, ok, rng, []error{learnerr.ErrInput}},
		{"Inf feature", infX, y, ok, rng, []error{learnerr.ErrInput}},
		{"Inf feature under MIA", infX, y, with(func(p *Params) { p.Strategy = tree.MIA }), rng, []error{learnerr.ErrInput}},
		{"NaN feature without NA handling", nanX, y, ok, rng, []error{learnerr.ErrInput}},
		{"nil X", nil, nil, ok, rng, []error{learnerr.ErrInput}},
		{"zero rows", &mat.Dense{}, nil, ok, rng, []error{learnerr.ErrInput}},
		{"short y", X, y[:10], ok, rng, []error{learnerr.ErrInput}},
		{"nil rng", X, y, ok, nil, []error{learnerr.ErrInput}},
		{"no trees", X, y, with(func(p *Params) { p.NumTrees = 0 }), rng, []error{learnerr.ErrSetting}},
		{"mtry > p", X, y, with(func(p *Params) { p.Mtry = quadD + 1 }), rng, []error{learnerr.ErrSetting}},
		{"negative mtry", X, y, with(func(p *Params) { p.Mtry = -1 }), rng, []error{learnerr.ErrSetting}},
		{"negative node size", X, y, with(func(p *Params) { p.MinNodeSize = -1 }), rng, []error{learnerr.ErrSetting}},
		{"negative depth", X, y, with(func(p *Params) { p.MaxDepth = -2 }), rng, []error{learnerr.ErrSetting}},
		{"zero fraction", X, y, with(func(p *Params) { p.SampleFraction = 0 }), rng, []error{learnerr.ErrSetting}},
		{"fraction > 1", X, y, with(func(p *Params) { p.SampleFraction = 1.5 }), rng, []error{learnerr.ErrSetting}},
		{"NaN fraction", X, y, with(func(p *Params) { p.SampleFraction = math.NaN() }), rng, []error{learnerr.ErrSetting}},
		{"surrogate strategy", X, y, with(func(p *Params) { p.Strategy = tree.Surrogate }), rng, []error{learnerr.ErrSetting}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Fit(context.Background(), tc.X, tc.y, tc.p, tc.rng)
			if f != nil || err == nil {
				t.Fatalf("Fit returned %v, %v; want an error", f, err)
			}
			for _, w := range tc.want {
				if !errors.Is(err, w) {
					t.Errorf("error %q does not wrap %q", err, w)
				}
			}
		})
	}
}

// TestPredictBadInput: Predict rejects what Fit would, plus a column
// count that differs from the training one.
func TestPredictBadInput(t *testing.T) {
	q := drawQuad(50, rand.New(rand.NewPCG(13, 13)))
	p := RangerDefaults()
	p.NumTrees = 5
	f := fit(t, q.x, q.y, p, 1)
	p.Strategy = tree.MIA
	fm := fit(t, q.withNA(), q.y, p, 1)
	nanRow := mat.NewDense(1, quadD, nil)
	nanRow.Set(0, 2, math.NaN())
	infRow := mat.NewDense(1, quadD, nil)
	infRow.Set(0, 4, math.Inf(-1))
	for _, tc := range []struct {
		name string
		f    *Model
		X    *mat.Dense
		want error
	}{
		{"fewer columns", f, mat.NewDense(2, quadD-1, nil), learnerr.ErrInput},
		{"more columns", fm, mat.NewDense(2, quadD+1, nil), learnerr.ErrInput},
		{"nil", f, nil, learnerr.ErrInput},
		{"empty", f, &mat.Dense{}, learnerr.ErrInput},
		{"NaN without NA handling", f, nanRow, learnerr.ErrInput},
		{"Inf", fm, infRow, learnerr.ErrInput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := tc.f.Predict(context.Background(), tc.X)
			if out != nil || !errors.Is(err, tc.want) {
				t.Fatalf("Predict = %v, %v; want an error wrapping %v", out, err, tc.want)
			}
		})
	}
	if _, err := fm.Predict(context.Background(), nanRow); err != nil {
		t.Errorf("MIA forest rejects NaN: %v", err)
	}
}

// TestCancelled: a cancelled context stops the fit with its error.
func TestCancelled(t *testing.T) {
	q := drawQuad(50, rand.New(rand.NewPCG(14, 14)))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f, err := Fit(ctx, q.x, q.y, RangerDefaults(), rand.New(rand.NewPCG(1, 1)))
	if f != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("Fit = %v, %v; want context.Canceled", f, err)
	}
}

// TestTinyAndDegenerate fits many tiny data sets (1–8 rows, 1–3
// columns, heavy ties, NaN patterns including all-NA rows and columns)
// under both strategies: no panic, and every prediction is an average of
// leaf means, so it lies within the range of the training targets.
func TestTinyAndDegenerate(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 15))
	values := []float64{-1, 0, 0, 2.5, 1e-300, math.NaN()}
	for rep := range 300 {
		n, d := 1+r.IntN(8), 1+r.IntN(3)
		X := mat.NewDense(n, d, nil)
		y := make([]float64, n)
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := range n {
			for j := range d {
				X.Set(i, j, values[r.IntN(len(values))])
			}
			y[i] = float64(r.IntN(3))
			lo, hi = min(lo, y[i]), max(hi, y[i])
		}
		p := RangerDefaults()
		p.NumTrees, p.MinNodeSize, p.Strategy = 7, r.IntN(3), tree.MIA
		f := fit(t, X, y, p, uint64(rep))
		for i, v := range predict(t, f, X) {
			if !(v >= lo-1e-12 && v <= hi+1e-12) {
				t.Fatalf("rep %d: prediction %d = %v outside the targets' range [%v, %v]", rep, i, v, lo, hi)
			}
		}
		p.Strategy = tree.NoMissing
		if _, err := Fit(context.Background(), X, y, p, rand.New(rand.NewPCG(1, 1))); err != nil && !errors.Is(err, learnerr.ErrInput) {
			t.Fatalf("rep %d: complete-data fit: %v", rep, err)
		}
	}
}

// TestDrawIntN checks that draw.intN gives rand.Rand.IntN's values from
// the same source, consuming as many draws, for bounds small and large,
// powers of two, and bounds whose rejection region is large (near 2⁶³).
func TestDrawIntN(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 8, 9, 1000, 1 << 20, 1<<30 - 1, 1<<62 + 1, 3 << 61} {
		a, b := rand.NewPCG(uint64(n), 5), rand.NewPCG(uint64(n), 5)
		r, d := rand.New(a), draw{b}
		for k := range 2000 {
			if got, want := d.intN(n), r.IntN(n); got != want {
				t.Fatalf("n = %d, draw %d: intN %d, IntN %d", n, k, got, want)
			}
		}
		if a.Uint64() != b.Uint64() {
			t.Fatalf("n = %d: the sources drifted apart (a different number of draws)", n)
		}
	}
}
