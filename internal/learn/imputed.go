package learn

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// EstimatesValues reports whether strategy s replaces a missing entry by
// an estimate of its value (mean, median, constant, gaussian, iterative,
// knn, an external imputer), so that
// the imputed value can be compared with the truth. The out-of-range
// constant and MIA's ±∞ duplication are encodings of missingness, not
// estimates, and native strategies impute nothing.
func (s Spec) EstimatesValues() bool {
	if s.ImputerMethod.External() {
		return true // an external imputer's job is to estimate values
	}
	switch s.Strategy {
	case Mean, Median, Constant, Gaussian, Iterative, KNNImpute:
		return true
	}
	return false
}

// Impute applies the fitted imputer alone to X (n × d, the training
// column count, NaN for NA) and returns the d input columns as the
// learner sees them, NA replaced by the imputer's values. ok is false,
// with a nil matrix, when the strategy does not estimate values (see
// Spec.EstimatesValues). Impute is for measuring imputation quality; it
// does not change the fitted pipeline.
func (f *Fitted) Impute(X *mat.Dense) (imputed *mat.Dense, ok bool, err error) {
	if !f.spec.EstimatesValues() || f.imp == nil {
		return nil, false, nil
	}
	if err := checkX(X); err != nil {
		return nil, false, fmt.Errorf("%s: %w", f.spec.Name(), err)
	}
	if _, d := X.Dims(); d != f.d {
		return nil, false, fmt.Errorf("%s: %w: X has %d columns, the pipeline was fitted on %d", f.spec.Name(), ErrBadInput, d, f.d)
	}
	Xt, err := f.imp.Transform(X)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", f.spec.Name(), err)
	}
	if _, c := Xt.Dims(); c != f.d {
		return nil, false, fmt.Errorf("%s: the imputer returned %d columns for %d", f.spec.Name(), c, f.d)
	}
	return Xt, true, nil
}
