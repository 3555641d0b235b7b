package reportgen

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/misslab/misslab/internal/report"
	"github.com/misslab/misslab/internal/stats"
	"github.com/misslab/misslab/internal/store"
	"github.com/misslab/misslab/internal/storeconv"
)

const binaryGrid = `
sweep "bin" {
  seed        = 3
  repetitions = 3
  data {
    model   = "quadratic"
    task    = "binary"
    n_train = 200
    n_test  = 100
  }
  missingness {
    mechanism = ["mcar", "mnar"]
    rate      = 0.2
  }
  pipelines { names = ["tree/mia", "tree/mean"] }
}`

// classResult is a stored classification result: AUC auc, log-loss 1 −
// auc, and two reliability bins of 50 rows.
func classResult(auc float64) store.Result {
	return store.Result{R2: math.NaN(), MSE: math.NaN(), MAE: math.NaN(), FitSeconds: 0.01, PredictSeconds: 0.001,
		ImputeRMSETrain: math.NaN(), ImputeRMSETest: math.NaN(),
		Class: &store.ClassScores{LogLoss: 1 - auc, Brier: 0.2, AUC: auc, AUCHandTill: auc, Accuracy: 0.7,
			BalancedAccuracy: 0.7, ECE: 0.05, Reliability: []store.CalibrationBin{
				{}, {}, {}, {}, {}, {Count: 50, Correct: 30, Confidence: 28}, {}, {}, {}, {Count: 50, Correct: 45, Confidence: 47}}}}
}

// TestBuildClassification: a classification sweep's report carries AUC
// and log-loss as its two scores, sums the reliability bins of completed
// runs, and lists a run whose AUC is undefined as a failure saying so.
func TestBuildClassification(t *testing.T) {
	sw := parseSweep(t, binaryGrid)
	st, rec := fill(t, sw, func(si, rep, pi int) (store.Result, bool, string) {
		if si == 1 && rep == 2 && pi == 1 {
			r := classResult(0)
			r.Class.AUC, r.Class.AUCHandTill = math.NaN(), math.NaN()
			return r, true, ""
		}
		return classResult(0.7 + 0.01*float64(rep) + 0.05*float64(pi)), true, ""
	})
	in, err := Build(context.Background(), st, rec)
	if err != nil {
		t.Fatal(err)
	}
	if in.Task != report.Classification {
		t.Fatalf("task %v, want classification", in.Task)
	}
	failed := 0
	for _, r := range in.Records {
		if r.Failed {
			failed++
			continue
		}
		if math.Abs(r.R2+r.MSE-1) > 1e-15 || r.R2 < 0.7 {
			t.Errorf("record %+v: want the AUC and log-loss in R2 and MSE", r)
		}
	}
	if failed != 1 || len(in.Failures) != 1 || !strings.Contains(in.Failures[0].Message, "AUC undefined") {
		t.Errorf("%d failed records, failures %+v; want the undefined AUC listed", failed, in.Failures)
	}
	if len(in.Calibration) != 4 {
		t.Fatalf("%d calibration cells, want 4", len(in.Calibration))
	}
	for _, c := range in.Calibration {
		reps := 3
		if c.Pipeline == "tree/mean" && strings.Contains(c.Scenario, "mnar") {
			reps = 2 // the undefined run is left out
		}
		want := stats.CalibrationBin{Count: 50 * reps, Correct: 45 * reps, Confidence: 47 * float64(reps)}
		if c.Reps != reps || len(c.Bins) != 10 || c.Bins[9] != want || c.Bins[0] != (stats.CalibrationBin{}) {
			t.Errorf("calibration %s %s: %d reps, bins %+v; want %d reps, bin 10 %+v", c.Scenario, c.Pipeline, c.Reps, c.Bins, reps, want)
		}
	}
	if _, err := report.Write(context.Background(), t.TempDir(), in); err != nil {
		t.Fatalf("report.Write: %v", err)
	}
}

// TestCombinedRefusesMixedTasks: R² and AUC are never ranked together.
func TestCombinedRefusesMixedTasks(t *testing.T) {
	st := newStore(t)
	bin := fillInto(t, st, parseSweep(t, binaryGrid), func(int, int, int) (store.Result, bool, string) {
		return classResult(0.8), true, ""
	})
	reg := fillInto(t, st, parseSweep(t, curveGrid), func(_, rep, _ int) (store.Result, bool, string) {
		return score(0.5 + 0.01*float64(rep)), true, ""
	})
	recs := []storeconv.Record{bin, reg}
	if _, err := Combined(context.Background(), st, recs); !errors.Is(err, ErrMixedTasks) {
		t.Errorf("Combined of mixed tasks: err = %v, want ErrMixedTasks", err)
	}
	r, c := ByTask(recs)
	if len(r) != 1 || len(c) != 1 || r[0].ID != reg.ID || c[0].ID != bin.ID {
		t.Errorf("ByTask: regression %v, classification %v", r, c)
	}
}
