package knn_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/knn"
	"github.com/misslab/misslab/internal/learn/learnerr"
)

var rng = rand.New(rand.NewPCG(1, 2))

func fitPredict(t *testing.T, k int, X *mat.Dense, y []float64, Q *mat.Dense) []float64 {
	t.Helper()
	return fitPredictScreen(t, k, X, y, Q, -1)
}

// fitPredictScreen is fitPredict with the screening mode forced (−1: the
// one Fit chose).
func fitPredictScreen(t *testing.T, k int, X *mat.Dense, y []float64, Q *mat.Dense, screen int) []float64 {
	t.Helper()
	r, err := knn.New(k)
	if err != nil {
		t.Fatal(err)
	}
	m, err := r.Fit(context.Background(), X, y, rng)
	if err != nil {
		t.Fatal(err)
	}
	if screen >= 0 && !knn.SetScreening(m, screen) {
		t.Fatalf("model cannot use screening mode %d", screen)
	}
	got, err := m.Predict(context.Background(), Q)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestGoldenCaret compares every prediction with caret::knnreg's, bit for
// bit (fixtures from testdata/make_golden.R), with each screening filter
// (float32, float64) and without screening.
func TestGoldenCaret(t *testing.T) {
	cases := []string{"gauss_p4", "meanimp_p12", "grid_ties", "near_ties", "prop1_p1", "oor_p3"}
	for _, name := range cases {
		train := readTable(t, name+"_train.csv")
		test := readTable(t, name+"_test.csv")
		X, y, Q := train.cols("x"), train.col("y"), test.cols("x")
		for _, h := range test.header {
			ks, ok := strings.CutPrefix(h, "pred_k")
			if !ok {
				continue
			}
			k, _ := strconv.Atoi(ks)
			for _, screen := range []int{knn.Screen32, knn.Screen64, knn.ScreenNone} {
				t.Run(name+"/k="+ks+"/screen="+strconv.Itoa(screen), func(t *testing.T) {
					want := test.col(h)
					got := fitPredictScreen(t, k, X, y, Q, screen)
					bad := 0
					for i := range want {
						if got[i] != want[i] {
							if bad++; bad <= 5 {
								t.Errorf("row %d: got %.17g, caret %.17g", i, got[i], want[i])
							}
						}
					}
					if bad > 0 {
						t.Errorf("%d of %d predictions differ from caret", bad, len(want))
					}
				})
			}
		}
	}
}

// TestNeighbourRule checks hand-computed predictions on one-dimensional
// data: plain nearest neighbours, caret's averaging of exact ties and of
// near ties (relative 1e-4 on squared distances), and the scan-order
// dependence of caret's bounded tie buffer.
func TestNeighbourRule(t *testing.T) {
	s3, s5, s3p := math.Sqrt(3), math.Sqrt(5), math.Sqrt(3.0001)
	cases := []struct {
		name string
		k    int
		x, y []float64
		q    float64
		want float64
	}{
		{"nearest", 1, []float64{0, 1, 2, 3}, []float64{10, 20, 30, 40}, 2.2, 30},
		{"two nearest", 2, []float64{0, 1, 2, 3}, []float64{10, 20, 30, 40}, 2.2, 35},
		{"k = n", 4, []float64{0, 1, 2, 3}, []float64{10, 20, 30, 40}, 100, 25},
		{"exact tie averaged", 1, []float64{0, 1, 2}, []float64{10, 20, 30}, 0.5, 15},
		{"tie beyond k averaged", 2, []float64{-1, 0, 1, 5}, []float64{1, 2, 4, 100}, 0, 7.0 / 3},
		{"near tie within 1e-4 averaged", 2, []float64{0.5, 1, -1.00001}, []float64{2, 4, 6}, 0, 4},
		{"squared distances 2e-4 apart", 2, []float64{0.5, 1, -1.0001}, []float64{2, 4, 6}, 0, 3},
		// With k = 1 caret's buffer has no spare slot for a near tie.
		{"near tie, k = 1", 1, []float64{1, -1.00001}, []float64{2, 4}, 0, 2},
		// caret keeps a near tie only while its buffer has room: the
		// earlier exact tie at the then-k-th distance 5 widened it.
		{"buffer widened by earlier tie", 1, []float64{s5, -s5, s3, s3p}, []float64{1, 1, 10, 20}, 0, 15},
		{"same rows, other order", 1, []float64{s3, s5, -s5, s3p}, []float64{10, 1, 1, 20}, 0, 10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			X := mat.NewDense(len(c.x), 1, c.x)
			got := fitPredict(t, c.k, X, c.y, mat.NewDense(1, 1, []float64{c.q}))
			if math.Abs(got[0]-c.want) > 1e-12 {
				t.Errorf("got %v, want %v", got[0], c.want)
			}
		})
	}
}

// TestScreenChoice checks that Fit picks the float32 screen for ordinary
// data, the float64 one when squared norms exceed float32's safe range
// and none beyond float64's, and that each gives the nearest row.
func TestScreenChoice(t *testing.T) {
	cases := []struct {
		name  string
		scale float64
		mode  int
	}{
		{"ordinary", 1, knn.Screen32},
		{"1e16", 1e16, knn.Screen64},
		{"1e151", 1e151, knn.ScreenNone},
	}
	for _, c := range cases {
		X := mat.NewDense(4, 1, []float64{0, c.scale, 3 * c.scale, -c.scale})
		m, err := knn.Regressor{K: 1}.Fit(context.Background(), X, []float64{1, 2, 3, 4}, rng)
		if err != nil {
			t.Fatal(err)
		}
		if got := knn.ScreenMode(m); got != c.mode {
			t.Errorf("%s: screen %d, want %d", c.name, got, c.mode)
		}
		got, err := m.Predict(context.Background(), mat.NewDense(2, 1, []float64{1.2 * c.scale, 2.1 * c.scale}))
		if err != nil || got[0] != 2 || got[1] != 3 {
			t.Errorf("%s: predictions %v (%v), want [2 3]", c.name, got, err)
		}
	}
}

// TestEuclidean checks that distances are Euclidean on unscaled columns:
// a column with a large scale dominates.
func TestEuclidean(t *testing.T) {
	X := mat.NewDense(3, 2, []float64{
		0, 0,
		1, 100,
		3, 0,
	})
	y := []float64{1, 2, 3}
	// To (1, 99): squared distances 9802, 1, 9805 → row 1.
	// To (2.9, 1): 9.41+1, 3.61+9801, 0.01+1 → row 2.
	got := fitPredict(t, 1, X, y, mat.NewDense(2, 2, []float64{1, 99, 2.9, 1}))
	if got[0] != 2 || got[1] != 3 {
		t.Errorf("got %v, want [2 3]", got)
	}
}

func TestErrors(t *testing.T) {
	ctx := context.Background()
	good := mat.NewDense(6, 2, []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})
	y := []float64{1, 2, 3, 4, 5, 6}
	withNaN := mat.DenseCopyOf(good)
	withNaN.Set(2, 1, math.NaN())
	withInf := mat.DenseCopyOf(good)
	withInf.Set(0, 0, math.Inf(-1))
	fitCases := []struct {
		name string
		k    int
		X    *mat.Dense
		y    []float64
		want error
	}{
		{"NaN in X", 5, withNaN, y, learnerr.ErrInput},
		{"Inf in X", 5, withInf, y, learnerr.ErrInput},
		{"Inf in y", 5, good, []float64{1, 2, math.Inf(1), 4, 5, 6}, learnerr.ErrInput},
		{"NaN in y", 5, good, []float64{1, 2, 3, 4, 5, math.NaN()}, learnerr.ErrInput},
		{"short y", 5, good, y[:5], learnerr.ErrInput},
		{"nil X", 5, nil, y, learnerr.ErrInput},
		{"fewer rows than k", 7, good, y, learnerr.ErrInput},
		{"k = 0", 0, good, y, learnerr.ErrSetting},
	}
	for _, c := range fitCases {
		t.Run(c.name, func(t *testing.T) {
			_, err := knn.Regressor{K: c.k}.Fit(ctx, c.X, c.y, rng)
			if !errors.Is(err, c.want) {
				t.Errorf("got %v, want %v", err, c.want)
			}
		})
	}
	m, err := knn.Regressor{K: 5}.Fit(ctx, good, y, rng)
	if err != nil {
		t.Fatal(err)
	}
	huge := mat.NewDense(1, 2, []float64{1e300, -1e300})
	predCases := []struct {
		name string
		X    *mat.Dense
		want error
	}{
		{"three columns", mat.NewDense(1, 3, nil), learnerr.ErrInput},
		{"one column", mat.NewDense(1, 1, nil), learnerr.ErrInput},
		{"NaN", mat.NewDense(1, 2, []float64{0, math.NaN()}), learnerr.ErrInput},
		{"Inf", mat.NewDense(1, 2, []float64{math.Inf(1), 0}), learnerr.ErrInput},
		{"overflowing distances", huge, learnerr.ErrInput},
		{"nil", nil, learnerr.ErrInput},
	}
	for _, c := range predCases {
		t.Run("predict "+c.name, func(t *testing.T) {
			if _, err := m.Predict(ctx, c.X); !errors.Is(err, c.want) {
				t.Errorf("got %v, want %v", err, c.want)
			}
		})
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := m.Predict(cancelled, good); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled predict: got %v", err)
	}
}

func TestFromSettings(t *testing.T) {
	cases := []struct {
		s     map[string]float64
		wantK int
		err   error
	}{
		{nil, 5, nil},
		{map[string]float64{"k": 9}, 9, nil},
		{map[string]float64{"k": 0}, 0, learnerr.ErrSetting},
		{map[string]float64{"k": 2.5}, 0, learnerr.ErrSetting},
		{map[string]float64{"k": 3, "cost": 1}, 0, learnerr.ErrSetting},
	}
	for _, c := range cases {
		r, err := knn.FromSettings(c.s)
		if !errors.Is(err, c.err) || (err == nil && r.K != c.wantK) {
			t.Errorf("%v: got K=%d err=%v, want K=%d err=%v", c.s, r.K, err, c.wantK, c.err)
		}
	}
}

// TestFitCopies checks that the model does not alias the caller's data.
func TestFitCopies(t *testing.T) {
	X := mat.NewDense(3, 1, []float64{0, 1, 2})
	y := []float64{5, 6, 7}
	m, err := knn.Regressor{K: 1}.Fit(context.Background(), X, y, rng)
	if err != nil {
		t.Fatal(err)
	}
	X.Set(0, 0, 100)
	y[1] = -1
	got, err := m.Predict(context.Background(), mat.NewDense(2, 1, []float64{0, 1}))
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != 5 || got[1] != 6 {
		t.Errorf("got %v, want [5 6]", got)
	}
}

// TestStridedInput: a matrix view (row stride larger than its width)
// gives the same predictions as a compact copy.
func TestStridedInput(t *testing.T) {
	X := mat.NewDense(50, 4, nil)
	y := make([]float64, 50)
	for i := range 50 {
		for j := range 4 {
			X.Set(i, j, rng.NormFloat64())
		}
		y[i] = rng.NormFloat64()
	}
	view := X.Slice(0, 50, 1, 3).(*mat.Dense)
	compact := mat.DenseCopyOf(view)
	a := fitPredict(t, 5, view, y, view)
	b := fitPredict(t, 5, compact, y, compact)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("row %d: view %v, copy %v", i, a[i], b[i])
		}
	}
}
