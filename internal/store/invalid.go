package store

import (
	"fmt"
	"math"
	"strconv"
)

// KindInvalid is the error kind of a pipeline result whose numbers cannot
// be a score (see BadNumber). The coordinator stores a worker's such
// result with this kind as it arrives; the report gives it to such results
// stored before that check, so one bad number fails its pipeline run, not
// a whole report.
const KindInvalid = "invalid-result"

// number is one checked number of a result: its name in the exported
// CSV, its value, and its valid range [lo, hi]; NaN is valid where nan.
type number struct {
	name   string
	v      float64
	lo, hi float64
	nan    bool
}

// BadNumber names the first number of a successful result that cannot be
// part of a score, with its value ("r2 is NaN"), or returns "": for every
// result a time that is not finite and ≥ 0, an imputation RMSE that is
// ±Inf or negative (NaN is allowed there: not applicable) and a NaN root
// threshold (±Inf is MIA's split of observed against missing values); for
// a regression result a non-finite R², or an MSE or MAE not finite and
// ≥ 0; for a classification result (Class set) a log-loss not finite and
// ≥ 0, a Brier score outside [0, 2], an accuracy, balanced accuracy or
// ECE outside [0, 1], an AUC outside [0, 1] (NaN is allowed: a class was
// absent from the test set), or an R², MSE or MAE other than NaN. A
// failure (ErrKind set) has no score and is never bad.
func (r Result) BadNumber() string {
	if r.ErrKind != "" {
		return ""
	}
	inf := math.Inf(1)
	nums := []number{{"fit_seconds", r.FitSeconds, 0, inf, false}, {"predict_seconds", r.PredictSeconds, 0, inf, false},
		{"impute_rmse_train", r.ImputeRMSETrain, 0, inf, true}, {"impute_rmse_test", r.ImputeRMSETest, 0, inf, true}}
	if c := r.Class; c != nil {
		nums = append(nums, number{"log_loss", c.LogLoss, 0, inf, false}, number{"brier", c.Brier, 0, 2, false},
			number{"auc", c.AUC, 0, 1, true}, number{"auc_hand_till", c.AUCHandTill, 0, 1, true},
			number{"accuracy", c.Accuracy, 0, 1, false}, number{"balanced_accuracy", c.BalancedAccuracy, 0, 1, false},
			number{"ece", c.ECE, 0, 1, false})
		if why := badBins(c.Reliability); why != "" {
			return why
		}
		for _, v := range []number{{"r2", r.R2, 0, 0, true}, {"mse", r.MSE, 0, 0, true}, {"mae", r.MAE, 0, 0, true}} {
			if !math.IsNaN(v.v) {
				return v.name + " is " + strconv.FormatFloat(v.v, 'g', -1, 64) + " for a classification result"
			}
		}
	} else {
		nums = append(nums, number{"r2", r.R2, -inf, inf, false}, number{"mse", r.MSE, 0, inf, false},
			number{"mae", r.MAE, 0, inf, false})
	}
	for _, f := range nums {
		if math.IsNaN(f.v) && !f.nan || math.IsInf(f.v, 0) || f.v < f.lo || f.v > f.hi {
			return f.name + " is " + strconv.FormatFloat(f.v, 'g', -1, 64)
		}
	}
	if math.IsNaN(r.RootThreshold) {
		return "root_threshold is NaN"
	}
	return ""
}

// badBins says why reliability bins cannot be a test set's, or "".
func badBins(bins []CalibrationBin) string {
	if len(bins) > MaxCalibrationBins {
		return fmt.Sprintf("%d reliability bins (at most %d)", len(bins), MaxCalibrationBins)
	}
	for i, b := range bins {
		if b.Correct > b.Count || !(b.Confidence >= 0 && b.Confidence <= float64(b.Count)) {
			return fmt.Sprintf("reliability bin %d has %d rows, %d correct, confidence %v", i, b.Count, b.Correct, b.Confidence)
		}
	}
	return ""
}
