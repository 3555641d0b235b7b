package knn_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/knn"
	"github.com/misslab/misslab/internal/learn/learnerr"
)

// fitProba fits a Classifier with k neighbours on (X, y) with nclass
// classes, forces the screening mode (−1: the one Fit chose) and returns
// the class probabilities of Q.
func fitProba(t *testing.T, k int, X *mat.Dense, y []float64, nclass int, Q *mat.Dense, screen int) *mat.Dense {
	t.Helper()
	c, err := knn.NewClassifier(k)
	if err != nil {
		t.Fatal(err)
	}
	m, err := c.FitClass(context.Background(), X, y, nclass, rng)
	if err != nil {
		t.Fatal(err)
	}
	if screen >= 0 && !knn.SetClassScreening(m, screen) {
		t.Fatalf("model cannot use screening mode %d", screen)
	}
	P, err := m.PredictProba(context.Background(), Q)
	if err != nil {
		t.Fatal(err)
	}
	return P
}

// knn3Ks returns the neighbour counts and the number of classes of a
// knn3 fixture, read from its prob_k<K>_c<c> header.
func knn3Ks(tb table) (ks []int, nclass int) {
	seen := map[int]bool{}
	for _, h := range tb.header {
		rest, ok := strings.CutPrefix(h, "prob_k")
		if !ok {
			continue
		}
		kstr, cs, _ := strings.Cut(rest, "_c")
		k, _ := strconv.Atoi(kstr)
		c, _ := strconv.Atoi(cs)
		nclass = max(nclass, c+1)
		if !seen[k] {
			seen[k] = true
			ks = append(ks, k)
		}
	}
	return ks, nclass
}

// TestGoldenKnn3 compares every class probability with caret::knn3's,
// bit for bit (fixtures from testdata/make_golden_knn3.R: 3 and 4
// classes, integer grids full of exact ties, near ties within knn3's
// 1e-4, ~1000 mean-imputed rows, blocks of identical rows), with each
// screening filter and without screening.
func TestGoldenKnn3(t *testing.T) {
	cases := []string{"gauss3_p4", "grid2", "grid4", "near3", "meanimp4_p9", "prop1_bin"}
	for _, name := range cases {
		train := readTable(t, "knn3_"+name+"_train.csv")
		test := readTable(t, "knn3_"+name+"_test.csv")
		X, y, Q := train.cols("x"), train.col("y"), test.cols("x")
		ks, nclass := knn3Ks(test)
		if len(ks) == 0 || nclass < 2 {
			t.Fatalf("%s: no probability columns", name)
		}
		for _, k := range ks {
			for _, screen := range []int{knn.Screen32, knn.Screen64, knn.ScreenNone} {
				t.Run(fmt.Sprintf("%s/k=%d/screen=%d", name, k, screen), func(t *testing.T) {
					P := fitProba(t, k, X, y, nclass, Q, screen)
					bad := 0
					for c := range nclass {
						want := test.col(fmt.Sprintf("prob_k%d_c%d", k, c))
						for i, w := range want {
							if g := P.At(i, c); g != w {
								if bad++; bad <= 5 {
									t.Errorf("row %d class %d: got %.17g, knn3 %.17g", i, c, g, w)
								}
							}
						}
					}
					if bad > 0 {
						t.Errorf("%d probabilities differ from knn3", bad)
					}
				})
			}
		}
	}
}

// TestVoteRule checks hand-computed class proportions on one-dimensional
// data: plain majority, exact and near ties beyond the k-th (which knn3
// lets vote, so the denominator exceeds k), and a class absent from the
// training rows.
func TestVoteRule(t *testing.T) {
	cases := []struct {
		name   string
		k      int
		x, y   []float64
		nclass int
		q      float64
		want   []float64
	}{
		{"nearest", 1, []float64{0, 1, 2, 3}, []float64{0, 1, 2, 0}, 3, 2.2, []float64{0, 0, 1}},
		{"three nearest", 3, []float64{0, 1, 2, 3}, []float64{0, 1, 1, 0}, 2, 1.4, []float64{1.0 / 3, 2.0 / 3}},
		{"exact tie votes", 1, []float64{0, 1, 2}, []float64{0, 1, 1}, 2, 0.5, []float64{0.5, 0.5}},
		{"tie beyond k votes", 2, []float64{-1, 0, 1, 5}, []float64{0, 1, 2, 2}, 3, 0, []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}},
		{"near tie within 1e-4 votes", 2, []float64{0.5, 1, -1.00001}, []float64{0, 1, 1}, 2, 0, []float64{1.0 / 3, 2.0 / 3}},
		{"squared distances 2e-4 apart", 2, []float64{0.5, 1, -1.0001}, []float64{0, 1, 1}, 2, 0, []float64{0.5, 0.5}},
		{"absent class gets 0", 2, []float64{0, 1, 2}, []float64{0, 3, 3}, 4, 1.9, []float64{0, 0, 0, 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			X := mat.NewDense(len(c.x), 1, c.x)
			P := fitProba(t, c.k, X, c.y, c.nclass, mat.NewDense(1, 1, []float64{c.q}), -1)
			for j, w := range c.want {
				if g := P.At(0, j); math.Abs(g-w) > 1e-15 {
					t.Errorf("class %d: got %v, want %v", j, g, w)
				}
			}
		})
	}
}

// TestProbaIsIndicatorMean checks, on the tie-heavy grid fixture, that
// the probability of each class equals bit for bit the knnreg prediction
// of that class's 0/1 indicator: the two share the neighbour search.
func TestProbaIsIndicatorMean(t *testing.T) {
	train := readTable(t, "knn3_grid4_train.csv")
	test := readTable(t, "knn3_grid4_test.csv")
	X, y, Q := train.cols("x"), train.col("y"), test.cols("x")
	for _, k := range []int{1, 3, 7} {
		P := fitProba(t, k, X, y, 4, Q, -1)
		for c := range 4 {
			ind := make([]float64, len(y))
			for i, v := range y {
				if v == float64(c) {
					ind[i] = 1
				}
			}
			want := fitPredict(t, k, X, ind, Q)
			for i, w := range want {
				if P.At(i, c) != w {
					t.Fatalf("k=%d row %d class %d: proba %v, knnreg of the indicator %v", k, i, c, P.At(i, c), w)
				}
			}
		}
	}
}

func TestClassifierErrors(t *testing.T) {
	X := mat.NewDense(6, 1, []float64{0, 1, 2, 3, 4, 5})
	y := []float64{0, 1, 0, 1, 0, 1}
	nan := mat.DenseCopyOf(X)
	nan.Set(2, 0, math.NaN())
	cases := []struct {
		name   string
		k      int
		X      *mat.Dense
		y      []float64
		nclass int
		want   error
	}{
		{"k = 0", 0, X, y, 2, learnerr.ErrSetting},
		{"one class", 1, X, y, 1, learnerr.ErrInput},
		{"code ≥ k", 1, X, []float64{0, 1, 2, 1, 0, 1}, 2, learnerr.ErrInput},
		{"negative code", 1, X, []float64{0, 1, -1, 1, 0, 1}, 2, learnerr.ErrInput},
		{"fractional code", 1, X, []float64{0, 1, 0.5, 1, 0, 1}, 2, learnerr.ErrInput},
		{"NaN code", 1, X, []float64{0, 1, math.NaN(), 1, 0, 1}, 2, learnerr.ErrInput},
		{"short y", 1, X, y[:5], 2, learnerr.ErrInput},
		{"NaN in X", 1, nan, y, 2, learnerr.ErrInput},
		{"fewer rows than k", 7, X, y, 2, learnerr.ErrInput},
	}
	for _, c := range cases {
		if _, err := (knn.Classifier{K: c.k}).FitClass(context.Background(), c.X, c.y, c.nclass, rng); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := knn.NewClassifier(0); !errors.Is(err, learnerr.ErrSetting) {
		t.Errorf("NewClassifier(0): %v", err)
	}
	m, err := knn.Classifier{K: 3}.FitClass(context.Background(), X, y, 2, rng)
	if err != nil {
		t.Fatal(err)
	}
	for _, Q := range []*mat.Dense{mat.NewDense(1, 2, nil), nan} {
		if _, err := m.PredictProba(context.Background(), Q); !errors.Is(err, learnerr.ErrInput) {
			t.Errorf("PredictProba on bad X: %v", err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.PredictProba(ctx, X); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled PredictProba: %v", err)
	}
	if m.K() != 3 || m.Classes() != 2 {
		t.Errorf("K() = %d, Classes() = %d", m.K(), m.Classes())
	}
}
