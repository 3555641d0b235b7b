package learn

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/methodid"
)

// FitPredictProba predicts the training classes' frequencies for every
// test row (spoilt by f.spoil when set).
func (f *fakeRunner) FitPredictProba(_ context.Context, call MethodCall, X *mat.Dense, y []float64, k int, Xtest *mat.Dense) (*mat.Dense, MethodTiming, error) {
	f.record(call, X)
	f.mu.Lock()
	f.classes = append(f.classes, k)
	f.mu.Unlock()
	freq := make([]float64, k)
	for _, v := range y {
		freq[int(v)] += 1 / float64(len(y))
	}
	m, _ := Xtest.Dims()
	P := mat.NewDense(m, k, nil)
	for i := range m {
		P.SetRow(i, freq)
	}
	if f.spoil != nil {
		P = f.spoil(P)
	}
	return P, MethodTiming{FitSeconds: 0.125, PredictSeconds: 0.01}, nil
}

var (
	// hgbc regresses and classifies; logit only classifies.
	hgbc  = methodid.Method{Name: "hgbc", Kind: methodid.Learner, AcceptsMissing: true, Tasks: methodid.TasksBoth, ID: "dd"}
	logit = methodid.Method{Name: "logit", Kind: methodid.Learner, Tasks: methodid.TasksClassification, ID: "ee"}
)

// classData is naData with three classes: the band of column 1.
func classData() (train *mat.Dense, y []float64, test *mat.Dense) {
	train, v, test := naData()
	y = make([]float64, len(v))
	for i, x := range v {
		switch {
		case x > 0.8:
			y[i] = 2
		case x > -0.8:
			y[i] = 1
		}
	}
	return train, y, test
}

// TestTaskFits: which pipelines with external methods each task takes,
// and what the refusals say (the method's name and how to declare it).
func TestTaskFits(t *testing.T) {
	lookup := methodsOf(hgb, hgbc, logit, iter, unbound)
	for _, tc := range []struct {
		name     string
		classify bool
		want     []string // substrings of the refusal; nil: accepted
	}{
		{"hgb/native", false, nil},
		{"hgb/native", true, []string{`external learner "hgb" does not declare classification`, `tasks = ["regression", "classification"]`, "fit_predict_proba"}},
		{"hgb/sk_iterative", true, []string{`"hgb" does not declare classification`}},
		{"hgbc/native", true, nil},
		{"hgbc/native", false, nil},
		{"logit/mean+mask", true, nil},
		{"logit/sk_iterative", true, nil},
		{"logit/mean", false, []string{`external learner "logit" does classification only`, `tasks = ["classification"]`}},
		{"tree/sk_iterative", true, nil}, // an external imputer never sees y
		{"tree/sk_iterative+mask", true, nil},
		{"linear/sk_iterative", true, nil},
		{"later/native", true, nil}, // unbound: checked once bound
		{"later/native", false, nil},
	} {
		sp, err := ParseSpecWith(tc.name, lookup)
		if err != nil {
			t.Fatal(err)
		}
		err = Regresses(sp)
		if tc.classify {
			err = Classifies(sp, nil)
		}
		if tc.want == nil {
			if err != nil {
				t.Errorf("%s (classify %v): %v", tc.name, tc.classify, err)
			}
			continue
		}
		if !errors.Is(err, ErrNotImplemented) {
			t.Errorf("%s (classify %v): err = %v, want ErrNotImplemented", tc.name, tc.classify, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s (classify %v): %q does not say %q", tc.name, tc.classify, err, w)
			}
		}
		classes := 0
		if tc.classify {
			classes = 3
		}
		if _, err := NewFromSpec(sp, nil, Env{Methods: &fakeRunner{}, Classes: classes}); !errors.Is(err, ErrNotImplemented) {
			t.Errorf("%s: NewFromSpec = %v, want the same refusal", tc.name, err)
		}
	}
}

// TestExternalImputerClassifies: a built-in classifier behind an
// external imputer that fills 0 gives exactly the probabilities of the
// same classifier behind constant (value 0), which fills 0 in process:
// FitWith runs the imputer on the covariates alone, then FitClass.
func TestExternalImputerClassifies(t *testing.T) {
	train, y, test := classData()
	ctx := context.Background()
	for _, tc := range []struct{ ext, in string }{
		{"tree/sk_iterative+mask", "tree/constant+mask"},
		{"tree/sk_iterative", "tree/constant"},
		{"linear/sk_iterative+mask", "linear/constant+mask"},
	} {
		t.Run(tc.ext, func(t *testing.T) {
			sp, err := ParseSpecWith(tc.ext, methodsOf(iter))
			if err != nil {
				t.Fatal(err)
			}
			run := &fakeRunner{}
			ext, err := NewFromSpec(sp, nil, Env{Methods: run, Classes: 3})
			if err != nil {
				t.Fatal(err)
			}
			fe, err := ext.FitWith(ctx, train, y, test, rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				t.Fatal(err)
			}
			pe, err := fe.PredictProba(ctx, test)
			if err != nil {
				t.Fatal(err)
			}
			if len(run.calls) != 1 || run.calls[0].Method != iter || len(run.classes) != 0 {
				t.Errorf("calls %+v, want one Impute of %q", run.calls, iter.Name)
			}
			in, err := New(tc.in, nil, Env{Classes: 3})
			if err != nil {
				t.Fatal(err)
			}
			fi, err := in.Fit(ctx, train, y, rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				t.Fatal(err)
			}
			pi, err := fi.PredictProba(ctx, test)
			if err != nil {
				t.Fatal(err)
			}
			if !mat.Equal(pe, pi) {
				t.Errorf("%s differs from %s", tc.ext, tc.in)
			}
			if fe.Classes() != 3 || fe.DeferredFitSeconds() != 0 {
				t.Errorf("Classes %d, DeferredFitSeconds %v", fe.Classes(), fe.DeferredFitSeconds())
			}
		})
	}
}

// TestExternalClassifier: an external learner that declares
// classification gets k, the class codes and the pipeline's covariates
// (NA only natively); its probabilities are the pipeline's, its
// reported fit time is deferred, and with an external imputer the
// imputer's seed is drawn first.
func TestExternalClassifier(t *testing.T) {
	train, y, test := classData()
	lookup := methodsOf(hgbc, logit, iter)
	for _, tc := range []struct {
		name  string
		calls int
		nan   bool
		width int
	}{
		{"hgbc/native", 1, true, 3},
		{"logit/mean+mask", 1, false, 4},
		{"logit/sk_iterative", 2, false, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp, err := ParseSpecWith(tc.name, lookup)
			if err != nil {
				t.Fatal(err)
			}
			run := &fakeRunner{}
			p, err := NewFromSpec(sp, Settings{"c": 0.5}, Env{Methods: run, Threads: 2, Classes: 3})
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(5, 6))
			f, err := p.FitWith(context.Background(), train, y, test, rng)
			if err != nil {
				t.Fatal(err)
			}
			P, err := f.PredictProba(context.Background(), test)
			if err != nil {
				t.Fatal(err)
			}
			if r, c := P.Dims(); r != 50 || c != 3 || math.Abs(P.At(0, 0)+P.At(0, 1)+P.At(0, 2)-1) > 1e-12 {
				t.Errorf("%d × %d probabilities, row 0 %v", r, c, P.RawRowView(0))
			}
			if len(run.calls) != tc.calls || len(run.classes) != 1 || run.classes[0] != 3 {
				t.Fatalf("%d calls with classes %v, want %d calls, one of k = 3", len(run.calls), run.classes, tc.calls)
			}
			last := run.calls[len(run.calls)-1]
			if last.Method.Name != sp.LearnerMethod.Name || last.Settings["c"] != 0.5 || last.Threads != 2 {
				t.Errorf("learner call %+v", last)
			}
			if run.sawNaN[len(run.calls)-1] != tc.nan || run.widths[len(run.calls)-1] != tc.width {
				t.Errorf("learner saw NaN %v, width %d; want %v, %d", run.sawNaN[len(run.calls)-1], run.widths[len(run.calls)-1], tc.nan, tc.width)
			}
			want := rand.New(rand.NewPCG(5, 6))
			for i, c := range run.calls {
				if s := methodSeed(want); c.Seed != s {
					t.Errorf("call %d (%s): seed %d, want draw %d of the stream, %d", i, c.Method.Name, c.Seed, i, s)
				}
			}
			if got := f.DeferredFitSeconds(); got != 0.125 {
				t.Errorf("DeferredFitSeconds = %v, want the method's 0.125", got)
			}
			if _, err := f.Predict(context.Background(), test); !errors.Is(err, ErrBadInput) {
				t.Errorf("Predict on a classifier: %v, want ErrBadInput", err)
			}
		})
	}
}

// TestExternalClassifierBadProbabilities: probabilities of the wrong
// shape, NaN, negative, above 1 or in rows that do not sum to 1 (beyond
// ProbaSumTol) are the method's failure (ErrMethodOutput, naming it);
// a rounding within the tolerance is accepted as it is.
func TestExternalClassifierBadProbabilities(t *testing.T) {
	train, y, test := classData()
	set := func(i, j int, v float64) func(*mat.Dense) *mat.Dense {
		return func(P *mat.Dense) *mat.Dense { P.Set(i, j, v); return P }
	}
	for _, tc := range []struct {
		name  string
		spoil func(*mat.Dense) *mat.Dense
		want  string // "" for accepted
	}{
		{"k-1 columns", func(P *mat.Dense) *mat.Dense { return mat.DenseCopyOf(P.Slice(0, 50, 0, 2)) }, "50 × 2 probabilities for 50 rows of 3 classes"},
		{"a row too few", func(P *mat.Dense) *mat.Dense { return mat.DenseCopyOf(P.Slice(0, 49, 0, 3)) }, "49 × 3 probabilities"},
		{"none", func(*mat.Dense) *mat.Dense { return nil }, "no probabilities"},
		{"NaN", set(3, 1, math.NaN()), "probability NaN of class 1 on row 3"},
		{"negative", func(P *mat.Dense) *mat.Dense {
			P.SetRow(4, []float64{-0.25, 0.75, 0.5})
			return P
		}, "probability -0.25 of class 0 on row 4"},
		{"above 1", func(P *mat.Dense) *mat.Dense {
			P.SetRow(0, []float64{1.5, -0.25, -0.25})
			return P
		}, "probability 1.5"},
		{"sum 0.9", func(P *mat.Dense) *mat.Dense { P.Set(7, 0, P.At(7, 0)-0.1); return P }, "row 7's probabilities sum to 0.9"},
		{"sum off by 2e-6", func(P *mat.Dense) *mat.Dense { P.Set(2, 2, P.At(2, 2)+2e-6); return P }, "row 2's probabilities sum to 1.000002"},
		{"sum off by 1e-7", func(P *mat.Dense) *mat.Dense { P.Set(2, 2, P.At(2, 2)+1e-7); return P }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp, err := ParseSpecWith("hgbc/native", methodsOf(hgbc))
			if err != nil {
				t.Fatal(err)
			}
			p, err := NewFromSpec(sp, nil, Env{Methods: &fakeRunner{spoil: tc.spoil}, Classes: 3})
			if err != nil {
				t.Fatal(err)
			}
			f, err := p.FitWith(context.Background(), train, y, test, rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.PredictProba(context.Background(), test)
			if tc.want == "" {
				if err != nil {
					t.Errorf("a rounding within the tolerance: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrMethodOutput) || !strings.Contains(err.Error(), `external learner "hgbc"`) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want ErrMethodOutput naming hgbc and saying %q", err, tc.want)
			}
		})
	}
}
