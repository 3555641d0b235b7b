package linear

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// Defaults of Logistic's settings: glm.control's and nnet's.
const (
	DefaultEpsilon    = 1e-8 // glm.control(epsilon)
	DefaultMaxIter    = 25   // glm.control(maxit)
	DefaultMultiMaxIt = 100  // nnet maxit
	DefaultAbsTol     = 1e-4 // nnet abstol
	DefaultRelTol     = 1e-8 // nnet reltol
)

var errNotFinite = fmt.Errorf("linear: the multinomial log-likelihood at the start is not finite: %w", learnerr.ErrNumerical)

// Logistic is logistic regression with an intercept, fitted as R fits
// it:
//
//   - k = 2 classes: glm(y ~ ., family = binomial) — IRLS exactly as
//     glm.fit runs it (starting values from binomial()$initialize,
//     weighted least squares by R's pivoting QR, columns that are
//     collinear within 1e−11 left out with coefficient 0 as glm's NA,
//     stop when |dev − dev_old|/(|dev| + 0.1) < Epsilon, at most MaxIter
//     iterations). The probability of class 1 is glm's fitted μ =
//     logit⁻¹(η); that of class 0 is logit⁻¹(−η), the value glm gives
//     with the classes swapped, not 1 − μ (which loses the digits of μ
//     near 1).
//   - k > 2 classes: nnet::multinom(y ~ .) — a softmax model with class
//     0 as reference, started from all weights 0 and fitted by nnet's
//     BFGS (R's vmmin) with multinom's defaults MultiMaxIt = 100,
//     AbsTol = 1e−4, RelTol = 1e−8, Decay = 0, replaying its arithmetic
//     step for step. Like multinom, this stops early (relative change of
//     the log-likelihood below 1e−8, or 100 iterations): the result is
//     multinom's, not the exact maximum-likelihood estimate.
//
// Separation: on perfectly separated classes glm's iterates diverge; it
// stops by its convergence rule or at MaxIter with fitted probabilities
// numerically 0 or 1 and warns. misslab stops at the same iteration with
// the same coefficients and reports it through ClassModel.Converged and
// ClassModel.Extreme. Probabilities are clipped only as R clips them:
// the inverse logit is pinned to [ε/(1+ε), 1/(1+ε)] for |η| > 30
// (ε = 2⁻⁵²), so binomial probabilities are never 0 or 1; multinomial
// ones can underflow to 0 exactly as multinom's softmax does. No
// prediction is NaN: a linear predictor that overflows to NaN is an
// error (learnerr.ErrNumerical), and ±∞ outputs of the softmax give
// their classes the whole probability.
//
// Differences from R: classes absent from the training rows get
// probability 0 (multinom drops them with a warning; with k = 2 glm
// needs no special case); with k > 2 and only two classes present the
// two are fitted by glm's IRLS (multinom would use nnet's logistic
// BFGS), and with one class present it gets probability 1; there is no
// limit on the number of weights (nnet's MaxNWts = 1000).
//
// Agreement: exp and log are correctly rounded (crExp, crLog), as
// glibc's are for all but about 0.1% of arguments; deviances are summed
// with compensation where R sums in long double; the QR's dot products
// and norms round differently from R's BLAS. On the committed fixtures
// (testdata/make_golden_logistic.R) the largest relative difference from
// R's probabilities is 1.6e−9, on separated classes, where rounding noise
// grows about e-fold per iteration in R as well; elsewhere it is below
// 1e−13, and some multinom fits are bit-identical.
//
// A zero field means its default; negative or NaN settings are errors
// (learnerr.ErrSetting).
type Logistic struct {
	// Epsilon > 0 is glm's relative deviance tolerance (default 1e−8);
	// the QR tolerance is min(1e−7, Epsilon/1000), as in glm.fit.
	Epsilon float64
	// MaxIter ≥ 1 is glm's maximum number of IRLS iterations (default 25).
	MaxIter int
	// MultiMaxIt ≥ 1 is multinom's maximum number of BFGS iterations
	// (gradient evaluations; default 100).
	MultiMaxIt int
	// AbsTol > 0 stops BFGS once the negative log-likelihood is below it
	// (default 1e−4).
	AbsTol float64
	// RelTol > 0 stops BFGS once an accepted step improves the negative
	// log-likelihood by at most RelTol times its value (default 1e−8).
	RelTol float64
	// Decay ≥ 0 is multinom's weight decay: Decay·Σw² over all weights,
	// intercepts included, is added to the negative log-likelihood
	// (default 0). Two-class fits ignore it (glm has no decay).
	Decay float64
}

// withDefaults returns l with zero fields set to their defaults, or an
// error wrapping learnerr.ErrSetting.
func (l Logistic) withDefaults() (Logistic, error) {
	if l.Epsilon == 0 {
		l.Epsilon = DefaultEpsilon
	}
	if l.MaxIter == 0 {
		l.MaxIter = DefaultMaxIter
	}
	if l.MultiMaxIt == 0 {
		l.MultiMaxIt = DefaultMultiMaxIt
	}
	if l.AbsTol == 0 {
		l.AbsTol = DefaultAbsTol
	}
	if l.RelTol == 0 {
		l.RelTol = DefaultRelTol
	}
	for _, v := range []float64{l.Epsilon, l.AbsTol, l.RelTol, l.Decay} {
		if !(v >= 0) || math.IsInf(v, 0) {
			return l, fmt.Errorf("linear: logistic setting %v must be finite and ≥ 0: %w", v, learnerr.ErrSetting)
		}
	}
	if l.MaxIter < 0 || l.MultiMaxIt < 0 {
		return l, fmt.Errorf("linear: iteration limits %d, %d must be ≥ 1: %w", l.MaxIter, l.MultiMaxIt, learnerr.ErrSetting)
	}
	return l, nil
}

// Model kinds.
const (
	kindConstant = iota // one class present
	kindBinomial        // glm IRLS on two classes
	kindSoftmax         // multinom on three or more
)

// ClassModel is a fitted Logistic. It is immutable and safe for
// concurrent use.
type ClassModel struct {
	k, p    int
	kind    int
	present []int     // codes of the classes present in training, ascending
	coef    []float64 // binomial: intercept, then one per column
	weights []float64 // softmax: nnet's weight vector over present classes
	iter    int
	conv    bool
	extreme bool
	value   float64
}

// FitClass fits the model to complete X (n × p) and class codes y
// (float64 values 0, 1, …, k−1) for k ≥ 2 classes. It never consumes
// rng (the fit is deterministic). Errors wrap learnerr.ErrInput (an
// empty X, len(y) ≠ n, NaN or ±Inf, a code that is not an integer in
// [0, k), k < 2), learnerr.ErrSetting (see Logistic) or
// learnerr.ErrNumerical (non-finite coefficients at glm's first
// iteration), or are the context's error.
func (l Logistic) FitClass(ctx context.Context, X *mat.Dense, y []float64, k int, _ *rand.Rand) (*ClassModel, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l, err := l.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := checkFit(X, y); err != nil {
		return nil, err
	}
	cls, present, err := classCodes(y, k)
	if err != nil {
		return nil, err
	}
	n, p := X.Dims()
	m := &ClassModel{k: k, p: p, present: present}
	switch {
	case len(present) == 1:
		m.kind, m.conv = kindConstant, true
	case len(present) == 2:
		m.kind = kindBinomial
		err = m.fitBinomial(ctx, l, X, cls, present[1])
	default:
		m.kind = kindSoftmax
		err = m.fitSoftmax(ctx, l, X, cls, n)
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

// classCodes checks the codes and returns them as ints with the sorted
// list of the classes present.
func classCodes(y []float64, k int) ([]int, []int, error) {
	if k < 2 {
		return nil, nil, fmt.Errorf("linear: %d classes (need at least 2): %w", k, learnerr.ErrInput)
	}
	cls := make([]int, len(y))
	seen := make([]bool, k)
	for i, v := range y {
		if v != math.Trunc(v) || v < 0 || v >= float64(k) {
			return nil, nil, fmt.Errorf("linear: class code y[%d] = %v is not an integer in [0, %d): %w", i, v, k, learnerr.ErrInput)
		}
		cls[i] = int(v)
		seen[cls[i]] = true
	}
	var present []int
	for c, ok := range seen {
		if ok {
			present = append(present, c)
		}
	}
	return cls, present, nil
}

// fitBinomial runs glm's IRLS with class hi as the success.
func (m *ClassModel) fitBinomial(ctx context.Context, l Logistic, X *mat.Dense, cls []int, hi int) error {
	n, p := X.Dims()
	Z := make([]float64, n*(p+1))
	yb := make([]float64, n)
	for i := range n {
		Z[i] = 1
		for j, v := range X.RawRowView(i) {
			Z[(j+1)*n+i] = v
		}
		if cls[i] == hi {
			yb[i] = 1
		}
	}
	fit, err := fitBinomial(ctx, Z, n, p+1, yb, l.Epsilon, l.MaxIter)
	if err != nil {
		return err
	}
	m.coef, m.iter, m.conv, m.extreme, m.value = fit.coef, fit.iter, fit.converged, fit.extreme, fit.deviance
	return nil
}

// fitSoftmax runs multinom's BFGS on the classes present.
func (m *ClassModel) fitSoftmax(ctx context.Context, l Logistic, X *mat.Dense, cls []int, n int) error {
	_, p := X.Dims()
	index := make([]int, m.k)
	for j, c := range m.present {
		index[c] = j
	}
	net := &softmaxNet{n: n, r: p + 1, k: len(m.present), x: make([]float64, n*(p+1)),
		y: make([]int, n), decay: l.Decay}
	net.out = make([]float64, net.k)
	for i := range n {
		net.x[i*(p+1)] = 1
		copy(net.x[i*(p+1)+1:], X.RawRowView(i))
		net.y[i] = index[cls[i]]
	}
	w := make([]float64, net.nweights())
	res, err := bfgs(ctx, net, w, net.free, l.MultiMaxIt, l.AbsTol, l.RelTol)
	if err != nil {
		return err
	}
	m.weights, m.iter, m.conv, m.value = w, res.iter, !res.fail, res.value
	return nil
}

// Classes returns the number of classes k.
func (m *ClassModel) Classes() int { return m.k }

// Converged reports whether the fit met its convergence rule before the
// iteration limit (glm's converged; multinom's convergence == 0).
func (m *ClassModel) Converged() bool { return m.conv }

// Iterations returns glm's IRLS iteration count (k = 2) or the BFGS
// iteration count (gradient evaluations, k > 2).
func (m *ClassModel) Iterations() int { return m.iter }

// Extreme reports whether some fitted training probability is within
// 10ε of 0 or 1: glm's warning "fitted probabilities numerically 0 or 1
// occurred", the mark of (quasi-)separation. Always false for k > 2.
func (m *ClassModel) Extreme() bool { return m.extreme }

// Value returns the fitted objective: glm's residual deviance (k = 2)
// or multinom's value, the negative log-likelihood plus decay (k > 2).
func (m *ClassModel) Value() float64 { return m.value }

// PredictProba returns the n × k matrix of class probabilities for the
// rows of X; each row sums to 1 within a few ulps. Errors wrap
// learnerr.ErrInput (X without the training column count, NaN or ±Inf)
// or learnerr.ErrNumerical (a linear predictor that overflows to NaN),
// or are the context's error.
func (m *ClassModel) PredictProba(ctx context.Context, X *mat.Dense) (*mat.Dense, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if X == nil || X.IsEmpty() {
		return nil, fmt.Errorf("linear: empty prediction matrix: %w", learnerr.ErrInput)
	}
	n, p := X.Dims()
	if p != m.p {
		return nil, fmt.Errorf("linear: X has %d columns, the model was fitted on %d: %w", p, m.p, learnerr.ErrInput)
	}
	out := mat.NewDense(n, m.k, nil)
	for i := range n {
		row := X.RawRowView(i)
		for j, x := range row {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("linear: X[%d][%d] = %v is not finite (impute first): %w", i, j, x, learnerr.ErrInput)
			}
		}
		if err := m.predictRow(row, out.RawRowView(i)); err != nil {
			return nil, fmt.Errorf("linear: row %d: %w", i, err)
		}
	}
	return out, nil
}

var errNaNPredictor = errors.New("the linear predictor overflows to NaN")

// predictRow writes the class probabilities of one row into dst.
func (m *ClassModel) predictRow(x, dst []float64) error {
	switch m.kind {
	case kindConstant:
		dst[m.present[0]] = 1
	case kindBinomial:
		eta := m.coef[0]
		for j, v := range x {
			eta += float64(v * m.coef[j+1])
		}
		if math.IsNaN(eta) {
			return fmt.Errorf("%w: %w", errNaNPredictor, learnerr.ErrNumerical)
		}
		dst[m.present[0]], dst[m.present[1]] = logitInv(-eta), logitInv(eta)
	default:
		return m.predictSoftmax(x, dst)
	}
	return nil
}
