package reportgen

import (
	"math"
	"strconv"

	"github.com/misslab/misslab/internal/store"
)

// KindInvalid is the error kind of a pipeline result whose numbers
// cannot be a score: a non-finite R², MSE or time, a negative time, or a
// NaN root threshold (±Inf is MIA's "observed vs missing" split). The
// coordinator stores such results with this kind (it checks results as
// they arrive); Build gives it to results stored before that check, so
// that one bad number fails its pipeline run, not the whole report.
const KindInvalid = "invalid-result"

// badNumber names the first number of r that cannot be part of a score,
// with its value ("r2 is NaN"), or returns "" when there is none.
func badNumber(r store.Result) string {
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

// checked returns r, or, when r is a success with a number that cannot
// be a score, a KindInvalid failure naming it.
func checked(r store.Result) store.Result {
	if r.ErrKind != "" {
		return r
	}
	if why := badNumber(r); why != "" {
		return store.Result{ErrKind: KindInvalid, ErrMsg: "stored " + why + " (stored before the coordinator checked results)"}
	}
	return r
}
