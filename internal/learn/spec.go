package learn

import (
	"fmt"
	"slices"
	"strings"

	"github.com/misslab/misslab/internal/learn/learnerr"
	"github.com/misslab/misslab/internal/methodid"
)

// ErrUnknownPipeline is wrapped by errors for pipeline names that do not
// parse or name an invalid learner/strategy pair.
var ErrUnknownPipeline = learnerr.ErrPipeline

// Learner families.
const (
	Tree   = "tree"   // CART with rpart semantics (internal/learn/tree)
	CTree  = "ctree"  // conditional inference tree, partykit semantics
	Forest = "forest" // random forest, ranger defaults
	Boost  = "boost"  // gradient boosting, XGBoost exact method
	SVM    = "svm"    // epsilon-SVR, e1071/libsvm defaults
	KNN    = "knn"    // k nearest neighbours, caret knnreg
	LinReg = "linear" // least squares with a small ridge
	Bayes  = "bayes"  // the oracle Bayes predictor of the simulation core
)

// Missing-value strategies. Imputers replace NA before the learner sees
// the data; native strategies let the learner handle NA itself.
const (
	Mean      = "mean"      // impute training-set column means
	Median    = "median"    // impute training-set column medians
	Constant  = "constant"  // impute a constant (setting "value", default 0)
	OOR       = "oor"       // impute a constant out of the training range
	Gaussian  = "gaussian"  // EM Gaussian conditional expectation
	Iterative = "iterative" // scikit-learn's IterativeImputer (chained Bayesian ridge)
	KNNImpute = "knn"       // scikit-learn's KNNImputer (mean of the k nearest donors)
	MIA       = "mia"       // missing incorporated in attribute, native
	MIAInf    = "mia-inf"   // MIA as ±∞ column duplication (preprocessing)
	Surrogate = "surrogate" // rpart surrogate splits
	Block     = "block"     // block propagation (LightGBM style)
	Prob      = "prob"      // probabilistic split (C4.5 style)
	Majority  = "majority"  // NA to the larger child
	Oracle    = "oracle"    // only for the bayes pseudo-learner
)

// MaskSuffix appended to a pipeline name adds the missingness indicators
// of the incomplete training columns as extra features.
const MaskSuffix = "+mask"

var imputers = []string{Mean, Median, Constant, OOR, Gaussian, Iterative, KNNImpute}

// strategies lists, per learner, the strategies it accepts.
var strategies = map[string][]string{
	Tree:   append([]string{MIA, MIAInf, Surrogate, Block, Prob, Majority}, imputers...),
	CTree:  append([]string{Majority, Surrogate}, imputers...),
	Forest: append([]string{MIA, MIAInf}, imputers...),
	Boost:  append([]string{MIA, MIAInf}, imputers...),
	SVM:    imputers,
	KNN:    imputers,
	LinReg: imputers,
	Bayes:  {Oracle},
}

// Learners lists every learner family in a stable order.
var Learners = []string{Tree, CTree, Forest, Boost, SVM, KNN, LinReg, Bayes}

// Strategies returns the strategies learner accepts, in a stable order,
// or nil for an unknown learner.
func Strategies(learner string) []string {
	return slices.Clone(strategies[learner])
}

// Spec is a parsed pipeline name such as "tree/surrogate+mask" or, with
// external methods (see methodid.Method), "hgb/native" or
// "tree/sk_iterative+mask".
type Spec struct {
	Learner  string
	Strategy string
	Mask     bool
	// LearnerMethod describes Learner when it names an external learner,
	// ImputerMethod Strategy when it names an external imputer; both are
	// zero for built-in components.
	LearnerMethod, ImputerMethod methodid.Method
}

// Name returns the canonical pipeline name, the inverse of ParseSpec.
func (s Spec) Name() string {
	n := s.Learner + "/" + s.Strategy
	if s.Mask {
		n += MaskSuffix
	}
	return n
}

// Imputes reports whether the strategy is an imputer run before the
// learner (built in or external).
func (s Spec) Imputes() bool {
	return slices.Contains(imputers, s.Strategy) || s.ImputerMethod.External()
}

// External reports whether the pipeline runs an external method.
func (s Spec) External() bool { return s.LearnerMethod.External() || s.ImputerMethod.External() }

// Methods returns the pipeline's external methods: the learner's first.
func (s Spec) Methods() []methodid.Method {
	var out []methodid.Method
	for _, m := range []methodid.Method{s.LearnerMethod, s.ImputerMethod} {
		if m.External() {
			out = append(out, m)
		}
	}
	return out
}

// ParseSpec parses and validates a pipeline name of the form
// learner/strategy[+mask]. Errors wrap ErrUnknownPipeline and say which
// strategies the learner accepts.
func ParseSpec(name string) (Spec, error) {
	learner, rest, ok := strings.Cut(name, "/")
	if !ok {
		return Spec{}, fmt.Errorf("%w: %q is not of the form learner/strategy[+mask]", ErrUnknownPipeline, name)
	}
	sp := Spec{Learner: learner}
	sp.Strategy, sp.Mask = strings.CutSuffix(rest, MaskSuffix)
	valid, known := strategies[learner]
	if !known {
		return Spec{}, fmt.Errorf("%w: learner %q in %q is unknown (known: %s)",
			ErrUnknownPipeline, learner, name, strings.Join(Learners, ", "))
	}
	if !slices.Contains(valid, sp.Strategy) {
		return Spec{}, fmt.Errorf("%w: learner %q does not support strategy %q in %q (supported: %s)",
			ErrUnknownPipeline, learner, sp.Strategy, name, strings.Join(valid, ", "))
	}
	if sp.Learner == Bayes && sp.Mask {
		return Spec{}, fmt.Errorf("%w: %q: the bayes oracle takes no mask", ErrUnknownPipeline, name)
	}
	return sp, nil
}

// MethodLookup resolves a name that is neither a built-in learner nor a
// built-in strategy to an external method (ok false: unknown). The
// returned method may be unbound (ID empty), as when a grid declares
// the methods it uses before the coordinator binds them.
type MethodLookup func(name string) (m methodid.Method, ok bool)

// externalStrategies are the built-in strategies an external learner
// accepts besides NativeNA and external imputers.
var externalStrategies = append([]string{MIAInf}, imputers...)

// ParseSpecWith is ParseSpec where a learner or strategy name that is not
// built in may name an external method found by lookup: an external
// learner takes NativeNA, mia-inf, a built-in imputer or an external
// imputer; a built-in learner that accepts imputers also takes an
// external imputer. NativeNA is refused for a bound learner whose
// AcceptsMissing is false (see CheckMethods). Errors wrap
// ErrUnknownPipeline and name what is wrong.
func ParseSpecWith(name string, lookup MethodLookup) (Spec, error) {
	if lookup == nil {
		return ParseSpec(name)
	}
	learner, rest, ok := strings.Cut(name, "/")
	if !ok {
		return Spec{}, fmt.Errorf("%w: %q is not of the form learner/strategy[+mask]", ErrUnknownPipeline, name)
	}
	if _, builtin := strategies[learner]; builtin {
		return parseExternalImputer(name, lookup)
	}
	m, found := lookup(learner)
	if !found {
		return Spec{}, fmt.Errorf("%w: learner %q in %q is neither built in (%s) nor a method the sweep lists",
			ErrUnknownPipeline, learner, name, strings.Join(Learners, ", "))
	}
	if m.Kind != methodid.Learner && m.Kind != "" {
		return Spec{}, fmt.Errorf("%w: %q in %q is an external %s, not a learner", ErrUnknownPipeline, learner, name, m.Kind)
	}
	m.Kind = methodid.Learner
	sp := Spec{Learner: learner, LearnerMethod: m}
	sp.Strategy, sp.Mask = strings.CutSuffix(rest, MaskSuffix)
	if sp.Strategy != NativeNA && !slices.Contains(externalStrategies, sp.Strategy) {
		im, found := lookup(sp.Strategy)
		if !found || (im.Kind != methodid.Imputer && im.Kind != "") {
			return Spec{}, fmt.Errorf("%w: external learner %q in %q takes %s, %s or an external imputer the sweep lists, not %q",
				ErrUnknownPipeline, learner, name, NativeNA, strings.Join(externalStrategies, ", "), sp.Strategy)
		}
		im.Kind = methodid.Imputer
		sp.ImputerMethod = im
	}
	return sp, sp.CheckMethods()
}

// parseExternalImputer parses a built-in learner's pipeline whose
// strategy may be an external imputer.
func parseExternalImputer(name string, lookup MethodLookup) (Spec, error) {
	sp, err := ParseSpec(name)
	if err == nil {
		return sp, nil
	}
	learner, rest, _ := strings.Cut(name, "/")
	strategy, mask := strings.CutSuffix(rest, MaskSuffix)
	m, found := lookup(strategy)
	if !found || (m.Kind != methodid.Imputer && m.Kind != "") || !slices.Contains(strategies[learner], Mean) {
		return Spec{}, err
	}
	m.Kind = methodid.Imputer
	return Spec{Learner: learner, Strategy: strategy, Mask: mask, ImputerMethod: m}, nil
}

// CheckMethods reports a bound external learner run natively
// (NativeNA) although its methods file says accepts_missing = false, and
// a method whose tasks are not a canonical methodid.Tasks (or are set on
// an imputer). Whether a learner declares the sweep's task is checked by
// Classifies and Regresses.
func (s Spec) CheckMethods() error {
	m := s.LearnerMethod
	if s.Strategy == NativeNA && m.ID != "" && !m.AcceptsMissing {
		return fmt.Errorf("%w: %q: method %q does not accept missing values (accepts_missing = false in its methods file): put an imputer before it",
			ErrUnknownPipeline, s.Name(), m.Name)
	}
	if err := m.Tasks.Check(); err != nil {
		return fmt.Errorf("%w: %q: method %q: %w", ErrUnknownPipeline, s.Name(), m.Name, err)
	}
	if im := s.ImputerMethod; im.Tasks != methodid.TasksRegression {
		return fmt.Errorf("%w: %q: imputer %q declares tasks %q; only learners declare tasks", ErrUnknownPipeline, s.Name(), im.Name, im.Tasks)
	}
	return nil
}
