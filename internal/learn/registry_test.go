package learn

import (
	"errors"
	"math"
	"testing"
)

func TestNative(t *testing.T) {
	want := map[string]bool{MIA: true, Surrogate: true, Block: true, Prob: true, Majority: true,
		MIAInf: false, Oracle: false, Mean: false, Median: false, Constant: false, OOR: false, Gaussian: false}
	for s, w := range want {
		if Native(s) != w {
			t.Errorf("Native(%q) = %v, want %v", s, !w, w)
		}
	}
}

func TestNewLearner(t *testing.T) {
	l, err := NewLearner(mustSpec(t, "linear/mean"), Settings{"ols": 1}, Env{})
	if err != nil {
		t.Fatal(err)
	}
	// y = 1 + 2x exactly: least squares recovers it.
	X := dense([]float64{0}, []float64{1}, []float64{3})
	m, err := l.Fit(ctx, X, []float64{1, 3, 7}, newRNG())
	if err != nil {
		t.Fatal(err)
	}
	pred, err := m.Predict(ctx, dense([]float64{10}))
	if err != nil || math.Abs(pred[0]-21) > 1e-12 {
		t.Errorf("prediction %v (%v), want 21", pred, err)
	}
	withoutFamily(t, Forest)
	if _, err := NewLearner(mustSpec(t, "forest/mia"), nil, Env{}); !errors.Is(err, ErrNotImplemented) {
		t.Errorf("forest: %v", err)
	}
	ps, err := ParamsOf(LinReg)
	if err != nil || len(ps) != 1 || ps[0].Key != "lambda" {
		t.Errorf("ParamsOf(linear) = %v, %v", ps, err)
	}
	if _, err := ParamsOf(Forest); !errors.Is(err, ErrNotImplemented) {
		t.Errorf("ParamsOf(forest) without its family: %v", err)
	}
}

// TestFactoryError: a factory's own error reaches the caller, wrapped
// with the pipeline name.
func TestFactoryError(t *testing.T) {
	boom := errors.New("boom")
	withFamily(t, SVM, Family{New: func(string, Settings, Env) (Learner, error) { return nil, boom }})
	if _, err := New("svm/mean", nil, Env{}); !errors.Is(err, boom) {
		t.Errorf("New: %v", err)
	}
}
