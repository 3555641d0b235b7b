package learn

import (
	"errors"
	"fmt"
)

// SettingError is the problem with one key of a pipeline's settings.
// ResolveSettings reports every bad key of a settings map, one
// SettingError each, joined with errors.Join in key order. A
// SettingError wraps ErrBadSetting.
type SettingError struct {
	// Pipeline is the canonical pipeline name ("tree/mia").
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

// settingErrs collects the *SettingError values of one settings map.
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
