package learn

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/misslab/misslab/internal/learn/impute"
	"github.com/misslab/misslab/internal/learn/learnerr"
	"github.com/misslab/misslab/internal/methodid"
)

// ErrBadSetting is wrapped by errors for a setting key a pipeline does not
// accept, a value outside its range, a non-integer value for an integer
// key, or a preset switch other than 0 or 1. The message names the key,
// the pipeline and the allowed keys or range.
var ErrBadSetting = learnerr.ErrSetting

// Settings are the hyper-parameter overrides of one pipeline, keyed by
// name, as a grid file writes them (e.g. {"minbucket": 7, "cp": 0.01}).
// Keys belong either to the learner family (see Family.Params) or to the
// strategy (StrategyParams: "value" for constant, "oor_k" for oor,
// "shrink", "em_tol", "em_maxiter" for gaussian, "iterative_maxiter",
// "iterative_tol" for iterative, "knn_k" for knn). A strategy's keys
// carry its name or a prefix of its own because they share one namespace
// with the learner's: "k" is the KNN learner's, and "max_iter" and
// "tol" are keys an external learner such as scikit-learn's
// HistGradientBoosting takes, which a built-in strategy's keys would
// capture (see MethodSettings).
//
// A key naming one of the family's presets (Family.Presets) is a switch:
// value 1 applies the preset's bundle of values, 0 does nothing. For
// example {"rpart_defaults": 1} selects rpart.control()'s own defaults
// for a tree instead of the paper's controls, and {"rpart_defaults": 1,
// "cp": 0} does so with cp overridden: explicit keys always win over a
// preset, whatever the order. At most one preset may be switched on.
type Settings map[string]float64

// Param describes one setting key: its default, inclusive range and
// whether it must be an integer.
type Param struct {
	Key      string
	Default  float64
	Min, Max float64 // inclusive bounds; the value must also be finite
	Integer  bool
	// Optional keys have no default: they are absent from resolved
	// settings unless given, and their absence selects a documented rule
	// (e.g. oor_k; Default is then unused).
	Optional bool
	Doc      string // one line: meaning and units
}

// StrategyParams lists the settings each strategy accepts, in addition
// to its learner's; strategies without settings are absent.
var StrategyParams = map[string][]Param{
	Constant: {{Key: "value", Default: 0, Min: -1e300, Max: 1e300,
		Doc: "the imputed constant"}},
	// oor_k states the out-of-range convention (see impute.OOR). Absent,
	// column j is filled with the paper code's constant
	// max(999999, max_j + 3·(max_j − min_j + 1)); given, with
	// max_j + oor_k·(max_j − min_j) (a constant column's range counts as
	// max(1, |max_j|)) and no floor.
	OOR: {{Key: "oor_k", Optional: true, Min: 0, Max: 1e9,
		Doc: "OOR fill = max + oor_k·(max − min) per column; absent: the paper's constant 999999"}},
	Gaussian: {
		{Key: "shrink", Default: impute.DefaultShrink, Min: 0, Max: 1,
			Doc: "covariance shrinkage s: (1−s)Σ + s·tr(Σ)·I (paper: 0.01)"},
		{Key: "em_tol", Default: impute.DefaultTol, Min: 1e-15, Max: 0.1,
			Doc: "EM stops when no parameter moves by more than this (data scale)"},
		{Key: "em_maxiter", Default: impute.DefaultMaxIter, Min: 1, Max: 1e6, Integer: true,
			Doc: "EM iteration cap"},
	},
	// scikit-learn's IterativeImputer max_iter and tol.
	Iterative: {
		{Key: "iterative_maxiter", Default: impute.DefaultIterativeMaxIter, Min: 1, Max: 1e4, Integer: true,
			Doc: "rounds of chained regressions, at most (scikit-learn max_iter)"},
		{Key: "iterative_tol", Default: impute.DefaultIterativeTol, Min: 1e-15, Max: 1,
			Doc: "stop when a round changes no row by more than this × max |observed| in sum (scikit-learn tol)"},
	},
	// scikit-learn's KNNImputer n_neighbors.
	KNNImpute: {{Key: "knn_k", Default: impute.DefaultKNNK, Min: 1, Max: 1e6, Integer: true,
		Doc: "donors averaged per missing entry (scikit-learn n_neighbors)"}},
}

// Clone returns a copy of s (nil for nil).
func (s Settings) Clone() Settings { return maps.Clone(s) }

// Int returns s[key] as an int; for resolved settings of an integer key
// the conversion is exact.
func (s Settings) Int(key string) int { return int(s[key]) }

// String returns the settings sorted by key, e.g. "{cp=0.01,minbucket=7}",
// with the number formatting of grid.Pipeline.Canonical.
func (s Settings) String() string {
	keys := slices.Sorted(maps.Keys(s))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + strconv.FormatFloat(s[k], 'g', -1, 64)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// ResolveSettings validates s for the pipeline spec and returns the
// effective settings: every key of the learner family and of the
// strategy with its default (except Optional keys), then the preset
// switched on (if any), then the explicit values of s. Preset switches do
// not appear in the result. The bayes oracle accepts no settings.
//
// Every bad key is reported, not just the first: the error joins (with
// errors.Join) one *SettingError per bad key, sorted by key, each
// wrapping ErrBadSetting. A learner family that is not registered yet
// gives an error wrapping ErrNotImplemented instead.
//
// A pipeline with an external method (Spec.External) also accepts its
// methods' keys (see MethodSettings for which): kept in the result as
// given, unchecked but for being finite.
func ResolveSettings(spec Spec, s Settings) (Settings, error) {
	label := spec.Name()
	if spec.Learner == Bayes {
		bad := settingErrs{label: label}
		for _, k := range slices.Sorted(maps.Keys(s)) {
			bad.add(k, "%q: the bayes oracle takes no settings", k)
		}
		return Settings{}, bad.err()
	}
	var fam Family
	if !spec.LearnerMethod.External() {
		var err error
		if fam, err = family(spec.Learner); err != nil {
			return nil, err
		}
	}
	params := append(slices.Clone(fam.Params), StrategyParams[spec.Strategy]...)
	builtin, free := s, Settings(nil)
	if spec.External() {
		builtin, free = splitSettings(spec, params, fam.Presets, s)
	}
	preset, explicit, err := checkKeys(label, params, fam.Presets, builtin)
	if err = errors.Join(err, checkFree(label, free)); err != nil {
		return nil, err
	}
	out := Settings{}
	for _, p := range params {
		if !p.Optional {
			out[p.Key] = p.Default
		}
	}
	maps.Copy(out, fam.Presets[preset])
	maps.Copy(out, explicit)
	maps.Copy(out, free)
	return out, nil
}

// MethodSettings returns the overrides of s that external method m of
// spec receives (nil when m is not one of spec's methods):
//   - an external imputer gets the keys written "<imputer>.<key>" (the
//     grid's strategy block for it writes them so), without the prefix;
//   - an external learner gets the keys without a dot that no built-in
//     strategy of the pipeline takes.
//
// So a key reaches exactly one component, and a built-in learner's keys
// are still checked against its family.
func MethodSettings(spec Spec, s Settings, m methodid.Method) Settings {
	switch m {
	case methodid.Method{}:
		return nil
	case spec.ImputerMethod:
		out := Settings{}
		for k, v := range s {
			if rest, ok := strings.CutPrefix(k, m.Name+"."); ok {
				out[rest] = v
			}
		}
		return out
	case spec.LearnerMethod:
		_, free := splitSettings(spec, StrategyParams[spec.Strategy], nil, s)
		maps.DeleteFunc(free, func(k string, _ float64) bool { return strings.Contains(k, ".") })
		return free
	}
	return nil
}

// splitSettings splits s into the keys params or presets name and the
// ones for spec's external methods: "<imputer>.<key>" for an external
// imputer, any other key without a dot for an external learner. Keys
// that fit neither stay in builtin, to be reported there.
func splitSettings(spec Spec, params []Param, presets map[string]Settings, s Settings) (builtin, free Settings) {
	builtin, free = Settings{}, Settings{}
	for k, v := range s {
		_, isPreset := presets[k]
		known := isPreset || slices.ContainsFunc(params, func(p Param) bool { return p.Key == k })
		imp := spec.ImputerMethod.External() && strings.HasPrefix(k, spec.ImputerMethod.Name+".")
		switch {
		case known:
			builtin[k] = v
		case imp, spec.LearnerMethod.External() && !strings.Contains(k, "."):
			free[k] = v
		default:
			builtin[k] = v
		}
	}
	return builtin, free
}

// checkFree rejects non-finite settings for external methods, which
// receive them as JSON numbers.
func checkFree(label string, free Settings) error {
	bad := settingErrs{label: label}
	for _, k := range slices.Sorted(maps.Keys(free)) {
		if v := free[k]; math.IsNaN(v) || math.IsInf(v, 0) {
			bad.add(k, "%s = %v, want a finite number (an external method's setting)", k, v)
		}
	}
	return bad.err()
}

// checkKeys checks every key of s against params and presets, in key
// order, and returns the preset switched on ("" for none) and the
// explicit values, or one SettingError per bad key joined.
func checkKeys(label string, params []Param, presets map[string]Settings, s Settings) (string, Settings, error) {
	bad := settingErrs{label: label}
	explicit := Settings{}
	on := ""
	for _, k := range slices.Sorted(maps.Keys(s)) {
		v := s[k]
		if _, isPreset := presets[k]; isPreset {
			switch {
			case v == 0:
			case v != 1:
				bad.add(k, "preset switch %q = %v, want 0 or 1", k, v)
			case on != "":
				bad.add(k, "presets %q and %q are both switched on", on, k)
			default:
				on = k
			}
			continue
		}
		i := slices.IndexFunc(params, func(p Param) bool { return p.Key == k })
		switch {
		case i < 0:
			bad.add(k, "unknown key %q (allowed: %s)", k, allowed(params, presets))
		case params[i].check(v) != nil:
			bad.add(k, "%v", params[i].check(v))
		default:
			explicit[k] = v
		}
	}
	return on, explicit, bad.err()
}

// check reports whether v is a valid value for p.
func (p Param) check(v float64) error {
	kind := "a number"
	if p.Integer {
		kind = "an integer"
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v < p.Min || v > p.Max || (p.Integer && v != math.Trunc(v)) {
		return fmt.Errorf("%s = %v, want %s in [%v, %v] (%s)", p.Key, v, kind, p.Min, p.Max, p.Doc)
	}
	return nil
}

// allowed lists the keys and preset switches, sorted.
func allowed(params []Param, presets map[string]Settings) string {
	keys := make([]string, 0, len(params)+len(presets))
	for _, p := range params {
		keys = append(keys, p.Key)
	}
	for name := range presets {
		keys = append(keys, name+" (preset, 0/1)")
	}
	slices.Sort(keys)
	if len(keys) == 0 {
		return "none"
	}
	return strings.Join(keys, ", ")
}
