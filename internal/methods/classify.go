package methods

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/methodid"
)

// OpClassify is the op of a classification request: a learner whose
// methods file declares classification (tasks) gets it instead of
// "fit_predict" on a classification task, with "classes": k and the
// class codes 0..k−1 as its y file, and writes the test rows' class
// probabilities (m × k, column-major) to out.proba.
const OpClassify = "fit_predict_proba"

// classOut is where a classification request's probabilities go.
type classOut struct {
	Proba string `json:"proba"`
}

// FitPredictProba implements learn.MethodRunner: it sends a
// "fit_predict_proba" request and checks the probabilities the method
// writes (ErrMethodOutput: a file of another size than m × k values, a
// value outside [0, 1] or NaN, a row not summing to 1 within
// learn.ProbaSumTol). A method whose methods file does not declare
// classification is refused (ErrUnknownMethod) before any process runs.
func (s sweepRunner) FitPredictProba(ctx context.Context, call learn.MethodCall, X *mat.Dense, y []float64, k int, Xtest *mat.Dense) (*mat.Dense, learn.MethodTiming, error) {
	p, err := s.r.poolFor(call.Method, methodid.Learner)
	if err != nil {
		return nil, learn.MethodTiming{}, err
	}
	if !p.e.method.Classifies() {
		return nil, learn.MethodTiming{}, fmt.Errorf(`%s: does not declare classification (tasks = ["regression", "classification"] in the methods file): %w`,
			call.Method.Name, ErrUnknownMethod)
	}
	if err := checkClassInput(call, p.e.method.AcceptsMissing, X, y, k, Xtest); err != nil {
		return nil, learn.MethodTiming{}, err
	}
	var proba *mat.Dense
	var t learn.MethodTiming
	err = s.r.withCallDir(func(dir string) error {
		n, d := X.Dims()
		m, _ := Xtest.Dims()
		req := newRequest(OpClassify, call)
		req.Classes = k
		req.Train = trainFiles{X: filepath.Join(dir, "x_train.f64"), Y: filepath.Join(dir, "y_train.f64"), Rows: n, Cols: d}
		req.Test = testFiles{X: filepath.Join(dir, "x_test.f64"), Rows: m, Cols: d}
		out := classOut{Proba: filepath.Join(dir, "proba.f64")}
		req.Out = out
		if err := writeInputs(req, X, y, Xtest); err != nil {
			return err
		}
		rep, err := p.call(ctx, s.sweep, req, func() { os.Remove(out.Proba) })
		if err != nil {
			return err
		}
		t = timing(rep)
		proba, err = readProba(out.Proba, m, k)
		if err != nil {
			return fmt.Errorf("%s: %w: %w", call.Method.Name, err, learn.ErrMethodOutput)
		}
		return nil
	})
	return proba, t, err
}

// checkClassInput checks the data of a FitPredictProba call: those of
// FitPredict, k ≥ 2, and every target a class code in 0..k−1.
func checkClassInput(call learn.MethodCall, acceptsNA bool, X *mat.Dense, y []float64, k int, Xtest *mat.Dense) error {
	if err := checkLearnerInput(call, acceptsNA, X, y, Xtest); err != nil {
		return err
	}
	name := call.Method.Name
	if k < 2 {
		return fmt.Errorf("%s: %d classes, want 2 or more: %w", name, k, learn.ErrBadInput)
	}
	for i, v := range y {
		if v != math.Trunc(v) || v < 0 || v >= float64(k) {
			return fmt.Errorf("%s: target %d is %v, not a class code in 0..%d: %w", name, i+1, v, k-1, learn.ErrBadInput)
		}
	}
	return nil
}

// readProba reads and checks m × k class probabilities (column-major):
// each in [0, 1], each row summing to 1 within learn.ProbaSumTol.
func readProba(path string, m, k int) (*mat.Dense, error) {
	p, err := readMatrix(path, m, k)
	if err != nil {
		return nil, fmt.Errorf("%w (%d test rows × %d classes)", err, m, k)
	}
	base := filepath.Base(path)
	for i := range m {
		sum := 0.0
		for j, v := range p.RawRowView(i) {
			if !(v >= 0 && v <= 1) {
				return nil, fmt.Errorf("%s: probability of class %d on row %d is %v, want a number in [0, 1]", base, j, i+1, v)
			}
			sum += v
		}
		if math.Abs(sum-1) > learn.ProbaSumTol {
			return nil, fmt.Errorf("%s: row %d's probabilities sum to %v, want 1 (within %g)", base, i+1, sum, learn.ProbaSumTol)
		}
	}
	return p, nil
}
