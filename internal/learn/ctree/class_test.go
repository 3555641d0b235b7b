package ctree

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// classData draws n rows of d standard normal columns rounded to 0.1
// (ties), 15% NA in column 0, and classes 0..k−2 (code k−1 never occurs)
// decided by x0 + x1 and noise.
func classData(n, d, k int, rng *rand.Rand) (*mat.Dense, []float64) {
	X := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range n {
		for j := range d {
			X.Set(i, j, math.Round(10*rng.NormFloat64())/10)
		}
		s := X.At(i, 0) + X.At(i, 1) + 0.7*rng.NormFloat64()
		y[i] = math.Min(float64(k-2), math.Max(0, math.Floor(s+float64(k-1)/2)))
		if rng.Float64() < 0.15 {
			X.Set(i, 0, math.NaN())
		}
	}
	return X, y
}

// mpQuad is libcoin's quadratic form dᵀ V⁺ d with the Moore–Penrose
// inverse from V's eigendecomposition, eigenvalues below √ε times the
// largest counted as zero; it returns the form and V's rank.
func mpQuad(t *testing.T, d []float64, V *mat.SymDense) (float64, int) {
	var es mat.EigenSym
	if !es.Factorize(V, true) {
		t.Fatal("eigendecomposition failed")
	}
	val := es.Values(nil)
	var vec mat.Dense
	es.VectorsTo(&vec)
	top := slices.Max(val)
	var stat float64
	rank := 0
	for k, l := range val {
		if l < top*tol {
			continue
		}
		rank++
		var proj float64
		for i := range d {
			proj += vec.At(i, k) * d[i]
		}
		stat += proj * proj / l
	}
	return stat, rank
}

// libcoinClassMoments returns, for x against the k indicator columns of
// codes over rows (NaN x skipped), libcoin's deviation T − E and the
// covariance of T, built as libcoin builds it (raw moments, Kronecker
// product of the influence covariance and the x factor).
func libcoinClassMoments(x, codes []float64, k int, rows []int32) ([]float64, *mat.SymDense) {
	var w, sx, sxx float64
	n, lin := make([]float64, k), make([]float64, k)
	for _, r := range rows {
		if v := x[r]; !math.IsNaN(v) {
			w++
			sx += v
			sxx += v * v
			n[int(codes[r])]++
			lin[int(codes[r])] += v
		}
	}
	xf := w/(w-1)*sxx - sx*sx/(w-1)
	d := make([]float64, k)
	V := mat.NewSymDense(k, nil)
	for q := range k {
		d[q] = lin[q] - sx*n[q]/w
		for r := q; r < k; r++ {
			c := -n[q] / w * n[r] / w
			if q == r {
				c += n[q] / w
			}
			V.SetSym(q, r, c*xf)
		}
	}
	return d, V
}

// TestClassTestIsMoorePenrose: classTest's closed form equals libcoin's
// quadratic form with the eigen-based Moore–Penrose inverse, and its
// degrees of freedom are the covariance's rank (an absent class and NA
// included).
func TestClassTestIsMoorePenrose(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for rep := range 40 {
		k := 3 + rep%3
		X, y := classData(30+rng.IntN(200), 2, k, rng)
		x := mat.Col(nil, 0, X)
		rows := allRows(len(y))
		vt := classTest(0, x, y, k, rows)
		d, V := libcoinClassMoments(x, y, k, rows)
		stat, rank := mpQuad(t, d, V)
		if !vt.Tested || !relClose(vt.Statistic, stat, 1e-10) {
			t.Errorf("rep %d: statistic %v (tested %v), libcoin's form %v", rep, vt.Statistic, vt.Tested, stat)
		}
		if up, _ := chisq(stat, rank); !relClose(vt.PValue, up, 1e-9) {
			t.Errorf("rep %d: p-value %v, χ²(%d) gives %v", rep, vt.PValue, rank, up)
		}
	}
}

// TestBestClassIsMaxOfCutStatistics: bestClass returns the first cut
// maximising libcoin's two-sample quadratic form, computed for every
// admissible cut with the eigen-based Moore–Penrose inverse (ties within
// 1e-12 relative may go to either).
func TestBestClassIsMaxOfCutStatistics(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for rep := range 40 {
		k := 3 + rep%3
		X, y := classData(30+rng.IntN(150), 2, k, rng)
		x := mat.Col(nil, 0, X)
		mb := float64(1 + rng.IntN(10))
		cuts, stats := bruteClassCuts(t, x, y, k, mb)
		thr, ok := newCutter([][]float64{x}).bestClass(0, y, k, allRows(len(y)), mb)
		top := 0.0
		for _, s := range stats {
			top = max(top, s)
		}
		if ok != (top > 0) {
			t.Fatalf("rep %d: ok %v, brute-force maximum %v", rep, ok, top)
		}
		if !ok {
			continue
		}
		i := slices.Index(cuts, thr)
		if i < 0 || stats[i] < top*(1-1e-12) {
			t.Errorf("rep %d: cut %v is not a maximiser (%v of %v)", rep, thr, stats, top)
			continue
		}
		for _, s := range stats[:i] {
			if s > stats[i]*(1+1e-12) {
				t.Errorf("rep %d: an earlier cut scores %v > %v", rep, s, stats[i])
			}
		}
	}
}

// bruteClassCuts returns the admissible cuts (distinct observed values u,
// "x ≤ u" leaving mb rows a side) and libcoin's statistic of each.
func bruteClassCuts(t *testing.T, x, codes []float64, k int, mb float64) (cuts, stats []float64) {
	var u []float64
	for _, v := range x {
		if !math.IsNaN(v) {
			u = append(u, v)
		}
	}
	slices.Sort(u)
	w := float64(len(u))
	for _, c := range slices.Compact(u) {
		ind := make([]float64, len(x))
		sl := 0.0
		for i, v := range x {
			ind[i] = math.NaN()
			if !math.IsNaN(v) {
				ind[i] = indicator(v <= c)
				sl += ind[i]
			}
		}
		if sl < mb || w-sl < mb {
			continue
		}
		d, V := libcoinClassMoments(ind, codes, k, allRows(len(x)))
		s, _ := mpQuad(t, d, V)
		cuts, stats = append(cuts, c), append(stats, s)
	}
	return cuts, stats
}

// TestChisq checks the χ² tails for 2 to 7 degrees of freedom against
// R's pchisq (digits = 17), down to 1e-152; R's subnormal tails are only
// required to be tiny.
func TestChisq(t *testing.T) {
	for _, c := range []struct {
		c         float64
		df        int
		up, logLo float64
	}{
		{0.5, 2, 0.77880078307140488, -1.508691549446032},
		{3, 2, 0.22313016014842982, -0.25248245892545396},
		{40, 2, 2.0611536224385579e-09, -2.0611536245627349e-09},
		{700, 2, 9.9295903962649796e-153, -9.9295903962649796e-153},
		{0.5, 3, 0.91889141165467592, -2.5119664252515093},
		{3, 3, 0.39162517627108911, -0.49696410056940976},
		{40, 3, 1.0655090334255863e-08, -1.0655090391021361e-08},
		{700, 3, 2.0991308534204087e-151, -2.0991308534204542e-151},
		{0.5, 4, 0.97350097883925613, -3.6306474840025786},
		{3, 4, 0.55782540037107464, -0.81605045312010449},
		{40, 4, 4.3284226071209721e-08, -4.3284227007971833e-08},
		{700, 4, 3.4852862290890082e-150, -3.485286229089056e-150},
		{0.5, 7, 0.99944648139042513, -7.4992151847456645},
		{3, 7, 0.88500223164315062, -2.1628425563997919},
		{40, 7, 1.2587903873713086e-06, -1.2587911796485935e-06},
		{700, 7, 6.896512574090327e-147, -6.896512574090586e-147},
		{1500, 7, 8.8442691262041544e-320, -8.8442691262041544e-320},
	} {
		up, lo := chisq(c.c, c.df)
		if c.up < 1e-300 {
			if !(up < 1e-300 && lo <= 0 && lo > -1e-300) {
				t.Errorf("χ²(%d) at %v: %v, %v; want subnormal tails", c.df, c.c, up, lo)
			}
			continue
		}
		if !relClose(up, c.up, 1e-12) || !relClose(lo, c.logLo, 1e-12) {
			t.Errorf("χ²(%d) at %v: upper %v log lower %v; R %v %v", c.df, c.c, up, lo, c.up, c.logLo)
		}
	}
	if up, lo := chisq(0, 3); up != 1 || !math.IsInf(lo, -1) {
		t.Errorf("χ²(3) at 0: %v, %v; want 1, −Inf", up, lo)
	}
}

// TestFitClassBadInput: invalid classes, data and controls yield errors
// wrapping the package's sentinels, never a panic or a model.
func TestFitClassBadInput(t *testing.T) {
	X, y := classData(60, 3, 3, rng0())
	with := func(i int, v float64) []float64 { c := slices.Clone(y); c[i] = v; return c }
	bad := PaperDefaults()
	bad.MinBucket = 0
	cases := []struct {
		name string
		y    []float64
		k    int
		p    Params
		rng  *rand.Rand
		want error
	}{
		{"k = 1", y, 1, PaperDefaults(), rng0(), learnerr.ErrInput},
		{"k = 0", y, 0, PaperDefaults(), rng0(), learnerr.ErrInput},
		{"k = -3", y, -3, PaperDefaults(), rng0(), learnerr.ErrInput},
		{"code = k", with(5, 3), 3, PaperDefaults(), rng0(), learnerr.ErrInput},
		{"code -1", with(5, -1), 3, PaperDefaults(), rng0(), learnerr.ErrInput},
		{"code 0.5", with(5, 0.5), 3, PaperDefaults(), rng0(), learnerr.ErrInput},
		{"code NaN", with(5, math.NaN()), 3, PaperDefaults(), rng0(), learnerr.ErrInput},
		{"code Inf", with(5, math.Inf(1)), 3, PaperDefaults(), rng0(), learnerr.ErrInput},
		{"short y", y[:10], 3, PaperDefaults(), rng0(), learnerr.ErrInput},
		{"nil rng", y, 3, PaperDefaults(), nil, learnerr.ErrInput},
		{"MinBucket 0", y, 3, bad, rng0(), learnerr.ErrSetting},
	}
	for _, tc := range cases {
		m, err := FitClass(context.Background(), X, tc.y, tc.k, tc.p, tc.rng)
		if !errors.Is(err, tc.want) || m != nil {
			t.Errorf("%s: model %v, error %v; want %v", tc.name, m != nil, err, tc.want)
		}
	}
	inf := mat.DenseCopyOf(X)
	inf.Set(2, 1, math.Inf(-1))
	if _, err := FitClass(context.Background(), inf, y, 3, PaperDefaults(), rng0()); !errors.Is(err, learnerr.ErrInput) {
		t.Errorf("Inf in X: %v, want ErrInput", err)
	}
	m, err := FitClass(context.Background(), X, y, 3, PaperDefaults(), rng0())
	if err != nil {
		t.Fatal(err)
	}
	for _, Xt := range []*mat.Dense{nil, mat.NewDense(2, 2, nil), inf} {
		if _, err := m.PredictProba(context.Background(), Xt); !errors.Is(err, learnerr.ErrInput) {
			t.Errorf("PredictProba(%v): %v, want ErrInput", Xt, err)
		}
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := FitClass(cancelled, X, y, 3, PaperDefaults(), rng0()); !errors.Is(err, context.Canceled) {
		t.Errorf("FitClass(cancelled): %v", err)
	}
}

// TestFitClassTwoClassesPresent: with k = 3 but only codes 0 and 2 in y,
// partykit's factor has two levels left and its influence function is
// the single column 1{y = 2}: the tree is Fit's on that indicator, node
// for node, and class 1 gets probability 0.
func TestFitClassTwoClassesPresent(t *testing.T) {
	X, y := classData(300, 3, 3, rng0()) // codes 0 and 1
	y2, ind := slices.Clone(y), slices.Clone(y)
	for i := range y2 {
		y2[i] *= 2
	}
	p := PartykitDefaults()
	p.Missing = Majority
	m, err := FitClass(context.Background(), X, y2, 3, p, rng0())
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Fit(context.Background(), X, ind, p, rng0())
	if err != nil {
		t.Fatal(err)
	}
	got, want := m.Nodes(), tr.Nodes()
	if len(got) != len(want) || len(got) < 3 {
		t.Fatalf("%d nodes, Fit on the indicator %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Feature != w.Feature || g.Threshold != w.Threshold || g.N != w.N || g.Prob[1] != 0 ||
			!relClose(g.Prob[2], w.Value, 1e-15) {
			t.Errorf("node %d: %+v, Fit on the indicator %+v", i, g, w)
		}
	}
}

// TestFitClassRandom: under Missing = Random (partykit's default,
// majority = FALSE) the fit draws from rng, predictions are reproducible
// for the same X, and every row's probabilities are a leaf's class shares.
func TestFitClassRandom(t *testing.T) {
	X, y := classData(400, 3, 4, rng0())
	p := PartykitDefaults()
	m, err := FitClass(context.Background(), X, y, 4, p, rand.New(rand.NewPCG(9, 9)))
	if err != nil {
		t.Fatal(err)
	}
	if m.NumLeaves() < 2 || m.NumClasses() != 4 || m.Params() != p {
		t.Fatalf("%d leaves, %d classes, params %+v", m.NumLeaves(), m.NumClasses(), m.Params())
	}
	P1, err := m.PredictProba(context.Background(), X)
	if err != nil {
		t.Fatal(err)
	}
	P2, _ := m.PredictProba(context.Background(), X)
	if !mat.Equal(P1, P2) {
		t.Error("PredictProba differs between two calls on the same X")
	}
	var leaves [][]float64
	for _, nd := range m.Nodes() {
		if nd.Leaf {
			leaves = append(leaves, nd.Prob)
		}
	}
	for i := range P1.RawMatrix().Rows {
		row := P1.RawRowView(i)
		if !slices.ContainsFunc(leaves, func(l []float64) bool { return slices.Equal(l, row) }) {
			t.Fatalf("row %d: %v is no leaf's shares", i, row)
		}
	}
}
