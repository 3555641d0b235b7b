package methods

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/methodid"
)

// request is one line sent to a method (protocol v1).
type request struct {
	Protocol int    `json:"protocol"`
	ID       int64  `json:"id"`
	Op       string `json:"op"`
	Method   string `json:"method"`
	// Classes is k of a classification request (op "fit_predict_proba");
	// absent from every other request, which are as they always were.
	Classes  int                `json:"classes,omitempty"`
	Seed     int64              `json:"seed"`
	Threads  int                `json:"threads"`
	Settings map[string]float64 `json:"settings"`
	Train    trainFiles         `json:"train"`
	Test     testFiles          `json:"test"`
	Out      any                `json:"out"`
}

type trainFiles struct {
	X    string `json:"x"`
	Y    string `json:"y,omitempty"`
	Rows int    `json:"rows"`
	Cols int    `json:"cols"`
}

type testFiles struct {
	X    string `json:"x"`
	Rows int    `json:"rows"`
	Cols int    `json:"cols"`
}

type learnerOut struct {
	Pred string `json:"pred"`
}

type imputerOut struct {
	Train string `json:"train"`
	Test  string `json:"test"`
}

// maxSeed bounds MethodCall.Seed: [0, 2³¹−1).
const maxSeed = 1<<31 - 1

// bufs recycles the encoding buffers of data files.
var bufs = sync.Pool{New: func() any { return new([]byte) }}

// sweepRunner is a Runner scoped to one sweep.
type sweepRunner struct {
	r     *Runner
	sweep string
}

// FitPredict implements learn.MethodRunner. A method whose methods file
// declares classification alone is refused (ErrUnknownMethod) before any
// process runs.
func (s sweepRunner) FitPredict(ctx context.Context, call learn.MethodCall, X *mat.Dense, y []float64, Xtest *mat.Dense) ([]float64, learn.MethodTiming, error) {
	p, err := s.r.poolFor(call.Method, methodid.Learner)
	if err != nil {
		return nil, learn.MethodTiming{}, err
	}
	if !p.e.method.Regresses() {
		return nil, learn.MethodTiming{}, fmt.Errorf(`%s: does classification only (tasks = ["classification"] in the methods file): %w`,
			call.Method.Name, ErrUnknownMethod)
	}
	if err := checkLearnerInput(call, p.e.method.AcceptsMissing, X, y, Xtest); err != nil {
		return nil, learn.MethodTiming{}, err
	}
	var pred []float64
	var t learn.MethodTiming
	err = s.r.withCallDir(func(dir string) error {
		n, d := X.Dims()
		m, _ := Xtest.Dims()
		req := newRequest("fit_predict", call)
		req.Train = trainFiles{X: filepath.Join(dir, "x_train.f64"), Y: filepath.Join(dir, "y_train.f64"), Rows: n, Cols: d}
		req.Test = testFiles{X: filepath.Join(dir, "x_test.f64"), Rows: m, Cols: d}
		out := learnerOut{Pred: filepath.Join(dir, "pred.f64")}
		req.Out = out
		if err := writeInputs(req, X, y, Xtest); err != nil {
			return err
		}
		rep, err := p.call(ctx, s.sweep, req, func() { os.Remove(out.Pred) })
		if err != nil {
			return err
		}
		t = timing(rep)
		pred, err = readPredictions(out.Pred, m)
		if err != nil {
			return fmt.Errorf("%s: %w: %w", call.Method.Name, err, learn.ErrMethodOutput)
		}
		return nil
	})
	return pred, t, err
}

// Impute implements learn.MethodRunner.
func (s sweepRunner) Impute(ctx context.Context, call learn.MethodCall, X, Xtest *mat.Dense) (Xi, XtestI *mat.Dense, t learn.MethodTiming, err error) {
	p, err := s.r.poolFor(call.Method, methodid.Imputer)
	if err != nil {
		return nil, nil, t, err
	}
	if err := checkImputerInput(call, X, Xtest); err != nil {
		return nil, nil, t, err
	}
	err = s.r.withCallDir(func(dir string) error {
		n, d := X.Dims()
		m, _ := Xtest.Dims()
		req := newRequest("impute", call)
		req.Train = trainFiles{X: filepath.Join(dir, "x_train.f64"), Rows: n, Cols: d}
		req.Test = testFiles{X: filepath.Join(dir, "x_test.f64"), Rows: m, Cols: d}
		out := imputerOut{Train: filepath.Join(dir, "x_train_imputed.f64"), Test: filepath.Join(dir, "x_test_imputed.f64")}
		req.Out = out
		if err := writeInputs(req, X, nil, Xtest); err != nil {
			return err
		}
		rep, err := p.call(ctx, s.sweep, req, func() { os.Remove(out.Train); os.Remove(out.Test) })
		if err != nil {
			return err
		}
		t = timing(rep)
		if Xi, err = readImputed(out.Train, X); err == nil {
			XtestI, err = readImputed(out.Test, Xtest)
		}
		if err != nil {
			return fmt.Errorf("%s: %w: %w", call.Method.Name, err, learn.ErrMethodOutput)
		}
		return nil
	})
	if err != nil {
		return nil, nil, learn.MethodTiming{}, err
	}
	return Xi, XtestI, t, nil
}

// withCallDir runs f with a fresh private directory for one call, which
// is removed afterwards whatever happens.
func (r *Runner) withCallDir(f func(dir string) error) error {
	if err := r.enter(); err != nil {
		return err
	}
	defer r.inflight.Done()
	dir, err := os.MkdirTemp(r.root, "call-")
	if err != nil {
		return fmt.Errorf("methods: call directory: %w", err)
	}
	defer os.RemoveAll(dir)
	return f(dir)
}

func newRequest(op string, call learn.MethodCall) *request {
	settings := map[string]float64(call.Settings)
	if settings == nil {
		settings = map[string]float64{}
	}
	return &request{Protocol: 1, Op: op, Method: call.Method.Name, Seed: call.Seed, Threads: call.Threads, Settings: settings}
}

// writeInputs writes the request's input files.
func writeInputs(req *request, X *mat.Dense, y []float64, Xtest *mat.Dense) error {
	bp := bufs.Get().(*[]byte)
	defer bufs.Put(bp)
	write := func(path string, b []byte) error {
		*bp = b
		if err := os.WriteFile(path, b, 0o600); err != nil {
			return fmt.Errorf("methods: writing %s: %w", filepath.Base(path), err)
		}
		return nil
	}
	if err := write(req.Train.X, encodeMatrix((*bp)[:0], X)); err != nil {
		return err
	}
	if y != nil {
		if err := write(req.Train.Y, encodeVector((*bp)[:0], y)); err != nil {
			return err
		}
	}
	return write(req.Test.X, encodeMatrix((*bp)[:0], Xtest))
}

func timing(rep reply) learn.MethodTiming {
	return learn.MethodTiming{FitSeconds: max(rep.FitSeconds, 0), PredictSeconds: max(rep.PredictSeconds, 0)}
}

// readPredictions reads and checks m finite predictions.
func readPredictions(path string, m int) ([]float64, error) {
	pred, err := readValues(path, m)
	if err != nil {
		return nil, err
	}
	for i, v := range pred {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("prediction %d is %v", i+1, v)
		}
	}
	return pred, nil
}

// readImputed reads the imputed version of in and checks that it is
// finite and returns every observed entry of in bit-identical.
func readImputed(path string, in *mat.Dense) (*mat.Dense, error) {
	r, c := in.Dims()
	out, err := readMatrix(path, r, c)
	if err != nil {
		return nil, err
	}
	for j := 0; j < c; j++ {
		for i := 0; i < r; i++ {
			v, w := in.At(i, j), out.At(i, j)
			switch {
			case math.IsNaN(w) || math.IsInf(w, 0):
				return nil, fmt.Errorf("%s: entry (%d, %d) is %v", filepath.Base(path), i+1, j+1, w)
			case !math.IsNaN(v) && math.Float64bits(v) != math.Float64bits(w):
				return nil, fmt.Errorf("%s: observed entry (%d, %d) changed from %v to %v", filepath.Base(path), i+1, j+1, v, w)
			}
		}
	}
	return out, nil
}
