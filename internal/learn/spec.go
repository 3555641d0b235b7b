package learn

import (
	"fmt"
	"slices"
	"strings"

	"github.com/misslab/misslab/internal/learn/learnerr"
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

var imputers = []string{Mean, Median, Constant, OOR, Gaussian}

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

// Spec is a parsed pipeline name such as "tree/surrogate+mask".
type Spec struct {
	Learner  string
	Strategy string
	Mask     bool
}

// Name returns the canonical pipeline name, the inverse of ParseSpec.
func (s Spec) Name() string {
	n := s.Learner + "/" + s.Strategy
	if s.Mask {
		n += MaskSuffix
	}
	return n
}

// Imputes reports whether the strategy is an imputer run before the learner.
func (s Spec) Imputes() bool { return slices.Contains(imputers, s.Strategy) }

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
