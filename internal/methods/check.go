package methods

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn"
)

// checkCall checks the parts of a call that every method takes.
func checkCall(call learn.MethodCall) error {
	name := call.Method.Name
	if call.Seed < 0 || call.Seed >= maxSeed {
		return fmt.Errorf("%s: seed %d outside [0, 2^31-1): %w", name, call.Seed, learn.ErrBadInput)
	}
	if call.Threads < 1 {
		return fmt.Errorf("%s: threads = %d, want ≥ 1: %w", name, call.Threads, learn.ErrBadInput)
	}
	for _, k := range slices.Sorted(maps.Keys(call.Settings)) {
		if v := call.Settings[k]; math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s: setting %s = %v is not a finite number: %w", name, k, v, learn.ErrBadSetting)
		}
	}
	return nil
}

// checkLearnerInput checks the data of a FitPredict call: shapes, finite
// targets, no ±Inf, and NaN only when the method accepts missing values.
func checkLearnerInput(call learn.MethodCall, acceptsNA bool, X *mat.Dense, y []float64, Xtest *mat.Dense) error {
	if err := checkCall(call); err != nil {
		return err
	}
	name := call.Method.Name
	if err := checkShapes(name, X, Xtest); err != nil {
		return err
	}
	if n, _ := X.Dims(); len(y) != n {
		return fmt.Errorf("%s: %d targets for %d rows: %w", name, len(y), n, learn.ErrBadInput)
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s: target %d is %v: %w", name, i+1, v, learn.ErrBadInput)
		}
	}
	for _, m := range []struct {
		what string
		x    *mat.Dense
	}{{"X", X}, {"Xtest", Xtest}} {
		if err := checkValues(name, m.what, m.x, acceptsNA); err != nil {
			return err
		}
	}
	return nil
}

// checkImputerInput checks the data of an Impute call: shapes and no ±Inf.
func checkImputerInput(call learn.MethodCall, X, Xtest *mat.Dense) error {
	if err := checkCall(call); err != nil {
		return err
	}
	name := call.Method.Name
	if err := checkShapes(name, X, Xtest); err != nil {
		return err
	}
	if err := checkValues(name, "X", X, true); err != nil {
		return err
	}
	return checkValues(name, "Xtest", Xtest, true)
}

// checkShapes checks that X and Xtest are non-empty with as many columns.
func checkShapes(name string, X, Xtest *mat.Dense) error {
	if X == nil || X.IsEmpty() || Xtest == nil || Xtest.IsEmpty() {
		return fmt.Errorf("%s: empty X or Xtest: %w", name, learn.ErrBadInput)
	}
	if _, d := X.Dims(); d != Xtest.RawMatrix().Cols {
		return fmt.Errorf("%s: Xtest has %d columns, X has %d: %w", name, Xtest.RawMatrix().Cols, d, learn.ErrBadInput)
	}
	return nil
}

// checkValues refuses ±Inf, and NaN unless nanOK.
func checkValues(name, what string, x *mat.Dense, nanOK bool) error {
	raw := x.RawMatrix()
	for i := 0; i < raw.Rows; i++ {
		for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
			if math.IsInf(v, 0) || (!nanOK && math.IsNaN(v)) {
				return fmt.Errorf("%s: %s entry (%d, %d) is %v: %w", name, what, i+1, j+1, v, learn.ErrBadInput)
			}
		}
	}
	return nil
}
