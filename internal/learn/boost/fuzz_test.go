package boost

import (
	"context"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// fuzzValue decodes two bytes into a feature or target value: mostly
// small numbers with ties, sometimes NaN, ±Inf, ±0 or a value beyond
// float32 range.
func fuzzValue(a, b byte) float64 {
	switch a {
	case 0xff:
		return math.NaN()
	case 0xfe:
		return math.Inf(1)
	case 0xfd:
		return math.Inf(-1)
	case 0xfc:
		return 1e39
	case 0xfb:
		return math.Copysign(0, -1)
	}
	return float64(int16(uint16(a)<<8|uint16(b))) / 256
}

// FuzzFit feeds arbitrary small data sets and parameters to Fit and
// Predict: they must return a model or an error wrapping
// learnerr.ErrInput or learnerr.ErrSetting, never panic; a fitted model
// must predict finite values for its own training rows (all inputs are
// below 128 in magnitude) and fit deterministically.
func FuzzFit(f *testing.F) {
	f.Add([]byte{2, 3, 4, 1, 1, 0, 1, 0, 2, 0, 0xff, 0, 3, 0, 1, 0, 0xff, 0, 5, 0, 2, 0, 1, 0, 7, 0})
	f.Add([]byte{1, 1, 1, 0, 0, 0, 0xff, 0, 0xff, 0, 1, 0, 2, 0})
	f.Add([]byte{3, 6, 2, 2, 2, 1, 0xfe, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 6 {
			return
		}
		d := 1 + int(data[0])%4
		p := DefaultParams()
		p.MaxDepth = 1 + int(data[1])%4
		p.Rounds = int(data[2]) % 5
		p.MinChildWeight = float64(data[3] % 4)
		p.Lambda = float64(data[4]%3) / 2
		p.Alpha = float64(data[5]%3) / 4
		vals := data[6:]
		n := len(vals) / (2 * (d + 1))
		if n == 0 {
			return
		}
		X := mat.NewDense(n, d, nil)
		y := make([]float64, n)
		for i := range n {
			row := vals[2*i*(d+1):]
			for j := range d {
				X.Set(i, j, fuzzValue(row[2*j], row[2*j+1]))
			}
			y[i] = fuzzValue(row[2*d], row[2*d+1])
		}
		m, err := Fit(context.Background(), X, y, p, newRNG(1))
		if err != nil {
			if !errors.Is(err, learnerr.ErrInput) && !errors.Is(err, learnerr.ErrSetting) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		pred, err := m.Predict(context.Background(), X)
		if err != nil {
			t.Fatalf("predicting the training rows: %v", err)
		}
		m2, err := Fit(context.Background(), X, y, p, newRNG(2))
		if err != nil {
			t.Fatal(err)
		}
		pred2, _ := m2.Predict(context.Background(), X)
		for i, v := range pred {
			if math.IsNaN(v) || math.IsInf(v, 0) || v != pred2[i] {
				t.Fatalf("row %d: prediction %v, refit %v", i, v, pred2[i])
			}
		}
	})
}

// FuzzFitClass is FuzzFit for FitClass with two to four classes (labels
// drawn from 0..k, so sometimes invalid): it must return a model or an
// error wrapping learnerr.ErrInput or learnerr.ErrSetting, never panic;
// a fitted model must give its training rows probabilities in [0, 1]
// summing to 1 within float32 rounding, and fit deterministically.
func FuzzFitClass(f *testing.F) {
	f.Add([]byte{2, 3, 4, 1, 1, 0, 1, 0, 2, 0, 0xff, 0, 3, 0, 1, 0, 0xff, 0, 5, 0, 2, 0, 1, 0, 7, 0})
	f.Add([]byte{1, 1, 1, 0, 0, 1, 0xff, 0, 0xff, 1, 1, 0, 2, 0})
	f.Add([]byte{3, 6, 2, 2, 2, 2, 1, 1, 1, 0, 2, 0, 3, 0, 4, 1, 5, 0, 6, 2, 7, 0, 9, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 6 {
			return
		}
		d, k := 1+int(data[0])%4, 2+int(data[5])%3
		p := DefaultParams()
		p.MaxDepth = 1 + int(data[1])%4
		p.Rounds = int(data[2]) % 5
		p.MinChildWeight = float64(data[3]%4) / 4
		p.Lambda = float64(data[4]%3) / 2
		p.Alpha = float64(data[4]/3%3) / 4
		vals := data[6:]
		n := len(vals) / (2*d + 1)
		if n == 0 {
			return
		}
		X := mat.NewDense(n, d, nil)
		y := make([]float64, n)
		for i := range n {
			row := vals[i*(2*d+1):]
			for j := range d {
				X.Set(i, j, fuzzValue(row[2*j], row[2*j+1]))
			}
			y[i] = float64(int(row[2*d]) % (k + 1))
		}
		m, err := FitClass(context.Background(), X, y, k, p, newRNG(1))
		if err != nil {
			if !errors.Is(err, learnerr.ErrInput) && !errors.Is(err, learnerr.ErrSetting) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		P, err := m.PredictProba(context.Background(), X)
		if err != nil {
			t.Fatalf("predicting the training rows: %v", err)
		}
		m2, err := FitClass(context.Background(), X, y, k, p, newRNG(2))
		if err != nil {
			t.Fatal(err)
		}
		P2, _ := m2.PredictProba(context.Background(), X)
		for i := range n {
			sum := 0.0
			for c, v := range P.RawRowView(i) {
				sum += v
				if !(v >= 0 && v <= 1) || v != P2.At(i, c) {
					t.Fatalf("row %d class %d: probability %v, refit %v", i, c, v, P2.At(i, c))
				}
			}
			if math.Abs(sum-1) > 1e-6 {
				t.Fatalf("row %d: probabilities sum to %v", i, sum)
			}
		}
	})
}
