package learn

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"strings"
	"testing"

	"github.com/misslab/misslab/internal/learn/impute"
	"github.com/misslab/misslab/internal/learn/linear"
)

// withFamily registers f under learner for the duration of the test.
func withFamily(t *testing.T, learner string, f Family) {
	t.Helper()
	old, had := families[learner]
	families[learner] = f
	t.Cleanup(func() {
		if had {
			families[learner] = old
		} else {
			delete(families, learner)
		}
	})
}

// withoutFamily unregisters a learner family for the test's duration.
func withoutFamily(t *testing.T, learner string) {
	t.Helper()
	old := families[learner]
	delete(families, learner)
	t.Cleanup(func() { families[learner] = old })
}

func mustSpec(t *testing.T, name string) Spec {
	t.Helper()
	s, err := ParseSpec(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestResolveSettings(t *testing.T) {
	cases := []struct {
		name string
		in   Settings
		want Settings
	}{
		{"linear/mean", nil, Settings{"lambda": linear.DefaultLambda}},
		{"linear/mean+mask", Settings{"lambda": 0.5}, Settings{"lambda": 0.5}},
		{"linear/constant", Settings{"value": -3}, Settings{"lambda": linear.DefaultLambda, "value": -3}},
		{"linear/constant", nil, Settings{"lambda": linear.DefaultLambda, "value": 0}},
		{"linear/gaussian", Settings{"em_maxiter": 50}, Settings{"lambda": linear.DefaultLambda,
			"shrink": 0.01, "em_tol": impute.DefaultTol, "em_maxiter": 50}},
		// Presets: switched on, switched off, overridden by an explicit key.
		{"linear/oor", Settings{"ols": 1}, Settings{"lambda": 0}},
		{"linear/oor", Settings{"ols": 0}, Settings{"lambda": linear.DefaultLambda}},
		// oor_k is optional: absent from the resolved settings unless given.
		{"linear/oor", Settings{"oor_k": 0.1}, Settings{"lambda": linear.DefaultLambda, "oor_k": 0.1}},
		{"linear/oor", Settings{"ols": 1, "lambda": 0.25}, Settings{"lambda": 0.25}},
		{"bayes/oracle", nil, Settings{}},
	}
	for _, c := range cases {
		got, err := ResolveSettings(mustSpec(t, c.name), c.in)
		if err != nil {
			t.Errorf("%s %v: %v", c.name, c.in, err)
			continue
		}
		if !maps.Equal(got, c.want) {
			t.Errorf("%s %v = %v, want %v", c.name, c.in, got, c.want)
		}
	}
}

func TestBadSettings(t *testing.T) {
	cases := []struct {
		name     string
		in       Settings
		want     error
		mentions []string // substrings the message must contain
	}{
		{"linear/mean", Settings{"minbucket": 7}, ErrBadSetting, []string{`"minbucket"`, "linear/mean", "lambda", "ols (preset"}},
		{"linear/mean", Settings{"value": 1}, ErrBadSetting, []string{`"value"`}}, // constant only
		{"linear/mean", Settings{"lambda": -1}, ErrBadSetting, []string{"lambda = -1", "[0, 1e+06]"}},
		{"linear/mean", Settings{"lambda": math.NaN()}, ErrBadSetting, []string{"lambda = NaN"}},
		{"linear/mean", Settings{"lambda": math.Inf(1)}, ErrBadSetting, []string{"lambda = +Inf"}},
		{"linear/gaussian", Settings{"em_maxiter": 2.5}, ErrBadSetting, []string{"em_maxiter = 2.5", "an integer"}},
		{"linear/gaussian", Settings{"shrink": 1.5}, ErrBadSetting, []string{"shrink = 1.5"}},
		{"linear/mean", Settings{"ols": 2}, ErrBadSetting, []string{`"ols" = 2`, "0 or 1"}},
		{"bayes/oracle", Settings{"k": 5}, ErrBadSetting, []string{"bayes/oracle", "no settings"}},
		{"forest/mia", Settings{"trees": 0}, ErrBadSetting, []string{"trees = 0"}},
		{"svm/mean", Settings{"cost": 0}, ErrBadSetting, []string{"cost = 0"}},
	}
	for _, c := range cases {
		_, err := ResolveSettings(mustSpec(t, c.name), c.in)
		if !errors.Is(err, c.want) {
			t.Errorf("%s %v: error %v, want %v", c.name, c.in, err, c.want)
			continue
		}
		for _, m := range c.mentions {
			if !strings.Contains(err.Error(), m) {
				t.Errorf("%s %v: message %q lacks %q", c.name, c.in, err, m)
			}
		}
	}
	for _, c := range []struct {
		name string
		s    Settings
		want error
	}{
		{"linear/mean", Settings{"lambda": 1, "ols": 0}, nil},
		{"linear/mean", Settings{"value": 1}, ErrBadSetting}, // another strategy's key
		{"linear/constant", Settings{"value": 1}, nil},
		{"linear/mean", Settings{"lambda": -1}, ErrBadSetting},
		{"bayes/oracle", nil, nil},
		{"bayes/oracle", Settings{"k": 1}, ErrBadSetting},
		{"forest/mean", Settings{"trees": 10}, nil},
		{"ctree/mean", Settings{"cp": 0}, ErrBadSetting},
		{"tree/mean", Settings{"cp": 0}, nil},
		{"tree/mean", Settings{"cp": 2}, ErrBadSetting},
	} {
		if _, err := ResolveSettings(mustSpec(t, c.name), c.s); !errors.Is(err, c.want) || (err == nil) != (c.want == nil) {
			t.Errorf("ResolveSettings(%s, %v) = %v, want %v", c.name, c.s, err, c.want)
		}
	}
}

// TestEveryBadKeyReported: ResolveSettings reports each bad key of a
// map, in key order, as a SettingError naming the pipeline and the key
// and wrapping ErrBadSetting, joined so that settingErrors recovers them.
func TestEveryBadKeyReported(t *testing.T) {
	cases := []struct {
		name     string
		in       Settings
		keys     []string // the bad keys, sorted
		mentions []string // substrings of the messages, one per key
	}{
		{"tree/mia", Settings{"wibble": 1, "minbucket": -5}, []string{"minbucket", "wibble"},
			[]string{"minbucket = -5, want an integer in [1, 1e+09]", `unknown key "wibble" (allowed: cp, maxdepth,`}},
		{"tree/mia", Settings{"cp": 7}, []string{"cp"}, []string{"cp = 7, want a number in [0, 1]"}},
		{"tree/mia", Settings{"cp": 0.5, "maxdepth": 2}, nil, nil},
		{"linear/oor", Settings{"value": 1, "ols": 2, "lambda": -1, "oor_k": 0.5},
			[]string{"lambda", "ols", "value"}, []string{"lambda = -1", `"ols" = 2, want 0 or 1`, `unknown key "value"`}},
		{"bayes/oracle", Settings{"k": 5, "cp": 1}, []string{"cp", "k"},
			[]string{`"cp": the bayes oracle takes no settings`, `"k": the bayes oracle`}},
	}
	for _, c := range cases {
		_, err := ResolveSettings(mustSpec(t, c.name), c.in)
		if c.keys == nil {
			if err != nil {
				t.Errorf("%s %v: %v", c.name, c.in, err)
			}
			continue
		}
		got := settingErrors(fmt.Errorf("wrapped: %w", err))
		if len(got) != len(c.keys) || !errors.Is(err, ErrBadSetting) {
			t.Fatalf("%s %v: %d setting errors (%v), want %d wrapping ErrBadSetting", c.name, c.in, len(got), err, len(c.keys))
		}
		lines := strings.Split(err.Error(), "\n")
		for i, se := range got {
			if se.Key != c.keys[i] || se.Pipeline != c.name || !strings.Contains(se.Msg, c.mentions[i]) ||
				!errors.Is(se, ErrBadSetting) || lines[i] != se.Error() ||
				se.Error() != "learn: bad setting: "+c.name+": "+se.Msg {
				t.Errorf("%s %v: error %d = %+v (%q), want key %q mentioning %q", c.name, c.in, i, *se, lines[i], c.keys[i], c.mentions[i])
			}
		}
	}
}

// settingErrors returns every *SettingError in err's tree (through %w
// wrapping and errors.Join), in the order they were joined.
func settingErrors(err error) []*SettingError {
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

func TestTwoPresets(t *testing.T) {
	withFamily(t, KNN, Family{
		Params:  []Param{{Key: "k", Default: 5, Min: 1, Max: 100, Integer: true}},
		Presets: map[string]Settings{"small": {"k": 1}, "large": {"k": 50}},
		New:     func(string, Settings, Env) (Learner, error) { return nil, errors.New("unused") },
	})
	spec := mustSpec(t, "knn/mean")
	_, err := ResolveSettings(spec, Settings{"small": 1, "large": 1, "k": 0})
	if se := settingErrors(err); !errors.Is(err, ErrBadSetting) || len(se) != 2 || se[0].Key != "k" || se[1].Key != "small" ||
		se[1].Msg != `presets "large" and "small" are both switched on` {
		t.Errorf("two presets and a bad k: %v", err)
	}
	got, err := ResolveSettings(spec, Settings{"small": 0, "large": 1})
	if err != nil || got["k"] != 50 || len(got) != 1 {
		t.Errorf("large preset: %v %v", got, err)
	}
}

// TestRegisteredFamilies checks every registration: defaults and presets
// are valid values of known keys and no key collides with a strategy key.
func TestRegisteredFamilies(t *testing.T) {
	if len(Implemented()) == 0 {
		t.Fatal("no learner family registered")
	}
	for _, l := range Implemented() {
		fam := families[l]
		keys := map[string]bool{}
		for _, p := range fam.Params {
			if err := p.check(p.Default); err != nil {
				t.Errorf("%s: default: %v", l, err)
			}
			keys[p.Key] = true
			for s, ps := range StrategyParams {
				for _, q := range ps {
					if q.Key == p.Key {
						t.Errorf("%s key %q collides with strategy %s", l, p.Key, s)
					}
				}
			}
		}
		for name, preset := range fam.Presets {
			if keys[name] {
				t.Errorf("%s: preset %q shadows a key", l, name)
			}
			for k, v := range preset {
				i := -1
				for j, p := range fam.Params {
					if p.Key == k {
						i = j
					}
				}
				if i < 0 {
					t.Errorf("%s: preset %q sets unknown key %q", l, name, k)
				} else if err := fam.Params[i].check(v); err != nil {
					t.Errorf("%s: preset %q: %v", l, name, err)
				}
			}
		}
	}
	for s, ps := range StrategyParams {
		for _, p := range ps {
			if err := p.check(p.Default); err != nil {
				t.Errorf("strategy %s default: %v", s, err)
			}
		}
	}
}

func TestSettingsString(t *testing.T) {
	s := Settings{"minbucket": 7, "cp": 0.01}
	if got := s.String(); got != "{cp=0.01,minbucket=7}" {
		t.Errorf("String() = %q", got)
	}
	c := s.Clone()
	c["cp"] = 1
	if s["cp"] != 0.01 {
		t.Error("Clone shares storage")
	}
}
