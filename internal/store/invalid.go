package store

import (
	"math"
	"strconv"
)

// KindInvalid is the error kind of a pipeline result whose numbers cannot
// be a score (see BadNumber). The coordinator stores a worker's such
// result with this kind as it arrives; the report gives it to such results
// stored before that check, so one bad number fails its pipeline run, not
// a whole report.
const KindInvalid = "invalid-result"

// BadNumber names the first number of a successful result that cannot be
// part of a score, with its value ("r2 is NaN"): a non-finite R², MSE or
// time, a negative time, or a NaN root threshold (±Inf is MIA's split of
// observed against missing values). It returns "" when there is none, and
// for a failure (ErrKind set), whose numbers mean nothing.
func (r Result) BadNumber() string {
	if r.ErrKind != "" {
		return ""
	}
	for _, f := range []struct {
		name string
		v    float64
		time bool
	}{{"r2", r.R2, false}, {"mse", r.MSE, false}, {"fit_seconds", r.FitSeconds, true},
		{"predict_seconds", r.PredictSeconds, true}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.time && f.v < 0 {
			return f.name + " is " + strconv.FormatFloat(f.v, 'g', -1, 64)
		}
	}
	if math.IsNaN(r.RootThreshold) {
		return "root_threshold is NaN"
	}
	return ""
}
