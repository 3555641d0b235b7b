package svm

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// Classifier is C-classification with the radial kernel exp(−γ‖u−v‖²),
// reproducing e1071 1.7-13 svm(x, factor(y), probability = TRUE)
// (libsvm 3.23 inside) with its defaults. Its zero value is e1071's
// defaults: a zero Cost, Tolerance or CacheMB selects DefaultCost,
// DefaultTolerance or DefaultCacheMB, and a zero Gamma selects 1/p.
//
//   - X is scaled as Regressor scales it (R's scale() on the training
//     rows, nothing at all when some column is constant); the class codes
//     are not.
//   - Classes are ordered as libsvm orders them, by their first
//     occurrence in y (ClassModel.Labels). Each pair of classes (i, j),
//     i < j in that order, gets a two-class C-SVC trained on the rows of
//     both classes, class i's first (label +1), each class in data order,
//     by the SMO solver that Regressor uses on libsvm's C-SVC dual
//     Q_st = y_s·y_t·K_st: support vectors, coefficients, ρ and decision
//     values are libsvm's (one-vs-one; k(k−1)/2 pairs for k classes).
//   - Probabilities are libsvm's with probability = TRUE: each pair's
//     decision function is mapped to a probability by Platt's sigmoid
//     1/(1 + exp(A·f + B)), with A and B fitted (libsvm's sigmoid_train:
//     Newton's method with backtracking, Lin, Lin and Weng's targets) to
//     decision values from a 5-fold cross-validation of that pair
//     (libsvm's svm_binary_svc_probability). The pairwise probabilities,
//     clipped to [10⁻⁷, 1 − 10⁻⁷], are the class probabilities when there
//     are two classes and are otherwise coupled by the second method of
//     Wu, Lin and Weng (2004) (libsvm's multiclass_probability).
//
// On the fixtures of testdata/make_class_golden.R (2 to 4 classes, an
// absent code, a constant column, 7 to 1000 rows) the support vectors,
// their coefficients and ρ are e1071's, decision values agree to 4e-15,
// and with e1071's own unif_rand() values fed to the shuffle the
// sigmoids and probabilities agree to 5e-16. The kernel's exp is the
// table-driven one Regressor uses and the sigmoids use Go's math.Exp and
// math.Log, each within about an ulp of glibc's.
//
// # Seeding of the cross-validation
//
// libsvm shuffles a pair's l rows before cutting the folds; e1071 draws
// the shuffle from R's unif_rand(). FitClass draws it from rng instead,
// and from nothing else: for each pair in libsvm's order it takes l
// values u_0, …, u_{l−1} = rng.Float64() in turn and, for i = 0, …, l−1,
// swaps positions i and i + (⌊u_i·(l−i)⌋ mod (l−i)) of the identity
// permutation (e1071's loop with unif_rand() replaced by rng.Float64());
// fold f = 0..4 holds the shuffled positions ⌊f·l/5⌋ to ⌊(f+1)·l/5⌋ − 1.
// A fit therefore consumes exactly Σ l over the pairs values of rng (l =
// n for two classes) and nothing when only one class occurs. Fed R's
// unif_rand() sequence, it reproduces e1071's probabilities; with rng the
// probabilities follow the same distribution over seeds, not e1071's
// values for any R seed.
//
// # Differences from e1071
//
// Codes below k that never occur in y get probability 0 (e1071 drops
// unused levels from its probabilities); when only one class occurs the
// model predicts it with probability 1 (libsvm trains nothing and e1071
// refuses to predict). Class weights, the nu, linear, polynomial and
// sigmoid variants, and e1071's fitted values are not offered; the
// internal cross-validation is not parallel.
type Classifier struct {
	// Cost is the box constraint C ≥ 0 (e1071's cost); 0 selects
	// DefaultCost.
	Cost float64
	// Gamma ≥ 0 is the kernel width γ on the scaled columns (e1071's
	// gamma); 0 selects 1/p, p the number of columns given to FitClass,
	// as e1071.
	Gamma float64
	// Tolerance ≥ 0 stops SMO when the maximal KKT violation is below it
	// (e1071's tolerance); 0 selects DefaultTolerance.
	Tolerance float64
	// CacheMB ≥ 0 bounds each solver's kernel-row cache in MiB (e1071's
	// cachesize); 0 selects DefaultCacheMB. It changes the running time,
	// never the result.
	CacheMB float64
	// NoShrinking disables libsvm's shrinking heuristic (e1071 shrinking
	// = FALSE).
	NoShrinking bool
	// NoScale disables the scaling of X (e1071 scale = FALSE).
	NoScale bool
}

// ClassifierFromSettings builds a Classifier from grid settings
// overriding e1071's defaults: "cost" (> 0), "gamma" (≥ 0, 0 for 1/p),
// "tolerance" (> 0) and "cachesize" (MiB, > 0). "epsilon", the
// regression family's tube width, is accepted and ignored, as e1071
// ignores it for C-classification. Unknown keys and invalid values are
// errors wrapping learnerr.ErrSetting.
func ClassifierFromSettings(s map[string]float64) (Classifier, error) {
	c := Classifier{Cost: DefaultCost, Tolerance: DefaultTolerance, CacheMB: DefaultCacheMB}
	for _, key := range slices.Sorted(maps.Keys(s)) {
		v := s[key]
		switch key {
		case "cost":
			c.Cost = v
		case "gamma":
			c.Gamma = v
		case "tolerance":
			c.Tolerance = v
		case "cachesize":
			c.CacheMB = v
		case "epsilon":
		default:
			return Classifier{}, fmt.Errorf("svm: unknown classification setting %q (known: cachesize, cost, epsilon, gamma, tolerance): %w",
				key, learnerr.ErrSetting)
		}
	}
	for key, v := range map[string]float64{"cost": c.Cost, "tolerance": c.Tolerance, "cachesize": c.CacheMB} {
		if v == 0 {
			return Classifier{}, fmt.Errorf("svm: %s = 0 must be positive: %w", key, learnerr.ErrSetting)
		}
	}
	_, err := c.params()
	return c, err
}

// params resolves the zero values to the defaults and validates the
// result as regression Params (Epsilon unused).
func (c Classifier) params() (Params, error) {
	p := Params{Cost: c.Cost, Gamma: c.Gamma, Tolerance: c.Tolerance, CacheMB: c.CacheMB,
		NoShrinking: c.NoShrinking, NoScale: c.NoScale}
	if p.Cost == 0 {
		p.Cost = DefaultCost
	}
	if p.Tolerance == 0 {
		p.Tolerance = DefaultTolerance
	}
	if p.CacheMB == 0 {
		p.CacheMB = DefaultCacheMB
	}
	return p, p.validate()
}

// FitClass trains the one-vs-one classifier with Platt-scaled
// probabilities (see Classifier) on X (n × p, finite) and the class
// codes y (n values in 0, 1, …, k−1; not every code need occur), k ≥ 2.
// rng is the only source of randomness, consumed as Classifier's section
// on seeding says; it must not be nil. FitClass does not retain X or y.
// Errors wrap learnerr.ErrSetting (negative or non-finite settings, k <
// 2) or learnerr.ErrInput (an empty X, len(y) ≠ n, a code that is not
// an integer in [0, k), NaN or ±Inf in X, a nil rng), or are the
// context's error.
func (c Classifier) FitClass(ctx context.Context, X *mat.Dense, y []float64, k int, rng *rand.Rand) (*ClassModel, error) {
	if rng == nil {
		return nil, fmt.Errorf("svm: nil random source: %w", learnerr.ErrInput)
	}
	return c.fitClass(ctx, X, y, k, rng.Float64)
}

// fitClass is FitClass with the uniform draws of the shuffles coming
// from draw.
func (c Classifier) fitClass(ctx context.Context, X *mat.Dense, y []float64, k int, draw func() float64) (*ClassModel, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	prm, err := c.params()
	if err != nil {
		return nil, err
	}
	if k < 2 {
		return nil, fmt.Errorf("svm: %d classes, a classifier needs at least 2: %w", k, learnerr.ErrSetting)
	}
	x, n, p, err := flatten(X, "training")
	if err != nil {
		return nil, err
	}
	if err := checkCodes(y, n, k); err != nil {
		return nil, err
	}
	m := &ClassModel{k: k, p: p, gamma: prm.Gamma}
	if m.gamma == 0 {
		m.gamma = 1 / float64(p)
	}
	if !prm.NoScale {
		m.xCenter, m.xScale = scaleColumns(x, n, p)
	}
	tr := &trainer{ctx: ctx, x: x, p: p, gamma: m.gamma, prm: prm}
	if err := m.train(tr, groupClasses(y), draw); err != nil {
		return nil, err
	}
	return m, nil
}

// checkCodes checks that y holds n class codes in [0, k).
func checkCodes(y []float64, n, k int) error {
	if len(y) != n {
		return fmt.Errorf("svm: %d class codes for %d training rows: %w", len(y), n, learnerr.ErrInput)
	}
	for i, v := range y {
		if !(v >= 0 && v < float64(k)) || v != math.Trunc(v) {
			return fmt.Errorf("svm: class y[%d] = %v is not a code in [0, %d): %w", i, v, k, learnerr.ErrInput)
		}
	}
	return nil
}
