package boost

import (
	"context"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// TestFitBadInput checks that unusable data give errors wrapping learnerr.ErrInput
// and never panic.
func TestFitBadInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	ok := func() (*mat.Dense, []float64) {
		return mat.NewDense(4, 2, []float64{1, 2, 3, nan, 5, 6, 7, 8}), []float64{1, 2, 3, 4}
	}
	tests := []struct {
		name string
		edit func(X *mat.Dense, y []float64) (*mat.Dense, []float64)
	}{
		{"nil X", func(_ *mat.Dense, y []float64) (*mat.Dense, []float64) { return nil, y }},
		{"zero rows", func(_ *mat.Dense, _ []float64) (*mat.Dense, []float64) { return &mat.Dense{}, nil }},
		{"short y", func(X *mat.Dense, y []float64) (*mat.Dense, []float64) { return X, y[:3] }},
		{"NaN in y", func(X *mat.Dense, y []float64) (*mat.Dense, []float64) { y[2] = nan; return X, y }},
		{"+Inf in y", func(X *mat.Dense, y []float64) (*mat.Dense, []float64) { y[0] = inf; return X, y }},
		{"y beyond float32", func(X *mat.Dense, y []float64) (*mat.Dense, []float64) { y[1] = -1e39; return X, y }},
		{"+Inf in X", func(X *mat.Dense, y []float64) (*mat.Dense, []float64) { X.Set(0, 0, inf); return X, y }},
		{"-Inf in X", func(X *mat.Dense, y []float64) (*mat.Dense, []float64) { X.Set(3, 1, -inf); return X, y }},
		{"X beyond float32", func(X *mat.Dense, y []float64) (*mat.Dense, []float64) { X.Set(2, 0, 4e38); return X, y }},
		{"all-NaN column", func(X *mat.Dense, y []float64) (*mat.Dense, []float64) {
			for i := range 4 {
				X.Set(i, 1, nan)
			}
			return X, y
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			X, y := tc.edit(ok())
			m, err := Fit(context.Background(), X, y, DefaultParams(), newRNG(1))
			if !errors.Is(err, learnerr.ErrInput) || m != nil {
				t.Fatalf("Fit = %v, %v; want an error wrapping learnerr.ErrInput", m, err)
			}
		})
	}
	X, y := ok()
	if _, err := Fit(context.Background(), X, y, DefaultParams(), newRNG(1)); err != nil {
		t.Fatalf("the unedited data must fit: %v", err)
	}
}

// TestPredictBadInput checks Predict's errors: wrong column count, empty
// matrix, ±Inf and float32 overflow.
func TestPredictBadInput(t *testing.T) {
	X := mat.NewDense(4, 2, []float64{1, 2, 3, 4, 5, 6, 7, 8})
	p := DefaultParams()
	p.Rounds = 3
	m, err := Fit(context.Background(), X, []float64{1, 2, 3, 4}, p, newRNG(1))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		X    *mat.Dense
	}{
		{"nil", nil},
		{"empty", &mat.Dense{}},
		{"3 columns", mat.NewDense(2, 3, nil)},
		{"1 column", mat.NewDense(2, 1, nil)},
		{"+Inf", mat.NewDense(1, 2, []float64{math.Inf(1), 0})},
		{"-Inf", mat.NewDense(1, 2, []float64{0, math.Inf(-1)})},
		{"beyond float32", mat.NewDense(1, 2, []float64{0, 1e300})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if pred, err := m.Predict(context.Background(), tc.X); !errors.Is(err, learnerr.ErrInput) || pred != nil {
				t.Fatalf("Predict = %v, %v; want an error wrapping learnerr.ErrInput", pred, err)
			}
		})
	}
	if _, err := m.Predict(context.Background(), mat.NewDense(1, 2, []float64{math.NaN(), math.NaN()})); err != nil {
		t.Fatalf("an all-missing row must predict: %v", err)
	}
}

// TestParams checks defaults, validation and Set.
func TestParams(t *testing.T) {
	d := DefaultParams()
	want := Params{Rounds: 500, Eta: 0.3, MaxDepth: 6, Lambda: 1, Alpha: 0, Gamma: 0,
		MinChildWeight: 1, BaseScore: 0.5, Method: Exact}
	if d != want || d.Validate() != nil {
		t.Fatalf("DefaultParams = %+v (valid: %v), want %+v", d, d.Validate(), want)
	}
	bad := []struct {
		name string
		edit func(*Params)
	}{
		{"rounds < 0", func(p *Params) { p.Rounds = -1 }},
		{"eta < 0", func(p *Params) { p.Eta = -0.1 }},
		{"eta NaN", func(p *Params) { p.Eta = math.NaN() }},
		{"max_depth 0", func(p *Params) { p.MaxDepth = 0 }},
		{"max_depth 31", func(p *Params) { p.MaxDepth = 31 }},
		{"lambda < 0", func(p *Params) { p.Lambda = -1 }},
		{"alpha Inf", func(p *Params) { p.Alpha = math.Inf(1) }},
		{"gamma < 0", func(p *Params) { p.Gamma = -1 }},
		{"min_child_weight NaN", func(p *Params) { p.MinChildWeight = math.NaN() }},
		{"base_score Inf", func(p *Params) { p.BaseScore = math.Inf(-1) }},
		{"method hist", func(p *Params) { p.Method = "hist" }},
	}
	X, y := mat.NewDense(3, 1, []float64{1, 2, 3}), []float64{1, 2, 3}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultParams()
			tc.edit(&p)
			if _, err := Fit(context.Background(), X, y, p, newRNG(1)); !errors.Is(err, learnerr.ErrSetting) {
				t.Fatalf("Fit err = %v, want learnerr.ErrSetting", err)
			}
			if err := p.Validate(); !errors.Is(err, learnerr.ErrSetting) {
				t.Fatalf("Validate err = %v, want learnerr.ErrSetting", err)
			}
		})
	}
	if _, err := Fit(context.Background(), X, y, DefaultParams(), nil); !errors.Is(err, learnerr.ErrInput) {
		t.Fatalf("nil rng: err = %v, want learnerr.ErrInput", err)
	}
}

func TestSet(t *testing.T) {
	var p Params
	for i, name := range SettingNames {
		if err := p.Set(name, float64(i+2)); err != nil {
			t.Fatalf("Set(%q): %v", name, err)
		}
	}
	want := Params{Rounds: 2, Eta: 3, MaxDepth: 4, Lambda: 5, Alpha: 6, Gamma: 7,
		MinChildWeight: 8, BaseScore: 9}
	if p != want {
		t.Fatalf("after Set: %+v, want %+v", p, want)
	}
	for _, tc := range []struct {
		name string
		v    float64
	}{{"rounds", 2.5}, {"max_depth", math.NaN()}, {"subsample", 0.5}, {"", 1}} {
		if err := p.Set(tc.name, tc.v); !errors.Is(err, learnerr.ErrSetting) {
			t.Errorf("Set(%q, %v) = %v, want learnerr.ErrSetting", tc.name, tc.v, err)
		}
	}
}
