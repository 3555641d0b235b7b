package server

import (
	"fmt"
	"math"
	"slices"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/sched"
	"github.com/misslab/misslab/internal/store"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// storeResult converts a worker's pipeline result for the store. A
// success with a number that cannot be a score (store.Result.BadNumber)
// becomes a store.KindInvalid failure whose message names the field and
// its value, also returned as why (empty for a result stored as sent).
func storeResult(p *pb.PipelineResult) (r store.Result, why string) {
	r = store.Result{R2: p.GetR2(), MSE: p.GetMse(), MAE: p.GetMae(), FitSeconds: p.GetFitSeconds(),
		PredictSeconds: p.GetPredictSeconds(), ErrKind: p.GetErrKind(), ErrMsg: p.GetErrMsg(),
		Root: p.GetRoot(), RootThreshold: p.GetRootThreshold(),
		ImputeRMSETrain: math.NaN(), ImputeRMSETest: math.NaN()}
	// An absent imputation RMSE means "does not apply", stored as NaN; a
	// NaN sent explicitly is a bad number like any other, named as sent.
	for _, f := range []struct {
		name string
		v    *float64
		to   *float64
	}{{"impute_rmse_train", p.ImputeRmseTrain, &r.ImputeRMSETrain}, {"impute_rmse_test", p.ImputeRmseTest, &r.ImputeRMSETest}} {
		switch {
		case f.v == nil:
		case math.IsNaN(*f.v) && r.ErrKind == "":
			why = f.name + " is NaN"
			return store.Result{ErrKind: store.KindInvalid, ErrMsg: "worker sent " + why}, why
		default:
			*f.to = *f.v
		}
	}
	if c := p.GetClassScores(); c != nil && r.ErrKind == "" {
		r.R2, r.MSE, r.MAE = math.NaN(), math.NaN(), math.NaN() // a classification has none
		r.Class = &store.ClassScores{LogLoss: c.GetLogLoss(), Brier: c.GetBrier(), AUC: c.GetAuc(), AUCHandTill: c.GetAucHandTill(),
			Accuracy: c.GetAccuracy(), BalancedAccuracy: c.GetBalancedAccuracy(), ECE: c.GetEce()}
		if bins := c.GetReliability(); len(bins) > store.MaxCalibrationBins {
			why = fmt.Sprintf("%d reliability bins (at most %d)", len(bins), store.MaxCalibrationBins)
			return store.Result{ErrKind: store.KindInvalid, ErrMsg: "worker sent " + why}, why
		}
		for _, b := range c.GetReliability() {
			r.Class.Reliability = append(r.Class.Reliability,
				store.CalibrationBin{Count: b.GetCount(), Correct: b.GetCorrect(), Confidence: b.GetConfidence()})
		}
	}
	if why = r.BadNumber(); why != "" {
		return store.Result{ErrKind: store.KindInvalid, ErrMsg: "worker sent " + why}, why
	}
	return r, ""
}

// StatusToProto converts a scheduler status.
func StatusToProto(st sched.Status, sw *grid.Sweep) *pb.SweepStatus {
	out := &pb.SweepStatus{SweepId: st.ID, Name: st.Name, Jobs: int64(st.Jobs), Done: int64(st.Done),
		Failed: int64(st.Failed), Running: int64(st.Running), Reused: int64(st.Reused), LastError: st.LastError,
		State: pb.SweepStatus_STATE_RUNNING, WaitingFor: st.Waiting}
	switch {
	case st.Cancelled:
		out.State = pb.SweepStatus_STATE_CANCELLED
	case st.Closed:
		out.State = pb.SweepStatus_STATE_COMPLETE
	}
	if sw != nil {
		out.Pipelines, out.Scenarios, out.Repetitions = int64(len(sw.Pipelines)), int64(len(sw.Scenarios)), int32(sw.Repetitions)
	}
	return out
}

// checkResult validates a job result against the pipelines its lease
// asked for (nil: all n of them): indices in range, unique, complete.
func checkResult(r *pb.JobResult, n int, want []int) error {
	seen := make([]bool, n)
	for _, p := range r.GetPipelines() {
		i := int(p.GetPipeline())
		if i < 0 || i >= n {
			return fmt.Errorf("pipeline index %d outside [0, %d)", i, n)
		}
		if seen[i] {
			return fmt.Errorf("pipeline %d reported twice", i)
		}
		seen[i] = true
	}
	if want == nil {
		if i := slices.Index(seen, false); i >= 0 {
			return fmt.Errorf("pipeline %d missing", i)
		}
		return nil
	}
	for _, i := range want {
		if !seen[i] {
			return fmt.Errorf("pipeline %d missing", i)
		}
	}
	return nil
}
