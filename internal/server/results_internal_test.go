package server

import (
	"math"
	"testing"

	"github.com/misslab/misslab/internal/store"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// TestStoreResultRefusesNumbersThatCannotBeScores: a success with a
// non-finite score or time, a negative time or a NaN root threshold is
// stored as an invalid-result failure naming the field and value; other
// results (negative R², MIA's infinite thresholds, failures) as sent.
func TestStoreResultRefusesNumbersThatCannotBeScores(t *testing.T) {
	ok := func() *pb.PipelineResult {
		return &pb.PipelineResult{R2: 0.5, Mse: 0.2, FitSeconds: 1, PredictSeconds: 0.1, Root: "X1", RootThreshold: 0.3}
	}
	with := func(f func(p *pb.PipelineResult)) *pb.PipelineResult { p := ok(); f(p); return p }
	cases := []struct {
		name string
		in   *pb.PipelineResult
		why  string // "" when stored as sent
	}{
		{"finite", ok(), ""},
		{"negative r2", with(func(p *pb.PipelineResult) { p.R2 = -3 }), ""},
		{"+Inf root threshold (MIA)", with(func(p *pb.PipelineResult) { p.RootThreshold = math.Inf(1) }), ""},
		{"-Inf root threshold (MIA)", with(func(p *pb.PipelineResult) { p.RootThreshold = math.Inf(-1) }), ""},
		{"failure with NaN", with(func(p *pb.PipelineResult) { p.ErrKind, p.R2 = "fit", math.NaN() }), ""},
		{"NaN r2", with(func(p *pb.PipelineResult) { p.R2 = math.NaN() }), "r2 is NaN"},
		{"-Inf r2", with(func(p *pb.PipelineResult) { p.R2 = math.Inf(-1) }), "r2 is -Inf"},
		{"+Inf mse", with(func(p *pb.PipelineResult) { p.Mse = math.Inf(1) }), "mse is +Inf"},
		{"NaN fit time", with(func(p *pb.PipelineResult) { p.FitSeconds = math.NaN() }), "fit_seconds is NaN"},
		{"negative fit time", with(func(p *pb.PipelineResult) { p.FitSeconds = -0.5 }), "fit_seconds is -0.5"},
		{"+Inf predict time", with(func(p *pb.PipelineResult) { p.PredictSeconds = math.Inf(1) }), "predict_seconds is +Inf"},
		{"NaN root threshold", with(func(p *pb.PipelineResult) { p.RootThreshold = math.NaN() }), "root_threshold is NaN"},
		{"negative mse", with(func(p *pb.PipelineResult) { p.Mse = -5 }), "mse is -5"},
		{"NaN imputation RMSE sent", with(func(p *pb.PipelineResult) { p.ImputeRmseTrain = ptr(math.NaN()) }), "impute_rmse_train is NaN"},
		{"+Inf imputation RMSE", with(func(p *pb.PipelineResult) { p.ImputeRmseTest = ptr(math.Inf(1)) }), "impute_rmse_test is +Inf"},
		{"imputation RMSE of a failure", with(func(p *pb.PipelineResult) { p.ErrKind, p.ImputeRmseTest = "fit", ptr(math.NaN()) }), ""},
	}
	for _, c := range cases {
		r, why := storeResult(c.in)
		if why != c.why {
			t.Errorf("%s: why %q, want %q", c.name, why, c.why)
			continue
		}
		if c.why == "" {
			if r.ErrKind != c.in.GetErrKind() || math.Float64bits(r.R2) != math.Float64bits(c.in.GetR2()) ||
				r.RootThreshold != c.in.GetRootThreshold() || r.Root != c.in.GetRoot() {
				t.Errorf("%s: stored %+v, want the result as sent", c.name, r)
			}
			continue
		}
		if r.ErrKind != store.KindInvalid || r.ErrMsg != "worker sent "+c.why || r.R2 != 0 || r.MSE != 0 || r.Root != "" {
			t.Errorf("%s: stored %+v, want an %s failure with no numbers", c.name, r, store.KindInvalid)
		}
	}
}

func ptr(v float64) *float64 { return &v }

// TestStoreResultKeepsClassScores: a classification result's scores and
// reliability bins are stored as sent; bins that cannot be a test set's
// make it an invalid-result failure.
func TestStoreResultKeepsClassScores(t *testing.T) {
	class := func(bins ...*pb.CalibrationBin) *pb.PipelineResult {
		return &pb.PipelineResult{FitSeconds: 1, PredictSeconds: 0.1, ClassScores: &pb.ClassScores{LogLoss: 0.4,
			Brier: 0.1, Auc: 0.9, AucHandTill: 0.9, Accuracy: 0.8, BalancedAccuracy: 0.8, Ece: 0.05, Reliability: bins}}
	}
	r, why := storeResult(class(&pb.CalibrationBin{}, &pb.CalibrationBin{Count: 7, Correct: 5, Confidence: 5.5}))
	if why != "" || r.Class == nil || len(r.Class.Reliability) != 2 || !math.IsNaN(r.R2) ||
		r.Class.Reliability[1] != (store.CalibrationBin{Count: 7, Correct: 5, Confidence: 5.5}) || r.Class.AUC != 0.9 {
		t.Fatalf("stored %+v (%q), want the scores as sent and no R²", r, why)
	}
	for name, in := range map[string]*pb.PipelineResult{
		"more correct than rows": class(&pb.CalibrationBin{Count: 2, Correct: 3, Confidence: 1}),
		"too many bins":          class(make([]*pb.CalibrationBin, store.MaxCalibrationBins+1)...),
	} {
		if r, why := storeResult(in); why == "" || r.ErrKind != store.KindInvalid || r.Class != nil {
			t.Errorf("%s: stored %+v (%q), want an invalid-result failure", name, r, why)
		}
	}
}
