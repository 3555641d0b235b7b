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
// part of a score, with its value ("r2 is NaN"): a non-finite R², MSE,
// MAE or time, a negative MAE or time, an imputation RMSE that is ±Inf or
// negative (NaN is allowed there: not applicable), or a NaN root
// threshold (±Inf is MIA's split of observed against missing values). It
// returns "" when there is none, and for a failure (ErrKind set), whose
// numbers mean nothing.
func (r Result) BadNumber() string {
	if r.ErrKind != "" {
		return ""
	}
	for _, f := range []struct {
		name             string
		v                float64
		nonNeg, nanValid bool
	}{{"r2", r.R2, false, false}, {"mse", r.MSE, true, false}, {"fit_seconds", r.FitSeconds, true, false},
		{"predict_seconds", r.PredictSeconds, true, false}, {"mae", r.MAE, true, false},
		{"impute_rmse_train", r.ImputeRMSETrain, true, true}, {"impute_rmse_test", r.ImputeRMSETest, true, true}} {
		nan := math.IsNaN(f.v)
		if nan && !f.nanValid || math.IsInf(f.v, 0) || f.nonNeg && f.v < 0 {
			return f.name + " is " + strconv.FormatFloat(f.v, 'g', -1, 64)
		}
	}
	if math.IsNaN(r.RootThreshold) {
		return "root_threshold is NaN"
	}
	return ""
}
