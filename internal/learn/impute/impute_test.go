package impute

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

var nan = math.NaN()

// dense builds a row-major matrix from rows.
func dense(rows ...[]float64) *mat.Dense {
	d := len(rows[0])
	data := make([]float64, 0, len(rows)*d)
	for _, r := range rows {
		data = append(data, r...)
	}
	return mat.NewDense(len(rows), d, data)
}

// same reports element-wise equality with NaN equal to NaN.
func same(a, b *mat.Dense, tol float64) bool {
	ra, ca := a.Dims()
	rb, cb := b.Dims()
	if ra != rb || ca != cb {
		return false
	}
	for i := range ra {
		for j := range ca {
			x, y := a.At(i, j), b.At(i, j)
			if math.IsNaN(x) != math.IsNaN(y) || (!math.IsNaN(x) && math.Abs(x-y) > tol) {
				return false
			}
		}
	}
	return true
}

// train: column 0 observed {1, 3, 8}, columns 1 {2, 4, 10, 20} and
// 2 {5, 5, 5, 6} complete, column 3 never observed.
var train = dense(
	[]float64{1, 2, 5, nan},
	[]float64{nan, 4, 5, nan},
	[]float64{3, 10, 5, nan},
	[]float64{8, 20, 6, nan},
)

// test has other column means and NA in the training-complete columns 1, 2.
var test = dense(
	[]float64{nan, 100, nan, 7},
	[]float64{50, nan, 9, nan},
)

func TestColumnwise(t *testing.T) {
	cases := []struct {
		name  string
		imp   Imputer
		want  []float64 // per-column fill value
		empty []int
	}{
		{"mean", Mean{}, []float64{4, 9, 5.25, 0}, []int{3}},
		{"median", Median{}, []float64{3, 7, 5, 0}, []int{3}},
		{"constant", Constant{Value: -2.5}, []float64{-2.5, -2.5, -2.5, -2.5}, []int{3}},
		// max + 3·(max − min + 1) stays below the 999999 floor here.
		{"oor", OOR{}, []float64{OORFloor, OORFloor, OORFloor, OORFloor}, []int{3}},
		// Scaled rule: max + K·(max − min); an empty column gets K.
		{"oor scaled K=2", OOR{Scaled: true, K: 2}, []float64{8 + 2*7, 20 + 2*18, 6 + 2*1, 2}, []int{3}},
		{"oor scaled K=0", OOR{Scaled: true}, []float64{8, 20, 6, 0}, []int{3}},
		// K is ignored under the paper's rule.
		{"oor paper K=2", OOR{K: 2}, []float64{OORFloor, OORFloor, OORFloor, OORFloor}, []int{3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, err := c.imp.Fit(context.Background(), train)
			if err != nil {
				t.Fatal(err)
			}
			f := tr.(*Fill)
			if !slices.Equal(f.Values, c.want) || !slices.Equal(f.Empty, c.empty) {
				t.Fatalf("values %v empty %v, want %v %v", f.Values, f.Empty, c.want, c.empty)
			}
			w := c.want
			wantTrain := dense(
				[]float64{1, 2, 5, w[3]},
				[]float64{w[0], 4, 5, w[3]},
				[]float64{3, 10, 5, w[3]},
				[]float64{8, 20, 6, w[3]},
			)
			checkTransform(t, tr, train, wantTrain)
			// Test-time values are the training ones, whatever the test holds.
			wantTest := dense([]float64{w[0], 100, w[2], 7}, []float64{50, w[1], 9, w[3]})
			checkTransform(t, tr, test, wantTest)
		})
	}
}

func checkTransform(t *testing.T, tr Transformer, X, want *mat.Dense) {
	t.Helper()
	before := mat.DenseCopyOf(X)
	got, err := tr.Transform(X)
	if err != nil {
		t.Fatal(err)
	}
	if !same(got, want, 0) {
		t.Errorf("Transform =\n%v\nwant\n%v", mat.Formatted(got), mat.Formatted(want))
	}
	if !same(X, before, 0) {
		t.Error("Transform modified its input")
	}
}

func TestOORLargeRange(t *testing.T) {
	// Observed range [-2e6, 3e6]: v = 3e6 + 3·(5e6 + 1) = 18000003.
	X := dense([]float64{-2e6}, []float64{nan}, []float64{3e6})
	tr, err := OOR{}.Fit(context.Background(), X)
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.(*Fill).Values[0]; got != 18000003 {
		t.Fatalf("OOR value %v, want 18000003", got)
	}
}

// TestOORRules checks both OOR conventions in closed form, including
// constant columns: the paper's max(999999, max + 3·(max − min + 1)) and
// the scaled max + K·(max − min), whose range becomes max(1, |max|) when
// max = min.
func TestOORRules(t *testing.T) {
	// Columns: range [-2e6, 3e6]; constant −4; constant 0.5; range [2, 2.5].
	X := dense(
		[]float64{-2e6, -4, 0.5, 2},
		[]float64{nan, -4, nan, 2.5},
		[]float64{3e6, nan, 0.5, nan},
	)
	cases := []struct {
		imp  OOR
		want []float64
	}{
		{OOR{}, []float64{3e6 + 3*(5e6+1), OORFloor, OORFloor, OORFloor}},
		{OOR{Scaled: true, K: 0.5}, []float64{3e6 + 0.5*5e6, -4 + 0.5*4, 0.5 + 0.5*1, 2.5 + 0.5*0.5}},
		{OOR{Scaled: true, K: 3}, []float64{3e6 + 3*5e6, -4 + 3*4, 0.5 + 3*1, 2.5 + 3*0.5}},
	}
	for _, c := range cases {
		tr, err := c.imp.Fit(context.Background(), X)
		if err != nil {
			t.Fatal(err)
		}
		if got := tr.(*Fill).Values; !slices.Equal(got, c.want) {
			t.Errorf("%+v: values %v, want %v", c.imp, got, c.want)
		}
	}
	for _, k := range []float64{-1, nan, math.Inf(1)} {
		if _, err := (OOR{Scaled: true, K: k}).Fit(context.Background(), X); !errors.Is(err, learnerr.ErrSetting) {
			t.Errorf("K = %v: %v, want learnerr.ErrSetting", k, err)
		}
	}
}

func TestMedianEvenOdd(t *testing.T) {
	X := dense([]float64{4, 1}, []float64{nan, 3}, []float64{1, 2}, []float64{2, 100}, []float64{10, nan})
	tr, err := Median{}.Fit(context.Background(), X)
	if err != nil {
		t.Fatal(err)
	}
	// Column 0 observed {4, 1, 2, 10}: (2+4)/2; column 1 {1, 3, 2, 100}: (2+3)/2.
	if got := tr.(*Fill).Values; !slices.Equal(got, []float64{3, 2.5}) {
		t.Fatalf("medians %v, want [3 2.5]", got)
	}
}

func TestMask(t *testing.T) {
	m, err := FitMask(context.Background(), train)
	if err != nil {
		t.Fatal(err)
	}
	// Columns 0 and 3 had NA in training; columns 1 and 2 did not.
	if !slices.Equal(m.Cols, []int{0, 3}) {
		t.Fatalf("mask columns %v, want [0 3]", m.Cols)
	}
	// The test NA in columns 1 and 2 get no indicator.
	want := dense(
		[]float64{nan, 100, nan, 7, 1, 0},
		[]float64{50, nan, 9, nan, 0, 1},
	)
	checkTransform(t, m, test, want)
}

func TestMaskAllColumnsIncomplete(t *testing.T) {
	// The paper's code dropped every indicator in this case.
	X := dense([]float64{nan, 1}, []float64{2, nan})
	m, err := FitMask(context.Background(), X)
	if err != nil {
		t.Fatal(err)
	}
	checkTransform(t, m, X, dense([]float64{nan, 1, 1, 0}, []float64{2, nan, 0, 1}))
}

func TestMaskComplete(t *testing.T) {
	X := dense([]float64{1, 2})
	m, err := FitMask(context.Background(), X)
	if err != nil {
		t.Fatal(err)
	}
	ind, err := m.Indicators(X)
	if err != nil || ind != nil {
		t.Fatalf("Indicators = %v, %v; want nil, nil", ind, err)
	}
	checkTransform(t, m, X, X)
}

func TestMIAInf(t *testing.T) {
	X := dense(
		[]float64{1, 10, nan},
		[]float64{nan, 20, 3},
		[]float64{4, 30, nan},
	)
	tr, err := MIAInf{}.Fit(context.Background(), X)
	if err != nil {
		t.Fatal(err)
	}
	f := tr.(*MIAFit)
	// Column 0: range [1, 4] → low min(−999999, 1 − 3·4), high max(999999, 4 + 12).
	// Column 2: only 3 observed → range 0; column 2 never observed in test below.
	if !slices.Equal(f.Cols, []int{0, 2}) {
		t.Fatalf("Cols %v, want [0 2]", f.Cols)
	}
	lo, hi := -OORFloor, OORFloor
	checkTransform(t, tr, X, dense(
		[]float64{1, 10, lo, 1, hi},
		[]float64{lo, 20, 3, hi, 3},
		[]float64{4, 30, lo, 4, hi},
	))
	// A test NA in the training-complete column 1 goes low (left).
	checkTransform(t, tr, dense([]float64{nan, nan, 7}), dense([]float64{lo, lo, 7, hi, 7}))
	if f.Features() != 5 {
		t.Errorf("Features() = %d, want 5", f.Features())
	}
	// Large-valued data push the values beyond the floor, symmetrically.
	big := dense([]float64{-1e6}, []float64{nan}, []float64{2e6})
	tr, err = MIAInf{}.Fit(context.Background(), big)
	if err != nil {
		t.Fatal(err)
	}
	g := tr.(*MIAFit)
	if g.Low[0] != -1e6-3*(3e6+1) || g.High[0] != 2e6+3*(3e6+1) {
		t.Errorf("low/high %v %v", g.Low[0], g.High[0])
	}
}

func TestErrors(t *testing.T) {
	ctx := context.Background()
	imps := map[string]Imputer{"mean": Mean{}, "median": Median{}, "constant": Constant{},
		"oor": OOR{}, "gaussian": NewGaussian(), "mask": Mask{}, "mia-inf": MIAInf{}}
	for name, imp := range imps {
		if _, err := imp.Fit(ctx, nil); !errors.Is(err, learnerr.ErrInput) {
			t.Errorf("%s: Fit(nil) error %v, want learnerr.ErrInput", name, err)
		}
		if _, err := imp.Fit(ctx, &mat.Dense{}); !errors.Is(err, learnerr.ErrInput) {
			t.Errorf("%s: Fit(empty) error %v, want learnerr.ErrInput", name, err)
		}
		tr, err := imp.Fit(ctx, dense([]float64{1, nan}, []float64{2, 3}, []float64{0, 5}))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := tr.Transform(dense([]float64{1, 2, 3})); !errors.Is(err, learnerr.ErrInput) {
			t.Errorf("%s: Transform(3 columns) error %v, want learnerr.ErrInput", name, err)
		}
		if _, err := tr.Transform(nil); !errors.Is(err, learnerr.ErrInput) {
			t.Errorf("%s: Transform(nil) error %v, want learnerr.ErrInput", name, err)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := NewGaussian().Fit(cancelled, train); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Fit error %v", err)
	}
	if _, err := (Gaussian{Shrink: 2}).Fit(ctx, train); !errors.Is(err, learnerr.ErrSetting) {
		t.Error("shrink 2 accepted")
	}
}
