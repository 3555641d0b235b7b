package learn

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// ErrNotImplemented is wrapped by errors for a learner family that spec.go
// names but no package implements yet. The message names the learner and
// the available ones.
var ErrNotImplemented = learnerr.ErrNotImplemented

// Env holds worker-side execution knobs. They never change results: a
// pipeline fitted with any Env on the same data and random source gives
// the same predictions.
type Env struct {
	// Threads is the number of threads a learner may use; ≤ 0 means 1.
	Threads int
	// Methods runs the external methods a pipeline names (see
	// methodid.Method); nil where none can run, and building such a
	// pipeline then fails with ErrNotImplemented naming the method.
	Methods MethodRunner
	// Classes is the number of classes of a classification task (k ≥ 2),
	// 0 for regression: the pipeline then fits a Classifier (FitClass)
	// instead of a Learner.
	Classes int
}

// Factory builds a learner of one family for a pipeline's strategy from
// resolved settings: s holds exactly the family's Params keys, with
// defaults, presets and overrides applied and ranges already checked.
// When Native(strategy) is false the learner only ever receives
// complete data (imputed or ±∞-duplicated) and should use its
// no-missing mode; otherwise it handles NaN with that strategy.
type Factory func(strategy string, s Settings, env Env) (Learner, error)

// Family registers one learner family.
type Family struct {
	// Params are the family's setting keys; any other learner key is
	// rejected with ErrBadSetting before New runs.
	Params []Param
	// Presets are named bundles of Params values, switched on by a
	// setting key equal to the name with value 1 (see Settings).
	Presets map[string]Settings
	// New builds the learner.
	New Factory
	// NewClass builds the family's classifier, with the same Params and
	// Presets; nil for a family without a classification mode.
	NewClass ClassFactory
	// ClassCheck, when set, says why resolved settings have no
	// classification meaning (a regression-only setting moved from its
	// default); nil accepts every setting.
	ClassCheck func(Settings) error
}

// Implemented returns the registered learner families in the order of
// Learners.
func Implemented() []string {
	var out []string
	for _, l := range Learners {
		if _, ok := families[l]; ok {
			out = append(out, l)
		}
	}
	return out
}

// ParamsOf returns the setting keys of a learner family, or an error
// wrapping ErrNotImplemented.
func ParamsOf(learner string) ([]Param, error) {
	f, err := family(learner)
	if err != nil {
		return nil, err
	}
	return slices.Clone(f.Params), nil
}

// Native reports whether a strategy lets the learner see NaN (mia,
// surrogate, block, prob, majority) rather than complete data.
func Native(strategy string) bool {
	return strategy != MIAInf && strategy != Oracle && !slices.Contains(imputers, strategy)
}

// NewLearner resolves s for spec and builds the learner alone (no
// imputer or mask). Errors wrap ErrBadSetting, ErrNotImplemented or the
// factory's own error.
func NewLearner(spec Spec, s Settings, env Env) (Learner, error) {
	rs, err := ResolveSettings(spec, s)
	if err != nil {
		return nil, err
	}
	return newLearner(spec, rs, env)
}

// newLearner builds the learner from resolved settings.
func newLearner(spec Spec, rs Settings, env Env) (Learner, error) {
	fam, err := family(spec.Learner)
	if err != nil {
		return nil, err
	}
	own := Settings{}
	for _, p := range fam.Params {
		own[p.Key] = rs[p.Key]
	}
	if env.Threads <= 0 {
		env.Threads = 1
	}
	strategy := spec.Strategy
	if spec.ImputerMethod.External() {
		strategy = Mean // any imputer: the learner gets complete data
	}
	l, err := fam.New(strategy, own, env)
	if err != nil {
		return nil, fmt.Errorf("learn: building %s: %w", spec.Name(), err)
	}
	return l, nil
}

// family looks a learner family up.
func family(learner string) (Family, error) {
	f, ok := families[learner]
	if !ok {
		avail := slices.Sorted(maps.Keys(families))
		return Family{}, fmt.Errorf("%w: learner %q is not available yet (available: %s)",
			ErrNotImplemented, learner, strings.Join(avail, ", "))
	}
	return f, nil
}
