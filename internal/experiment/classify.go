package experiment

import (
	"fmt"
	"math"

	"github.com/misslab/misslab/internal/stats"
)

// scoreClasses scores a classification pipeline's class probabilities
// against the test set's classes (stats.ScoreClasses); its regression
// scores are NaN.
func scoreClasses(res Result, data dataset, o outcome) Result {
	res.R2, res.MSE, res.MAE = math.NaN(), math.NaN(), math.NaN()
	y := make([]int, len(data.testY))
	for i, v := range data.testY {
		y[i] = int(v)
	}
	s, err := stats.ScoreClasses(o.proba.RawMatrix().Data, data.classes, y)
	if err != nil {
		res.R2, res.MSE, res.MAE = 0, 0, 0
		res.ErrKind, res.ErrMsg = KindPredict, fmt.Sprintf("scoring %d class probabilities: %v", len(y), err)
		return res
	}
	res.FitSeconds, res.PredictSeconds = o.fitSec, o.predSec
	res.Class = &s
	res.Root, res.RootThreshold = o.root.name, o.root.threshold
	if o.fitted != nil && data.truth != nil {
		var err error
		if res.ImputeRMSETrain, res.ImputeRMSETest, err = data.truth.score(o.fitted, data.train, data.test); err != nil {
			return Result{Pipeline: res.Pipeline, ErrKind: KindPredict, ErrMsg: err.Error(),
				ImputeRMSETrain: math.NaN(), ImputeRMSETest: math.NaN()}
		}
	}
	return res
}
