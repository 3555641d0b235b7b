package methods

import (
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn"
)

// both is the tasks attribute of a learner that regresses and classifies.
const both = `["regression", "classification"]`

// classData is data() with class codes y_i = i mod k.
func classData(k int) (X *mat.Dense, y []float64, Xt *mat.Dense) {
	X, y, Xt = data(30, 3, 7, 0)
	for i := range y {
		y[i] = float64(i % k)
	}
	return X, y, Xt
}

// TestFitPredictProba: a learner that declares both tasks answers a
// classification request (k classes, class codes as y) with m × k
// probabilities read column-major, and regression requests as before,
// from one process; the fake refuses a request whose "classes" does not
// match its op, so regression requests are proven to carry none.
func TestFitPredictProba(t *testing.T) {
	f := newFixture(t, 1, fake{name: "cls", behaviour: "mean", kind: "learner", tasks: both})
	run := f.r.ForSweep("s")
	for _, k := range []int{2, 3, 5} {
		X, y, Xt := classData(k)
		P, tm, err := run.FitPredictProba(t.Context(), f.call("cls"), X, y, k, Xt)
		if err != nil {
			t.Fatalf("k = %d: %v", k, err)
		}
		if r, c := P.Dims(); r != 7 || c != k {
			t.Fatalf("k = %d: %d × %d probabilities, want 7 × %d", k, r, c, k)
		}
		for j := range k {
			want := float64((30+k-1-j)/k) / 30 // how many of 0..29 are j mod k
			if math.Abs(P.At(6, j)-want) > 1e-12 {
				t.Errorf("k = %d: P[6][%d] = %v, want class %d's frequency %v", k, j, P.At(6, j), j, want)
			}
		}
		if tm.FitSeconds != 0.001 {
			t.Errorf("timing %+v, want the method's own", tm)
		}
	}
	if err := f.run("s", "cls"); err != nil {
		t.Fatalf("a regression request to the same method: %v", err)
	}
	if st := f.r.Stats(); st.Starts != 1 || st.Calls != 4 {
		t.Errorf("stats = %+v, want one process for the four calls", st)
	}
}

// TestClassFailures: probabilities of the wrong shape, NaN, negative or
// not summing to 1 are malformed output (ErrMethodOutput, naming the
// method and the place); the process is kept for the next call.
func TestClassFailures(t *testing.T) {
	tests := []struct {
		behaviour string
		text      string
	}{
		{"proba-short", "cls: output file proba.f64 has 112 bytes, want 168 (21 values) (7 test rows × 3 classes)"},
		{"proba-nan", "cls: proba.f64: probability of class 1 on row 2 is NaN, want a number in [0, 1]"},
		{"proba-neg", "cls: proba.f64: probability of class 0 on row 3 is -0.6666666666666667"},
		{"proba-sum", "cls: proba.f64: row 4's probabilities sum to 0.899"},
	}
	for _, tc := range tests {
		t.Run(tc.behaviour, func(t *testing.T) {
			f := newFixture(t, 1, fake{name: "cls", behaviour: tc.behaviour, kind: "learner", tasks: `["classification"]`, once: true})
			X, y, Xt := classData(3)
			_, _, err := f.r.ForSweep("s").FitPredictProba(t.Context(), f.call("cls"), X, y, 3, Xt)
			if !errors.Is(err, learn.ErrMethodOutput) || !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("err = %v, want ErrMethodOutput with %q", err, tc.text)
			}
			if _, _, err := f.r.ForSweep("s").FitPredictProba(t.Context(), f.call("cls"), X, y, 3, Xt); err != nil {
				t.Fatalf("the call after the failure: %v", err)
			}
			if st := f.r.Stats(); st.Starts != 1 {
				t.Errorf("stats = %+v, want the process kept", st)
			}
			if d := f.callDirs(); len(d) != 0 {
				t.Errorf("call directories left: %v", d)
			}
		})
	}
}

// TestClassRefusals: a learner that does not declare classification is
// refused before any process starts, and so is a call with bad classes.
func TestClassRefusals(t *testing.T) {
	f := newFixture(t, 1, fake{name: "reg", behaviour: "mean", kind: "learner"},
		fake{name: "cls", behaviour: "mean", kind: "learner", tasks: both},
		fake{name: "only", behaviour: "mean", kind: "learner", tasks: `["classification"]`})
	X, y, Xt := classData(2)
	run := f.r.ForSweep("s")
	_, _, err := run.FitPredictProba(t.Context(), f.call("reg"), X, y, 2, Xt)
	if !errors.Is(err, ErrUnknownMethod) || !strings.Contains(err.Error(), "reg: does not declare classification") {
		t.Errorf("undeclared: err = %v, want ErrUnknownMethod naming reg", err)
	}
	_, _, err = run.FitPredict(t.Context(), f.call("only"), X, y, Xt)
	if !errors.Is(err, ErrUnknownMethod) || !strings.Contains(err.Error(), "only: does classification only") {
		t.Errorf("a regression request to a classifier: err = %v, want ErrUnknownMethod naming only", err)
	}
	bad := append([]float64(nil), y...)
	bad[4] = 1.5
	_, three, _ := classData(3)
	for _, tc := range []struct {
		name string
		y    []float64
		k    int
		want string
	}{
		{"one class", y, 1, "cls: 1 classes, want 2 or more"},
		{"not a code", bad, 2, "cls: target 5 is 1.5, not a class code in 0..1"},
		{"code ≥ k", three, 2, "cls: target 3 is 2, not a class code in 0..1"},
	} {
		if _, _, err := run.FitPredictProba(t.Context(), f.call("cls"), X, tc.y, tc.k, Xt); !errors.Is(err, learn.ErrBadInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want ErrBadInput with %q", tc.name, err, tc.want)
		}
	}
	if st := f.r.Stats(); st.Starts != 0 {
		t.Errorf("stats = %+v: a process started for a refused call", st)
	}
}
