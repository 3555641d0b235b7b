package adapters_test

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/methods"
)

// TestPipelines composes the shipped methods with built-ins as a grid
// does (learn.ParseSpecWith, NewFromSpec, FitWith, Predict): each
// pipeline fits, predicts every test row, and tracks the signal.
func TestPipelines(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Python and R processes")
	}
	cat := installMethods(t, python(t), rscript(t))
	env := learn.Env{Threads: 1, Methods: runner(t, cat)}
	r := rand.New(rand.NewPCG(9, 10))
	X, y := linearData(r, 400, 4, 0.2)
	Xt, yt := linearData(r, 150, 4, 0.2)
	for _, tc := range []struct {
		name string
		s    learn.Settings
	}{
		{"hgb/native", learn.Settings{"max_iter": 50}},
		{"hgb/mean+mask", nil},
		{"rpart/native", learn.Settings{"minbucket": 10}},
		{"tree/sk_iterative", learn.Settings{"minbucket": 10, "sk_iterative.max_iter": 5}}, // the imputer's own keys are prefixed
		{"linear/knn_impute+mask", learn.Settings{"knn_impute.n_neighbors": 3}},
		{"rpart/sk_iterative", learn.Settings{"minbucket": 10, "sk_iterative.max_iter": 5}}, // each method gets its own keys
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := pipeline(t, cat, tc.name, tc.s, env)
			f, err := p.FitWith(ctx(t), X, y, Xt, rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				t.Fatalf("FitWith: %v", err)
			}
			pred, err := f.Predict(ctx(t), Xt)
			if err != nil {
				t.Fatalf("Predict: %v", err)
			}
			if got := r2(yt, pred); got < 0.7 {
				t.Errorf("test R² = %.3f, want > 0.7 for y = x1 + noise", got)
			}
		})
	}
}

// pipeline builds a pipeline whose external names the catalog binds.
func pipeline(t *testing.T, cat *methods.Catalog, name string, s learn.Settings, env learn.Env) *learn.Pipeline {
	t.Helper()
	spec, err := learn.ParseSpecWith(name, cat.Lookup)
	if err != nil {
		t.Fatalf("ParseSpecWith: %v", err)
	}
	p, err := learn.NewFromSpec(spec, s, env)
	if err != nil {
		t.Fatalf("NewFromSpec: %v", err)
	}
	return p
}

// TestNativeNeedsAcceptsMissing: a learner whose methods file does not
// say accepts_missing cannot run on NA ("/native").
func TestNativeNeedsAcceptsMissing(t *testing.T) {
	cat := loadMethods(t, t.TempDir(), `method "plain" {
  kind    = "learner"
  command = ["python3", "plain.py"]
}
`)
	_, err := learn.ParseSpecWith("plain/native", cat.Lookup)
	if !errors.Is(err, learn.ErrUnknownPipeline) {
		t.Errorf("plain/native: err = %v, want ErrUnknownPipeline (accepts_missing = false)", err)
	}
}
