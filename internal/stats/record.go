package stats

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// ErrDuplicate is wrapped by errors reporting two records (or stump
// choices, or curve points) with the same identifying key.
var ErrDuplicate = errors.New("stats: duplicate record")

// Record is one pipeline's score on one repetition of one scenario: the
// unit every function of this package consumes. Scenario and Pipeline
// are opaque keys; stats never parses them (a grouping of pipelines is
// always supplied by the caller as a GroupFunc).
type Record struct {
	Scenario string // scenario key, e.g. a canonical encoding
	Rep      int    // repetition index
	Pipeline string // pipeline key, e.g. "tree/mia"
	// R2 is the test R² = 1 − MSE/Var(Y) (dimensionless), MSE the test
	// mean squared error (units of Y²).
	R2, MSE float64
	// FitSeconds and PredictSeconds are wall-clock seconds for fitting
	// (imputer + learner) and for predicting the test set.
	FitSeconds, PredictSeconds float64
	// Failed marks a run that produced no score. Its metrics are ignored
	// (they may be NaN); it counts in the Failed tallies and is absent
	// from every statistic, so comparisons use the repetitions a pipeline
	// completed.
	Failed bool
}

// Validate checks that no two records share (Scenario, Rep, Pipeline)
// (error wrapping ErrDuplicate) and that every record not marked Failed
// has finite R2, MSE, FitSeconds and PredictSeconds (error wrapping
// ErrNonFinite). Summarize, RelativeR2, PairwiseTests, LearningCurves
// and WriteResultsCSV call it first; the grouping helpers do not.
func Validate(recs []Record) error {
	type key struct {
		s, p string
		r    int
	}
	seen := make(map[key]struct{}, len(recs))
	for i, r := range recs {
		k := key{r.Scenario, r.Pipeline, r.Rep}
		if _, dup := seen[k]; dup {
			return fmt.Errorf("%w: scenario %q rep %d pipeline %q (record %d)",
				ErrDuplicate, r.Scenario, r.Rep, r.Pipeline, i)
		}
		seen[k] = struct{}{}
		if r.Failed {
			continue
		}
		for _, m := range []struct {
			name string
			v    float64
		}{{"R2", r.R2}, {"MSE", r.MSE}, {"FitSeconds", r.FitSeconds}, {"PredictSeconds", r.PredictSeconds}} {
			if math.IsNaN(m.v) || math.IsInf(m.v, 0) {
				return fmt.Errorf("%w: %s = %v in scenario %q rep %d pipeline %q (mark the run Failed instead)",
					ErrNonFinite, m.name, m.v, r.Scenario, r.Rep, r.Pipeline)
			}
		}
	}
	return nil
}

// GroupFunc maps a pipeline key to the key of the family it is compared
// within (for the paper, the learner: "tree/mia" → "tree"). A nil
// GroupFunc puts every pipeline of a scenario in one family.
type GroupFunc func(pipeline string) string

// PrefixGroup returns a GroupFunc keeping the part of the key before the
// first sep (the whole key if sep does not occur). PrefixGroup("/") gives
// the learner family of misslab pipeline names.
func PrefixGroup(sep string) GroupFunc {
	return func(p string) string {
		before, _, _ := strings.Cut(p, sep)
		return before
	}
}

func (g GroupFunc) of(pipeline string) string {
	if g == nil {
		return ""
	}
	return g(pipeline)
}

// CompareRecords orders records by Scenario, then Pipeline, then Rep:
// the canonical order of every record list this package returns or writes.
func CompareRecords(a, b Record) int {
	return cmp.Or(strings.Compare(a.Scenario, b.Scenario),
		strings.Compare(a.Pipeline, b.Pipeline), cmp.Compare(a.Rep, b.Rep))
}

// Group is the records sharing one key, in canonical record order.
type Group struct {
	Key     string
	Records []Record
}

// GroupBy splits recs by key(record) and returns the groups sorted by
// key, each holding its records in CompareRecords order. recs is not
// modified; no validation is done.
func GroupBy(recs []Record, key func(Record) string) []Group {
	idx := map[string]int{}
	var out []Group
	for _, r := range recs {
		k := key(r)
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, Group{Key: k})
		}
		out[i].Records = append(out[i].Records, r)
	}
	slices.SortFunc(out, func(a, b Group) int { return strings.Compare(a.Key, b.Key) })
	for _, g := range out {
		slices.SortFunc(g.Records, CompareRecords)
	}
	return out
}

// Scenarios returns the distinct scenario keys of recs, sorted.
func Scenarios(recs []Record) []string {
	return distinct(recs, func(r Record) string { return r.Scenario })
}

// Pipelines returns the distinct pipeline keys of recs, sorted.
func Pipelines(recs []Record) []string {
	return distinct(recs, func(r Record) string { return r.Pipeline })
}

func distinct(recs []Record, key func(Record) string) []string {
	var out []string
	for _, r := range recs {
		out = append(out, key(r))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// cell is the records of one (scenario, pipeline), in Rep order.
type cell struct {
	scenario, pipeline string
	recs               []Record
}

// cells groups recs by (scenario, pipeline) in canonical order.
func cells(recs []Record) []cell {
	s := slices.Clone(recs)
	slices.SortFunc(s, CompareRecords)
	var out []cell
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j].Scenario == s[i].Scenario && s[j].Pipeline == s[i].Pipeline {
			j++
		}
		out = append(out, cell{s[i].Scenario, s[i].Pipeline, s[i:j]})
		i = j
	}
	return out
}
