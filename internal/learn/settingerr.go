package learn

import (
	"errors"
	"fmt"
)

// SettingError is the problem with one key of a pipeline's settings.
// ResolveSettings, CheckSettings and CheckLearnerSettings report every
// bad key of a settings map, one SettingError each, joined with
// errors.Join in key order; SettingErrors takes them apart again, so that
// a grid parser can report each at its attribute. A SettingError wraps
// ErrBadSetting.
type SettingError struct {
	// Pipeline is the canonical pipeline name ("tree/mia"), or the
	// learner family for CheckLearnerSettings.
	Pipeline string
	// Key is the setting key at fault (a preset switch is a key too).
	Key string
	// Msg says what is wrong, naming the key, e.g. `minbucket = -5, want
	// an integer in [1, 1e+09] (…)` or `unknown key "wibble" (allowed:
	// …)`; it names neither the pipeline nor ErrBadSetting.
	Msg string
}

// Error returns "learn: bad setting: <pipeline>: <msg>".
func (e *SettingError) Error() string {
	return fmt.Sprintf("%v: %s: %s", ErrBadSetting, e.Pipeline, e.Msg)
}

// Unwrap returns ErrBadSetting.
func (e *SettingError) Unwrap() error { return ErrBadSetting }

// SettingErrors returns every *SettingError in err's tree (through %w
// wrapping and errors.Join), in the order they were joined: one per bad
// key, sorted by key, for an error of ResolveSettings, CheckSettings or
// CheckLearnerSettings. It returns nil when err holds none (nil, a bad
// pipeline name, an unknown learner, a family not implemented).
func SettingErrors(err error) []*SettingError {
	var out []*SettingError
	var walk func(error)
	walk = func(e error) {
		switch u := e.(type) {
		case nil:
		case *SettingError:
			out = append(out, u)
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				walk(x)
			}
		default:
			walk(errors.Unwrap(e))
		}
	}
	walk(err)
	return out
}

// settingErrs collects the SettingErrors of one settings map.
type settingErrs struct {
	label string
	errs  []error
}

// add records a problem with key.
func (s *settingErrs) add(key, format string, args ...any) {
	s.errs = append(s.errs, &SettingError{Pipeline: s.label, Key: key, Msg: fmt.Sprintf(format, args...)})
}

// err joins the problems in the order added (nil when none).
func (s *settingErrs) err() error { return errors.Join(s.errs...) }
