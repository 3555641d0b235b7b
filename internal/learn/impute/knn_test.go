package impute

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// TestKNNGolden compares KNN with scikit-learn 1.2.1's KNNImputer()
// (testdata/make_knn_golden.py) on every fixture set, training rows
// (fit_transform) and test rows (transform), to 1e-12 relative, with 1
// and 3 goroutines.
func TestKNNGolden(t *testing.T) {
	var golden struct {
		Sets []struct {
			Name string
			K    int
		}
	}
	raw, err := os.ReadFile("testdata/knn_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &golden); err != nil {
		t.Fatal(err)
	}
	if len(golden.Sets) == 0 {
		t.Fatal("no fixture sets")
	}
	for _, s := range golden.Sets {
		t.Run(s.Name, func(t *testing.T) {
			g := readGoldenSet(t, csvName("knn", s.Name))
			for _, threads := range []int{1, 3} {
				k := s.K
				if k == DefaultKNNK {
					k = 0 // the zero value's default
				}
				tr, err := KNN{K: k, Threads: threads}.Fit(context.Background(), g.train)
				if err != nil {
					t.Fatal(err)
				}
				gotTr, err := tr.Transform(g.train)
				if err != nil {
					t.Fatal(err)
				}
				gotTe, err := tr.Transform(g.test)
				if err != nil {
					t.Fatal(err)
				}
				e1 := checkImputed(t, "train", g.train, gotTr, g.wantTr, 1e-12)
				e2 := checkImputed(t, "test", g.test, gotTe, g.wantTe, 1e-12)
				if threads == 1 {
					t.Logf("%d×%d, k = %d: largest relative error train %.2g, test %.2g", g.nTrain, g.d, s.K, e1, e2)
				}
			}
		})
	}
}

// TestKNNTies: donors at equal distances, defined or not, are taken by
// training row; donors at an undefined distance complete the k; with no
// donor at a defined distance the column mean is imputed.
func TestKNNTies(t *testing.T) {
	nan := math.NaN()
	train := mat.NewDense(6, 2, []float64{
		0, 10, // row 0: distance 1 from x1 = 1
		2, 20, // row 1: distance 1 too, tied with row 0
		nan, 30, // row 2: undefined distance
		nan, 40, // row 3: undefined distance
		5, 50, // row 4: distance 4
		nan, nan,
	})
	cases := []struct {
		k    int
		row  []float64
		want float64
	}{
		{1, []float64{1, nan}, 10},                             // tie: row 0 before row 1
		{2, []float64{1, nan}, 15},                             // rows 0, 1
		{3, []float64{1, nan}, (10 + 20 + 50) / 3.0},           // then row 4
		{4, []float64{1, nan}, (10 + 20 + 50 + 30) / 4.0},      // then undefined: row 2 first
		{6, []float64{1, nan}, (10 + 20 + 50 + 30 + 40) / 5.0}, // every donor
		{2, []float64{nan, nan}, 30},                           // no defined distance: mean
	}
	for _, c := range cases {
		tr, err := KNN{K: c.k}.Fit(context.Background(), train)
		if err != nil {
			t.Fatal(err)
		}
		out, err := tr.Transform(mat.NewDense(1, 2, c.row))
		if err != nil {
			t.Fatal(err)
		}
		if got := out.At(0, 1); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("k = %d, row %v: x2 = %v, want %v", c.k, c.row, got, c.want)
		}
	}
}

// TestKNNDistanceWeight: the squared distance is scaled by d/c, so a
// donor sharing one coordinate at squared distance 1 (scaled 3/1·1 = 3)
// ranks after one sharing two at 1.5 (scaled 3/2·1.5 = 2.25).
func TestKNNDistanceWeight(t *testing.T) {
	nan := math.NaN()
	train := mat.NewDense(2, 3, []float64{
		1, nan, 100,
		0.5, 3, 200,
	})
	tr, err := KNN{K: 1}.Fit(context.Background(), train)
	if err != nil {
		t.Fatal(err)
	}
	out, err := tr.Transform(mat.NewDense(1, 3, []float64{0, 3 - math.Sqrt(1.25), nan}))
	if err != nil {
		t.Fatal(err)
	}
	if got := out.At(0, 2); got != 200 {
		t.Errorf("x3 = %v, want 200 (the donor sharing two coordinates)", got)
	}
}

// TestKNNEmptyColumn: a column with no observed training entry is imputed
// with 0 and listed in Empty.
func TestKNNEmptyColumn(t *testing.T) {
	nan := math.NaN()
	X := mat.NewDense(3, 2, []float64{1, nan, 2, nan, nan, nan})
	tr, err := KNN{}.Fit(context.Background(), X)
	if err != nil {
		t.Fatal(err)
	}
	out, err := tr.Transform(X)
	if err != nil {
		t.Fatal(err)
	}
	want := mat.NewDense(3, 2, []float64{1, 0, 2, 0, 1.5, 0})
	if !mat.Equal(out, want) {
		t.Errorf("got %v, want %v", mat.Formatted(out), mat.Formatted(want))
	}
	if e := tr.(*KNNFit).Empty; len(e) != 1 || e[0] != 1 {
		t.Errorf("Empty = %v, want [1]", e)
	}
}

// TestKNNBadInput: empty matrices, wrong widths and a cancelled context
// are errors of the documented kinds; X is never modified.
func TestKNNBadInput(t *testing.T) {
	ctx := context.Background()
	if _, err := (KNN{}).Fit(ctx, nil); !errors.Is(err, learnerr.ErrInput) {
		t.Errorf("nil X: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	X := mat.NewDense(2, 2, []float64{1, math.NaN(), 2, 3})
	if _, err := (KNN{}).Fit(cancelled, X); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	tr, err := KNN{}.Fit(ctx, X)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Transform(mat.NewDense(1, 3, nil)); !errors.Is(err, learnerr.ErrInput) {
		t.Errorf("3 columns: %v", err)
	}
	if _, err := tr.Transform(X); err != nil || !math.IsNaN(X.At(0, 1)) {
		t.Errorf("Transform modified X or failed: %v", err)
	}
}
