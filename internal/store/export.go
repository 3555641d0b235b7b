package store

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/misslab/misslab/internal/atomicfile"
)

// CSVHeader is the header of the tidy results table: one row per sweep,
// scenario, repetition, pipeline and metric. value is NA (R's and pandas'
// default missing marker) when error is set; error is "kind: message",
// the first line of the message only. columns lists the maskable
// covariates 1-based, as grid files write them ("1;2;3" is X1..X3). root
// names a tree's first split variable ("X1", "M2" for a mask column) on
// every row of that result, and is empty for other learners.
//
// mae, impute_rmse_train and impute_rmse_test come last and, like root,
// repeat one result's numbers on every row of it: the test-set mean
// absolute error and the imputation RMSEs (see Result). A cell is empty
// when the number is NaN (not applicable; results stored before the
// imputation RMSEs existed have NaN there, and mae 0) and NA when error is
// set.
//
// fold, table and table_sha256 describe a table sweep's rows (empty for
// simulated data): rep is then the repetition and fold the 1-based
// cross-validation fold (1 for a hold-out split), table the file's name
// and table_sha256 its identity; columns names the amputed feature
// columns ("Wind;Temp") and model is "table".
var CSVHeader = []string{"sweep_id", "sweep", "scenario", "model", "d", "rho", "noise",
	"n_train", "n_test", "mechanism", "rate", "columns", "eta", "rep", "pipeline",
	"metric", "value", "error", "root", "mae", "impute_rmse_train", "impute_rmse_test",
	"fold", "table", "table_sha256"}

// Metrics are the metric names of a regression result's rows, in row
// order. A result with a root split has one more row, RootMetric.
var Metrics = []string{"r2", "mse", "fit_seconds", "predict_seconds"}

// ClassMetrics are the metric names of a classification result's rows
// (scenario task "binary" or "multiclass"), in row order; a root split
// adds RootMetric. Their values are ClassScores' (see internal/stats for
// the definitions); auc and auc_hand_till are NA when a class is absent
// from the test fold, and mae is empty on every row.
var ClassMetrics = []string{"log_loss", "brier", "auc", "auc_hand_till", "accuracy", "balanced_accuracy", "ece",
	"fit_seconds", "predict_seconds"}

// RootMetric is the metric row holding a tree's first split threshold.
const RootMetric = "root_threshold"

// ExportCSV writes the header and the stored results of the given sweeps
// (ids or unique prefixes) to w, scenario by scenario, repetition by
// repetition, pipeline by pipeline. Jobs without a result are skipped;
// failed jobs appear with value NA and their last error.
func (s *Store) ExportCSV(w io.Writer, ids ...string) error {
	defer asCaller() // the final Flush writes outside any transaction
	cw := csv.NewWriter(callerWriter{w})
	if err := cw.Write(CSVHeader); err != nil {
		return fmt.Errorf("store: export: %w", err)
	}
	for _, id := range ids {
		rec, err := s.Sweep(id)
		if err != nil {
			return err
		}
		if err := s.exportSweep(cw, rec); err != nil {
			return err
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("store: export: %w", err)
	}
	return nil
}

// ExportFile writes ExportCSV's table to path atomically (temporary file,
// fsync, rename): a reader sees the old file or the whole new one.
func (s *Store) ExportFile(path string, ids ...string) error {
	return atomicfile.WriteFile(path, 0o644, func(w io.Writer) error { return s.ExportCSV(w, ids...) })
}

func (s *Store) exportSweep(cw *csv.Writer, rec SweepRecord) error {
	sw := rec.Spec
	failures := map[int]string{}
	if err := s.ScanSweep(rec.ID, sw, ScanFuncs{Failed: func(job int, msg string) { failures[job] = msg }}); err != nil {
		return err
	}
	pipes := make([]PipeKey, len(sw.Pipelines))
	for i, p := range sw.Pipelines {
		pipes[i] = NewPipeKey(p)
	}
	return s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketResults)
		row := make([]string, len(CSVHeader))
		for si, sc := range sw.Scenarios {
			fillScenario(row, rec, si, sc)
			dk := NewDrawKey(sw.Seed, sc)
			for rep := range sw.UnitCount() {
				row[13] = strconv.Itoa(rep)
				if sc.Table != nil {
					r, fold := sw.Fold(rep)
					row[13], row[22] = strconv.Itoa(r), strconv.Itoa(fold+1)
				}
				job := rep*len(sw.Scenarios) + si
				for pi, p := range sw.Pipelines {
					k := resultKey(dk, rep, pipes[pi])
					v := b.Get(k)
					msg, failed := failures[job]
					if v == nil && !failed {
						continue
					}
					r := Result{ErrKind: "job", ErrMsg: msg}
					if v != nil {
						var err error
						if r, err = decodeResult(k, v); err != nil {
							return s.recordError(resultName(sw, si, rep, pi), err)
						}
					}
					if err := writeMetrics(cw, row, p, r, classifies(sc.Task)); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
}

func fillScenario(row []string, rec SweepRecord, si int, sc Scenario) {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	cols := make([]string, len(sc.Columns))
	for i, c := range sc.Columns {
		cols[i] = strconv.Itoa(c + 1)
	}
	copy(row, []string{rec.ID, rec.Spec.Name, strconv.Itoa(si), sc.Model, strconv.Itoa(sc.D),
		f(sc.Rho), f(sc.Noise), strconv.Itoa(sc.NTrain), strconv.Itoa(sc.NTest), sc.Mechanism,
		f(sc.Rate), strings.Join(cols, ";"), f(sc.Eta)})
	row[22], row[23], row[24] = "", "", ""
	if t := sc.Table; t != nil {
		for i, c := range sc.Columns {
			cols[i] = t.Features[c]
		}
		row[11], row[23], row[24] = strings.Join(cols, ";"), t.Name, t.SHA256
	}
}

// cell formats a per-result number: shortest round-trip form, empty for
// NaN.
func cell(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// classifies reports whether a scenario's task is a classification.
func classifies(task string) bool { return task == "binary" || task == "multiclass" }

// writeMetrics writes the metric rows of one pipeline result (a job's
// failure is a result of kind "job") of a regression or classification
// scenario.
func writeMetrics(cw *csv.Writer, row []string, p Pipeline, r Result, classification bool) error {
	row[14] = p.Canonical()
	vals := []float64{r.R2, r.MSE, r.FitSeconds, r.PredictSeconds}
	metrics := Metrics
	if classification {
		c := r.Class
		if c == nil {
			nan := math.NaN()
			c = &ClassScores{LogLoss: nan, Brier: nan, AUC: nan, AUCHandTill: nan, Accuracy: nan, BalancedAccuracy: nan, ECE: nan}
		}
		metrics = ClassMetrics
		vals = []float64{c.LogLoss, c.Brier, c.AUC, c.AUCHandTill, c.Accuracy, c.BalancedAccuracy, c.ECE,
			r.FitSeconds, r.PredictSeconds}
	}
	if r.Root != "" && r.ErrKind == "" {
		metrics, vals = append(slices.Clone(metrics), RootMetric), append(vals, r.RootThreshold)
	}
	row[18] = r.Root
	for i, v := range []float64{r.MAE, r.ImputeRMSETrain, r.ImputeRMSETest} {
		row[19+i] = cell(v)
		if r.ErrKind != "" {
			row[19+i] = "NA"
		}
	}
	for i, m := range metrics {
		row[15], row[16], row[17] = m, strconv.FormatFloat(vals[i], 'g', -1, 64), ""
		if math.IsNaN(vals[i]) {
			row[16] = "NA" // an AUC with a class absent from the test fold
		}
		if r.ErrKind != "" {
			msg, _, _ := strings.Cut(r.ErrMsg, "\n") // a stack trace stays in the store
			row[16], row[17] = "NA", r.ErrKind+": "+msg
		}
		if err := cw.Write(row); err != nil {
			return fmt.Errorf("store: export: %w", err)
		}
	}
	return nil
}
