package learn

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/methodid"
)

// fakeRunner is a MethodRunner in process: its learner predicts the
// training mean (or, classifying, the training classes' frequencies),
// its imputer fills NA with fill; it records every call.
type fakeRunner struct {
	mu       sync.Mutex
	fill     float64
	calls    []MethodCall
	sawNaN   []bool // per FitPredict(Proba): X had a NaN
	widths   []int  // per FitPredict(Proba): columns of X
	classes  []int  // per FitPredictProba: k
	badShape bool   // the imputer returns one column too few
	// spoil, when set, changes the probabilities FitPredictProba returns.
	spoil func(P *mat.Dense) *mat.Dense
}

func (f *fakeRunner) record(call MethodCall, X *mat.Dense) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call)
	_, c := X.Dims()
	f.widths = append(f.widths, c)
	f.sawNaN = append(f.sawNaN, slices.ContainsFunc(X.RawMatrix().Data, math.IsNaN))
}

func (f *fakeRunner) FitPredict(_ context.Context, call MethodCall, X *mat.Dense, y []float64, Xtest *mat.Dense) ([]float64, MethodTiming, error) {
	f.record(call, X)
	var mean float64
	for _, v := range y {
		mean += v / float64(len(y))
	}
	n, _ := Xtest.Dims()
	pred := make([]float64, n)
	for i := range pred {
		pred[i] = mean
	}
	return pred, MethodTiming{FitSeconds: 0.25, PredictSeconds: 0.01}, nil
}

func (f *fakeRunner) Impute(_ context.Context, call MethodCall, X, Xtest *mat.Dense) (*mat.Dense, *mat.Dense, MethodTiming, error) {
	f.record(call, X)
	fill := func(A *mat.Dense) *mat.Dense {
		r, c := A.Dims()
		if f.badShape {
			c--
		}
		out := mat.NewDense(r, c, nil)
		for i := range r {
			for j := range c {
				v := A.At(i, j)
				if math.IsNaN(v) {
					v = f.fill
				}
				out.Set(i, j, v)
			}
		}
		return out
	}
	return fill(X), fill(Xtest), MethodTiming{FitSeconds: 0.5}, nil
}

// methodsOf returns a lookup of bound methods by name.
func methodsOf(ms ...methodid.Method) MethodLookup {
	return func(name string) (methodid.Method, bool) {
		i := slices.IndexFunc(ms, func(m methodid.Method) bool { return m.Name == name })
		if i < 0 {
			return methodid.Method{}, false
		}
		return ms[i], true
	}
}

var (
	hgb     = methodid.Method{Name: "hgb", Kind: methodid.Learner, AcceptsMissing: true, ID: "aa"}
	strict  = methodid.Method{Name: "strict", Kind: methodid.Learner, ID: "bb"}
	iter    = methodid.Method{Name: "sk_iterative", Kind: methodid.Imputer, ID: "cc"}
	unbound = methodid.Method{Name: "later"}
)

func TestParseSpecWith(t *testing.T) {
	lookup := methodsOf(hgb, strict, iter, unbound)
	for _, tc := range []struct {
		name          string
		learner, imp  string // external method names expected
		strategy      string
		mask, wantErr bool
	}{
		{name: "hgb/native", learner: "hgb", strategy: NativeNA},
		{name: "hgb/mean+mask", learner: "hgb", strategy: Mean, mask: true},
		{name: "hgb/mia-inf", learner: "hgb", strategy: MIAInf},
		{name: "hgb/sk_iterative", learner: "hgb", imp: "sk_iterative", strategy: "sk_iterative"},
		{name: "tree/sk_iterative+mask", imp: "sk_iterative", strategy: "sk_iterative", mask: true},
		{name: "svm/sk_iterative", imp: "sk_iterative", strategy: "sk_iterative"},
		{name: "later/native", learner: "later", strategy: NativeNA}, // unbound: kind from its place
		{name: "tree/later", imp: "later", strategy: "later"},
		{name: "tree/mia", strategy: MIA},
		{name: "hgb/iterative+mask", learner: "hgb", strategy: Iterative, mask: true}, // built in
		{name: "forest/knn", strategy: KNNImpute},
		{name: "strict/native", wantErr: true},      // accepts_missing = false
		{name: "hgb/surrogate", wantErr: true},      // a tree strategy
		{name: "tree/hgb", wantErr: true},           // a learner in an imputer's place
		{name: "sk_iterative/mean", wantErr: true},  // an imputer in a learner's place
		{name: "bayes/sk_iterative", wantErr: true}, // the oracle imputes nothing
		{name: "tree/native", wantErr: true},        // native is for external learners
		{name: "nope/mean", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp, err := ParseSpecWith(tc.name, lookup)
			if tc.wantErr {
				if !errors.Is(err, ErrUnknownPipeline) {
					t.Fatalf("err = %v, want ErrUnknownPipeline", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sp.LearnerMethod.Name != tc.learner || sp.ImputerMethod.Name != tc.imp || sp.Strategy != tc.strategy || sp.Mask != tc.mask {
				t.Errorf("got %+v", sp)
			}
			if sp.Name() != tc.name {
				t.Errorf("Name() = %q", sp.Name())
			}
			if tc.imp != "" && (sp.ImputerMethod.Kind != methodid.Imputer || !sp.Imputes() || !sp.EstimatesValues()) {
				t.Errorf("external imputer not recognised: %+v", sp)
			}
			if tc.learner != "" && sp.LearnerMethod.Kind != methodid.Learner {
				t.Errorf("learner kind %q", sp.LearnerMethod.Kind)
			}
		})
	}
}

func TestMethodSettings(t *testing.T) {
	lookup := methodsOf(hgb, iter)
	for _, tc := range []struct {
		name             string
		s, learner, impu Settings
		wantErr          bool
	}{
		{"tree/sk_iterative", Settings{"cp": 0.01, "sk_iterative.k": 5}, nil, Settings{"k": 5}, false},
		{"hgb/gaussian", Settings{"shrink": 0.1, "max_iter": 3}, Settings{"max_iter": 3}, nil, false},
		// The built-in iterative's keys are prefixed so that hgb keeps its own.
		{"hgb/iterative", Settings{"iterative_maxiter": 4, "max_iter": 3, "tol": 1e-5}, Settings{"max_iter": 3, "tol": 1e-5}, nil, false},
		{"hgb/knn", Settings{"knn_k": 3, "k": 9}, Settings{"k": 9}, nil, false},
		{"hgb/sk_iterative", Settings{"max_iter": 3, "sk_iterative.max_iter": 7}, Settings{"max_iter": 3}, Settings{"max_iter": 7}, false},
		{"tree/sk_iterative", Settings{"rpart_defaults": 1}, nil, Settings{}, false}, // a preset is the tree's
		{"tree/sk_iterative", Settings{"k": 5}, nil, nil, true},                      // not the tree's, not prefixed
		{"tree/sk_iterative", Settings{"cp": 7}, nil, nil, true},                     // a built-in key is still checked
		{"hgb/native", Settings{"lr": math.Inf(1)}, nil, nil, true},                  // JSON has no ∞
		{"hgb/native", Settings{"knn.k": 1}, nil, nil, true},                         // no such imputer
		{"tree/mean", Settings{"k": 5}, nil, nil, true},                              // no external method to take it
	} {
		sp, err := ParseSpecWith(tc.name, lookup)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := ResolveSettings(sp, tc.s)
		if tc.wantErr {
			if !errors.Is(err, ErrBadSetting) {
				t.Errorf("%s %v: err = %v, want ErrBadSetting", tc.name, tc.s, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s %v: %v", tc.name, tc.s, err)
		}
		if got := MethodSettings(sp, tc.s, sp.LearnerMethod); got.String() != tc.learner.String() {
			t.Errorf("%s %v: learner settings %v, want %v", tc.name, tc.s, got, tc.learner)
		}
		if got := MethodSettings(sp, tc.s, sp.ImputerMethod); got.String() != tc.impu.String() {
			t.Errorf("%s %v: imputer settings %v, want %v", tc.name, tc.s, got, tc.impu)
		}
		for k, v := range tc.s {
			if _, preset := rs[k]; !preset && k == "rpart_defaults" {
				continue // a preset switch is applied, not kept
			}
			if rs[k] != v {
				t.Errorf("%s: resolved %v lacks %s=%v", tc.name, rs, k, v)
			}
		}
	}
}

// naData returns a training and a test set with NA in column 0 and a
// target depending on column 1.
func naData() (train *mat.Dense, y []float64, test *mat.Dense) {
	rng := rand.New(rand.NewPCG(3, 4))
	draw := func(n int) *mat.Dense {
		X := mat.NewDense(n, 3, nil)
		for i := range n {
			for j := range 3 {
				X.Set(i, j, rng.NormFloat64())
			}
			if i%4 == 0 {
				X.Set(i, 0, math.NaN())
			}
		}
		return X
	}
	train, test = draw(200), draw(50)
	y = make([]float64, 200)
	for i := range y {
		y[i] = 2*train.At(i, 1) + 0.1*rng.NormFloat64()
	}
	return train, y, test
}

func TestExternalPipelines(t *testing.T) {
	train, y, test := naData()
	lookup := methodsOf(hgb, iter)
	for _, tc := range []struct {
		name         string
		calls        int  // FitPredict + Impute calls
		learnerNaN   bool // the external learner sees NA
		learnerWidth int
		deferredFit  float64
	}{
		{"hgb/native", 1, true, 3, 0.25},
		{"hgb/mean+mask", 1, false, 4, 0.25},
		{"hgb/sk_iterative", 2, false, 3, 0.25},
		{"tree/sk_iterative+mask", 1, false, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := &fakeRunner{}
			sp, err := ParseSpecWith(tc.name, lookup)
			if err != nil {
				t.Fatal(err)
			}
			s := Settings{}
			if sp.LearnerMethod.External() {
				s["k"] = 2
			}
			if sp.ImputerMethod.External() {
				s["sk_iterative.k"] = 2
			}
			p, err := NewFromSpec(sp, s, Env{Methods: run, Threads: 3})
			if err != nil {
				t.Fatal(err)
			}
			f, err := p.FitWith(context.Background(), train, y, test, rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				t.Fatal(err)
			}
			pred, err := f.Predict(context.Background(), test)
			if err != nil || len(pred) != 50 {
				t.Fatalf("predict: %d predictions, %v", len(pred), err)
			}
			if len(run.calls) != tc.calls {
				t.Fatalf("%d calls, want %d", len(run.calls), tc.calls)
			}
			for _, c := range run.calls {
				if c.Threads != 3 || c.Settings["k"] != 2 || c.Seed < 0 || c.Seed >= 1<<31 || c.Method.ID == "" {
					t.Errorf("call %+v", c)
				}
			}
			if sp.LearnerMethod.External() {
				last := len(run.calls) - 1
				if run.sawNaN[last] != tc.learnerNaN || run.widths[last] != tc.learnerWidth {
					t.Errorf("learner saw NaN %v width %d, want %v %d", run.sawNaN[last], run.widths[last], tc.learnerNaN, tc.learnerWidth)
				}
			}
			if got := f.DeferredFitSeconds(); got != tc.deferredFit {
				t.Errorf("DeferredFitSeconds = %v, want %v", got, tc.deferredFit)
			}
		})
	}
}

// TestExternalSeeds: the seeds come from the pipeline's stream, imputer
// first, so the same stream gives the same seeds and another stream
// others.
func TestExternalSeeds(t *testing.T) {
	train, y, test := naData()
	sp, err := ParseSpecWith("hgb/sk_iterative", methodsOf(hgb, iter))
	if err != nil {
		t.Fatal(err)
	}
	seeds := func(s1, s2 uint64) []int64 {
		run := &fakeRunner{}
		p, err := NewFromSpec(sp, nil, Env{Methods: run})
		if err != nil {
			t.Fatal(err)
		}
		f, err := p.FitWith(context.Background(), train, y, test, rand.New(rand.NewPCG(s1, s2)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Predict(context.Background(), test); err != nil {
			t.Fatal(err)
		}
		return []int64{run.calls[0].Seed, run.calls[1].Seed}
	}
	a, b, c := seeds(5, 6), seeds(5, 6), seeds(5, 7)
	if !slices.Equal(a, b) || slices.Equal(a, c) || a[0] == a[1] {
		t.Errorf("seeds %v, again %v, other stream %v", a, b, c)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	if want := int64(rng.Uint64() % (1<<31 - 1)); a[0] != want {
		t.Errorf("imputer seed %d, want the stream's first draw %d", a[0], want)
	}
}

// TestExternalImputerComposes: a tree behind an external imputer that
// fills 0 predicts exactly as tree/constant (value 0), which fills 0 in
// process: the composition adds nothing of its own.
func TestExternalImputerComposes(t *testing.T) {
	train, y, test := naData()
	ctx := context.Background()
	sp, err := ParseSpecWith("tree/sk_iterative+mask", methodsOf(iter))
	if err != nil {
		t.Fatal(err)
	}
	ext, err := NewFromSpec(sp, nil, Env{Methods: &fakeRunner{}})
	if err != nil {
		t.Fatal(err)
	}
	fe, err := ext.FitWith(ctx, train, y, test, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	pe, err := fe.Predict(ctx, test)
	if err != nil {
		t.Fatal(err)
	}
	in, err := New("tree/constant+mask", nil, Env{})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := in.Fit(ctx, train, y, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	pi, err := fi.Predict(ctx, test)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(pe, pi) {
		t.Errorf("tree behind the external imputer differs from tree/constant+mask")
	}
	imputed, ok, err := fe.Impute(test)
	if err != nil || !ok || imputed.At(0, 0) != 0 {
		t.Errorf("Impute(test) = %v, %v, %v", ok, err, imputed)
	}
	if _, err := fe.Predict(ctx, train); err != nil {
		t.Errorf("predicting the training set it was fitted on: %v", err)
	}
	other := mat.DenseCopyOf(test)
	if _, err := fe.Predict(ctx, other); !errors.Is(err, ErrBadInput) {
		t.Errorf("predicting a matrix the method never saw: %v, want ErrBadInput", err)
	}
}

func TestExternalErrors(t *testing.T) {
	train, y, test := naData()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 1))
	bound, _ := ParseSpecWith("tree/sk_iterative", methodsOf(iter))
	if _, err := NewFromSpec(bound, nil, Env{}); !errors.Is(err, ErrNotImplemented) {
		t.Errorf("no runner: %v, want ErrNotImplemented", err)
	}
	unb, _ := ParseSpecWith("tree/later", methodsOf(unbound))
	if _, err := NewFromSpec(unb, nil, Env{Methods: &fakeRunner{}}); !errors.Is(err, ErrUnknownPipeline) {
		t.Errorf("unbound: %v, want ErrUnknownPipeline", err)
	}
	p, err := NewFromSpec(bound, nil, Env{Methods: &fakeRunner{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Fit(ctx, train, y, rng); !errors.Is(err, ErrBadInput) {
		t.Errorf("Fit without the test set: %v, want ErrBadInput", err)
	}
	bad, err := NewFromSpec(bound, nil, Env{Methods: &fakeRunner{badShape: true}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bad.FitWith(ctx, train, y, test, rng); !errors.Is(err, ErrMethodOutput) {
		t.Errorf("imputer returning the wrong shape: %v, want ErrMethodOutput", err)
	}
}

// TestBuiltInFitWith: a built-in pipeline ignores the test set and its
// random stream is untouched, so FitWith and Fit agree bit for bit.
func TestBuiltInFitWith(t *testing.T) {
	train, y, test := naData()
	ctx := context.Background()
	for _, name := range []string{"forest/mia", "tree/mean+mask", "boost/mia"} {
		p, err := New(name, Settings{}, Env{})
		if err != nil {
			t.Fatal(err)
		}
		predict := func(f *Fitted, err error) []float64 {
			if err != nil {
				t.Fatal(err)
			}
			pred, err := f.Predict(ctx, test)
			if err != nil {
				t.Fatal(err)
			}
			return pred
		}
		a := predict(p.Fit(ctx, train, y, rand.New(rand.NewPCG(8, 8))))
		b := predict(p.FitWith(ctx, train, y, test, rand.New(rand.NewPCG(8, 8))))
		if !slices.Equal(a, b) {
			t.Errorf("%s: FitWith differs from Fit", name)
		}
	}
}

// TestCheckMethodName: a method's name is spelt as methodid asks and is
// no built-in learner or strategy; every refusal wraps ErrUnknownPipeline.
func TestCheckMethodName(t *testing.T) {
	cases := []struct {
		name, err string // err: "" when accepted
	}{
		{"hgb", ""},
		{"sk_iterative", ""},
		{"iterative", `learn: unknown pipeline: method name "iterative" is a built-in learner or strategy of misslab`},
		{"Hgb", `learn: unknown pipeline: method name "Hgb": want a lower-case letter, then letters, digits or _ (at most 40 bytes)`},
		{"tree", `learn: unknown pipeline: method name "tree" is a built-in learner or strategy of misslab`},
		{"mean", `learn: unknown pipeline: method name "mean" is a built-in learner or strategy of misslab`},
		{NativeNA, `learn: unknown pipeline: method name "native" is a built-in learner or strategy of misslab`},
	}
	for _, tc := range cases {
		err := CheckMethodName(tc.name)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("CheckMethodName(%q) = %v, want nil", tc.name, err)
		case tc.err != "" && (err == nil || err.Error() != tc.err || !errors.Is(err, ErrUnknownPipeline)):
			t.Errorf("CheckMethodName(%q) = %v, want %q wrapping ErrUnknownPipeline", tc.name, err, tc.err)
		}
	}
}
