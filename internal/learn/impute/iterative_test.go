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

// TestIterativeGolden compares Iterative with scikit-learn 1.2.1's
// IterativeImputer() (testdata/make_iterative_golden.py) on every
// fixture set: the training imputation (fit_transform), the test
// imputation (transform) and the number of rounds. Tolerance 1e-8
// relative; the largest error seen is logged.
func TestIterativeGolden(t *testing.T) {
	var golden struct {
		Sets []struct {
			Name   string
			Rounds int
		}
	}
	raw, err := os.ReadFile("testdata/iterative_golden.json")
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
			g := readGoldenSet(t, csvName("iterative", s.Name))
			tr, err := Iterative{}.Fit(context.Background(), g.train)
			if err != nil {
				t.Fatal(err)
			}
			fit := tr.(*IterativeFit)
			if fit.Rounds != s.Rounds {
				t.Errorf("rounds = %d, scikit-learn's n_iter_ = %d", fit.Rounds, s.Rounds)
			}
			gotTr, err := tr.Transform(g.train)
			if err != nil {
				t.Fatal(err)
			}
			gotTe, err := tr.Transform(g.test)
			if err != nil {
				t.Fatal(err)
			}
			e1 := checkImputed(t, "train", g.train, gotTr, g.wantTr, 1e-8)
			e2 := checkImputed(t, "test", g.test, gotTe, g.wantTe, 1e-8)
			t.Logf("%d×%d, %d rounds: largest relative error train %.2g, test %.2g", g.nTrain, g.d, fit.Rounds, e1, e2)
		})
	}
}

// TestIterativeEmptyColumn: a column with no observed training entry is
// imputed with 0, is listed in Empty and does not change the others.
func TestIterativeEmptyColumn(t *testing.T) {
	g := readGoldenSet(t, csvName("iterative", "empty"))
	tr, err := Iterative{}.Fit(context.Background(), g.train)
	if err != nil {
		t.Fatal(err)
	}
	fit := tr.(*IterativeFit)
	if len(fit.Empty) != 1 || fit.Empty[0] != 2 || fit.Means[2] != 0 {
		t.Errorf("Empty = %v, Means[2] = %v, want [2] and 0", fit.Empty, fit.Means[2])
	}
	out, err := tr.Transform(g.test)
	if err != nil {
		t.Fatal(err)
	}
	for i := range g.nTest {
		if math.IsNaN(g.test.At(i, 2)) && out.At(i, 2) != 0 {
			t.Errorf("test row %d: empty column imputed %v, want 0", i, out.At(i, 2))
		}
	}
}

// TestIterativeFewColumns: with one non-empty column the result is the
// mean imputation (sklearn's single-feature case), with no round run.
func TestIterativeFewColumns(t *testing.T) {
	nan := math.NaN()
	X := mat.NewDense(4, 2, []float64{1, nan, nan, nan, 3, nan, 8, nan})
	tr, err := Iterative{}.Fit(context.Background(), X)
	if err != nil {
		t.Fatal(err)
	}
	out, err := tr.Transform(X)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1, 0, 4, 0, 3, 0, 8, 0}
	if !mat.Equal(out, mat.NewDense(4, 2, want)) {
		t.Errorf("got %v, want %v", mat.Formatted(out), want)
	}
	if r := tr.(*IterativeFit).Rounds; r != 0 {
		t.Errorf("rounds = %d, want 0", r)
	}
}

// TestIterativeComplete: a training set without NA converges in one round
// and still imputes a test set's NA (the models of complete columns are
// kept).
func TestIterativeComplete(t *testing.T) {
	X := mat.NewDense(6, 2, []float64{1, 2, 2, 4.1, 3, 5.9, 4, 8.2, 5, 9.9, 6, 12})
	tr, err := Iterative{}.Fit(context.Background(), X)
	if err != nil {
		t.Fatal(err)
	}
	if f := tr.(*IterativeFit); f.Rounds != 1 || !f.Converged {
		t.Errorf("rounds %d, converged %v; want 1, true", f.Rounds, f.Converged)
	}
	out, err := tr.Transform(mat.NewDense(1, 2, []float64{math.NaN(), 7}))
	if err != nil {
		t.Fatal(err)
	}
	if v := out.At(0, 0); math.Abs(v-3.5) > 0.2 {
		t.Errorf("x1 given x2 = 7: %v, want about 3.5", v)
	}
}

// TestIterativeBadInput: empty matrices, wrong widths, bad tolerances
// and a cancelled context are errors of the documented kinds.
func TestIterativeBadInput(t *testing.T) {
	ctx := context.Background()
	X := mat.NewDense(3, 2, []float64{1, 2, math.NaN(), 3, 4, 5})
	if _, err := (Iterative{}).Fit(ctx, nil); !errors.Is(err, learnerr.ErrInput) {
		t.Errorf("nil X: %v", err)
	}
	for _, tol := range []float64{-1, math.NaN(), math.Inf(1)} {
		if _, err := (Iterative{Tol: tol}).Fit(ctx, X); !errors.Is(err, learnerr.ErrSetting) {
			t.Errorf("tol %v: %v", tol, err)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := (Iterative{}).Fit(cancelled, X); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	tr, err := Iterative{}.Fit(ctx, X)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Transform(mat.NewDense(2, 3, nil)); !errors.Is(err, learnerr.ErrInput) {
		t.Errorf("3 columns: %v", err)
	}
	if _, err := tr.Transform(nil); !errors.Is(err, learnerr.ErrInput) {
		t.Errorf("nil: %v", err)
	}
}
