package learn

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Classifier is a classification procedure with fixed hyper-parameters:
// the counterpart of Learner for a target of k classes.
type Classifier interface {
	// FitClass trains on X (n × p, row-major; NaN marks NA where the
	// strategy handles missing values natively) and the n class codes y
	// (values 0..k−1, stored as float64), k ≥ 2. rng is the only source
	// of randomness; it is never nil. FitClass must not retain X or y.
	FitClass(ctx context.Context, X *mat.Dense, y []float64, k int, rng *rand.Rand) (ClassModel, error)
}

// ClassModel is a fitted Classifier.
type ClassModel interface {
	// PredictProba returns the n × k class probabilities of the rows of
	// X (each row sums to 1), which must have the number of columns the
	// model was trained on.
	PredictProba(ctx context.Context, X *mat.Dense) (*mat.Dense, error)
}

// ClassFactory builds a classifier of one family for a pipeline's
// strategy from resolved settings, as Factory builds a learner.
type ClassFactory func(strategy string, s Settings, env Env) (Classifier, error)

// Classifies reports whether a pipeline with resolved settings rs (nil:
// the family's defaults) can run a classification task: its learner
// family registers a classifier and accepts the settings for
// classification, or its learner is an external method that declares
// classification (methodid.Method.Classifies; an unbound one passes, and
// is checked again once bound). An external imputer never sees the
// target, so it serves classification as it does regression. The error
// wraps ErrNotImplemented or ErrBadSetting and says why.
func Classifies(spec Spec, rs Settings) error {
	switch {
	case spec.Learner == Bayes:
		return nil // the runner evaluates the oracle from the true law
	case spec.LearnerMethod.External():
		return methodClassifies(spec)
	}
	fam, err := family(spec.Learner)
	if err != nil {
		return err
	}
	if fam.NewClass == nil {
		return fmt.Errorf("%w: learner %q has no classification mode yet", ErrNotImplemented, spec.Learner)
	}
	if fam.ClassCheck != nil && rs != nil {
		if err := fam.ClassCheck(rs); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrBadSetting, spec.Name(), err)
		}
	}
	return nil
}

// newClassifier builds the classifier of spec from resolved settings.
func newClassifier(spec Spec, rs Settings, env Env) (Classifier, error) {
	if err := Classifies(spec, rs); err != nil {
		return nil, err
	}
	fam, _ := family(spec.Learner)
	own := Settings{}
	for _, p := range fam.Params {
		own[p.Key] = rs[p.Key]
	}
	if env.Threads <= 0 {
		env.Threads = 1
	}
	strategy := spec.Strategy
	if spec.ImputerMethod.External() {
		strategy = Mean // any imputer: the classifier gets complete data (as newLearner)
	}
	c, err := fam.NewClass(strategy, own, env)
	if err != nil {
		return nil, fmt.Errorf("learn: building %s: %w", spec.Name(), err)
	}
	return c, nil
}

// checkClasses validates class codes for k classes.
func checkClasses(y []float64, k int) error {
	if k < 2 {
		return fmt.Errorf("%w: %d classes; a classification task needs 2 or more", ErrBadInput, k)
	}
	for i, v := range y {
		if v != math.Trunc(v) || v < 0 || v >= float64(k) {
			return fmt.Errorf("%w: y[%d] = %v is not a class code in 0..%d", ErrBadInput, i, v, k-1)
		}
	}
	return nil
}

// probaSumTol bounds |Σ_j p_ij − 1|: XGBoost's softmax (multi:softprob)
// runs in float32, so its rows sum to 1 only within float32 rounding
// (seen up to 7e−8 for three classes); misslab keeps its probabilities
// bit-identical rather than renormalising them.
const probaSumTol = 1e-6

// checkProba checks a classifier's n × k probabilities.
func checkProba(p *mat.Dense, n, k int) error {
	if p == nil {
		return fmt.Errorf("no probabilities")
	}
	if r, c := p.Dims(); r != n || c != k {
		return fmt.Errorf("%d × %d probabilities for %d rows of %d classes", r, c, n, k)
	}
	for i := range n {
		sum := 0.0
		for j, v := range p.RawRowView(i) {
			if !(v >= 0 && v <= 1) {
				return fmt.Errorf("probability %v of class %d on row %d", v, j, i)
			}
			sum += v
		}
		if math.Abs(sum-1) > probaSumTol {
			return fmt.Errorf("row %d's probabilities sum to %v", i, sum)
		}
	}
	return nil
}
