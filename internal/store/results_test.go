package store

import (
	"encoding/csv"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// visit is one call of a ResultFunc.
type visit struct {
	job, scen, rep, pipe int
	r2                   float64
	kind                 string
}

// TestSweepResults: every stored result of the sweep's jobs comes back
// once, in scenario, repetition, pipeline order, with its job index;
// results of repetitions beyond the sweep and of other pipelines are
// left out; results stored under another sweep with the same jobs count.
func TestSweepResults(t *testing.T) {
	s, _ := openTest(t, Options{})
	a := testSweep(t, []float64{0.1, 0.2, 0.3}, 2, "tree/mia", "tree/mean")
	ida := put(t, s, a)
	// A larger sweep over the same first two scenarios with an extra
	// pipeline and more repetitions stores results a must not see.
	big := testSweep(t, []float64{0.1, 0.2}, 3, "tree/mia", "tree/mean", "tree/oor")
	idb := put(t, s, big)
	fail := record(ida, a, 4, 1)
	fail.Results[0] = Result{ErrKind: "fit", ErrMsg: "singular"}
	recs := []Record{
		record(ida, a, 0, 0, 1), // scenario 0 rep 0
		record(ida, a, 5, 0),    // scenario 2 rep 1, pipeline 0 only
		fail,                    // scenario 1 rep 1, pipeline 1 failed
		record(idb, big, 1, 2),  // scenario 1 rep 0 of big: pipeline tree/oor, not in a
		record(idb, big, 4, 0),  // scenario 0 rep 2 of big: beyond a's repetitions
		record(idb, big, 3, 0),  // scenario 1 rep 1 of big = job 4 of a, pipeline 0
	}
	if err := s.Commit(recs); err != nil {
		t.Fatal(err)
	}
	var got []visit
	err := s.SweepResults(a, func(job, si, rep, pi int, r Result) error {
		got = append(got, visit{job, si, rep, pi, r.R2, r.ErrKind})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// record() stores R2 = job + pipeline/10 of the sweep it was built for.
	want := []visit{
		{0, 0, 0, 0, 0.0, ""}, {0, 0, 0, 1, 0.1, ""},
		{4, 1, 1, 0, 3.0, ""}, {4, 1, 1, 1, 0, "fit"},
		{5, 2, 1, 0, 5.0, ""},
	}
	if !slices.Equal(got, want) {
		t.Errorf("visits\n got %v\nwant %v", got, want)
	}

	stop := errors.New("stop")
	n := 0
	err = s.SweepResults(a, func(int, int, int, int, Result) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("fn error: got %v after %d calls, want stop after 1", err, n)
	}
}

// TestSweepFailures: failed jobs in job order, only the sweep's own and
// only jobs inside it; a job that later stored results is no longer failed.
func TestSweepFailures(t *testing.T) {
	s, _ := openTest(t, Options{})
	a := testSweep(t, []float64{0.1, 0.2}, 3, "tree/mia")
	ida := put(t, s, a)
	b := testSweep(t, []float64{0.1}, 2, "tree/mia")
	idb := put(t, s, b)
	err := s.Commit([]Record{
		{SweepID: ida, Job: 5, Failure: "five"},
		{SweepID: ida, Job: 1, Failure: "one"},
		{SweepID: ida, Job: 2, Failure: "two"},
		{SweepID: ida, Job: 9, Failure: "beyond the sweep"},
		{SweepID: idb, Job: 0, Failure: "other sweep"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Commit([]Record{record(ida, a, 2, 0)}); err != nil { // job 2 succeeded on a retry
		t.Fatal(err)
	}
	got, err := s.SweepFailures(ida, a)
	if err != nil {
		t.Fatal(err)
	}
	want := []JobFailure{{Job: 1, Scenario: 1, Rep: 0, Message: "one"}, {Job: 5, Scenario: 1, Rep: 2, Message: "five"}}
	if !slices.Equal(got, want) {
		t.Errorf("failures\n got %+v\nwant %+v", got, want)
	}
	if _, err := s.SweepFailures(ida[:8], a); !errors.Is(err, ErrNotFound) {
		t.Errorf("prefix id: err %v, want ErrNotFound", err)
	}
}

// TestOpenReadOnly: a copy of a data directory is read without being
// changed, by several readers at once; a directory without a store is
// an error and is not created.
func TestOpenReadOnly(t *testing.T) {
	s, dir := openTest(t, Options{})
	a := testSweep(t, []float64{0.1}, 2, "tree/mia")
	id := put(t, s, a)
	if err := s.Commit([]Record{record(id, a, 1, 0)}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	before, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}

	r1, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r1.Close()
	r2, err := OpenReadOnly(dir) // shared lock: a second reader does not wait
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	rec, err := r2.Sweep(id[:10])
	if err != nil || rec.ID != id {
		t.Fatalf("Sweep by prefix: %v %v", rec.ID, err)
	}
	var r2s []float64
	if err := r1.SweepResults(rec.Spec, func(_, _, _, _ int, r Result) error { r2s = append(r2s, r.R2); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r2s, []float64{1}) {
		t.Errorf("read %v, want [1] (job 1, pipeline 0)", r2s)
	}
	if err := r1.PutSweep(SweepRecord{ID: id, Spec: a}); !errors.Is(err, bolt.ErrDatabaseReadOnly) {
		t.Errorf("write on a read-only store: %v, want ErrDatabaseReadOnly", err)
	}
	r1.Close()
	r2.Close()
	after, _ := os.ReadFile(filepath.Join(dir, FileName))
	if string(after) != string(before) {
		t.Error("reading changed the store file")
	}

	missing := filepath.Join(t.TempDir(), "nothing")
	if _, err := OpenReadOnly(missing); !errors.Is(err, ErrNoStore) {
		t.Errorf("missing directory: %v, want ErrNoStore", err)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("OpenReadOnly created %s", missing)
	}
	// A bbolt file that is not a misslab store.
	other := t.TempDir()
	db, err := bolt.Open(filepath.Join(other, FileName), 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := OpenReadOnly(other); !errors.Is(err, ErrSchema) {
		t.Errorf("foreign file: %v, want ErrSchema", err)
	}
}

// TestOpenReadOnlyWhileWritten: a store held by a writer (a running
// coordinator) is not opened; after bbolt's 5 s lock timeout the error
// says to read a copy.
func TestOpenReadOnlyWhileWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for bbolt's 5 s lock timeout")
	}
	_, dir := openTest(t, Options{})
	_, err := OpenReadOnly(dir)
	if !errors.Is(err, bolt.ErrTimeout) || !strings.Contains(err.Error(), "copy") {
		t.Errorf("open while written: %v, want a timeout that suggests a copy", err)
	}
}

// TestBadNumberMAEAndImputation: MAE must be finite and ≥ 0; an imputation
// RMSE may be NaN (not applicable) but not ±Inf or negative; failures are
// never bad.
func TestBadNumberMAEAndImputation(t *testing.T) {
	ok := Result{R2: 0.5, MSE: 1, MAE: 0.5, ImputeRMSETrain: math.NaN(), ImputeRMSETest: 0.3}
	for _, c := range []struct {
		name string
		edit func(*Result)
		want string
	}{
		{"valid", func(*Result) {}, ""},
		{"zero mae", func(r *Result) { r.MAE = 0 }, ""},
		{"both rmse NaN", func(r *Result) { r.ImputeRMSETest = math.NaN() }, ""},
		{"mae NaN", func(r *Result) { r.MAE = math.NaN() }, "mae is NaN"},
		{"mae Inf", func(r *Result) { r.MAE = math.Inf(1) }, "mae is +Inf"},
		{"mae negative", func(r *Result) { r.MAE = -0.1 }, "mae is -0.1"},
		{"mse negative", func(r *Result) { r.MSE = -5 }, "mse is -5"},
		{"mse zero", func(r *Result) { r.MSE = 0 }, ""},
		{"train -Inf", func(r *Result) { r.ImputeRMSETrain = math.Inf(-1) }, "impute_rmse_train is -Inf"},
		{"test +Inf", func(r *Result) { r.ImputeRMSETest = math.Inf(1) }, "impute_rmse_test is +Inf"},
		{"test negative", func(r *Result) { r.ImputeRMSETest = -2 }, "impute_rmse_test is -2"},
		{"failure", func(r *Result) { r.ErrKind, r.MAE = "fit", math.NaN() }, ""},
	} {
		r := ok
		c.edit(&r)
		if got := r.BadNumber(); got != c.want {
			t.Errorf("%s: BadNumber %q, want %q", c.name, got, c.want)
		}
	}
}

// TestExportMAEColumns: the last three columns carry MAE and the
// imputation RMSEs of each result on every row of it, empty for NaN and
// NA for a failure.
func TestExportMAEColumns(t *testing.T) {
	s, _ := openTest(t, Options{})
	sw := testSweep(t, []float64{0.1}, 1, "tree/mia", "svm/mean")
	id := put(t, s, sw)
	rec := record(id, sw, 0, 0, 1)
	rec.Results[0].MAE, rec.Results[0].ImputeRMSETrain, rec.Results[0].ImputeRMSETest = 0.25, math.NaN(), 1.5
	rec.Results[1] = Result{ErrKind: "fit", ErrMsg: "no", MAE: 0, ImputeRMSETrain: math.NaN()}
	must(t, s.Commit([]Record{rec}))
	var out strings.Builder
	must(t, s.ExportCSV(&out, id))
	rows, err := csv.NewReader(strings.NewReader(out.String())).ReadAll()
	must(t, err)
	n := slices.Index(CSVHeader, "impute_rmse_test") + 1
	if got := strings.Join(rows[0][n-3:n], ","); got != "mae,impute_rmse_train,impute_rmse_test" {
		t.Fatalf("header columns %q", got)
	}
	want := map[string]string{"tree/mia": "0.25,,1.5", "svm/mean": "NA,NA,NA"}
	seen := 0
	for _, r := range rows[1:] {
		if got := strings.Join(r[n-3:n], ","); got != want[r[14]] {
			t.Errorf("%s %s: %q, want %q", r[14], r[15], got, want[r[14]])
		}
		seen++
	}
	if seen != 2*len(Metrics) {
		t.Errorf("%d rows, want %d", seen, 2*len(Metrics))
	}
}

// TestBadNumberOfClassification: a classification result's scores must
// lie in their ranges (an AUC may be NaN: a class absent from the test
// set) and its regression numbers must be NaN.
func TestBadNumberOfClassification(t *testing.T) {
	ok := func() Result {
		return Result{R2: math.NaN(), MSE: math.NaN(), MAE: math.NaN(), ImputeRMSETrain: math.NaN(), ImputeRMSETest: math.NaN(),
			Class: &ClassScores{LogLoss: 0.4, Brier: 0.13, AUC: 0.8, AUCHandTill: 0.8, Accuracy: 0.8, BalancedAccuracy: 0.75, ECE: 0.04,
				Reliability: []CalibrationBin{{}, {Count: 4, Correct: 3, Confidence: 3.5}}}}
	}
	for _, c := range []struct {
		name string
		edit func(*Result)
		want string
	}{
		{"valid", func(*Result) {}, ""},
		{"AUC NaN", func(r *Result) { r.Class.AUC, r.Class.AUCHandTill = math.NaN(), math.NaN() }, ""},
		{"multiclass Brier", func(r *Result) { r.Class.Brier = 1.5 }, ""},
		{"log-loss NaN", func(r *Result) { r.Class.LogLoss = math.NaN() }, "log_loss is NaN"},
		{"log-loss negative", func(r *Result) { r.Class.LogLoss = -0.1 }, "log_loss is -0.1"},
		{"Brier above 2", func(r *Result) { r.Class.Brier = 2.5 }, "brier is 2.5"},
		{"AUC above 1", func(r *Result) { r.Class.AUC = 1.2 }, "auc is 1.2"},
		{"accuracy NaN", func(r *Result) { r.Class.Accuracy = math.NaN() }, "accuracy is NaN"},
		{"ECE negative", func(r *Result) { r.Class.ECE = -1 }, "ece is -1"},
		{"an R²", func(r *Result) { r.R2 = 0.5 }, "r2 is 0.5 for a classification result"},
		{"more right than rows", func(r *Result) { r.Class.Reliability[1].Correct = 5 },
			"reliability bin 1 has 4 rows, 5 correct, confidence 3.5"},
		{"confidence above the rows", func(r *Result) { r.Class.Reliability[1].Confidence = 4.5 },
			"reliability bin 1 has 4 rows, 3 correct, confidence 4.5"},
		{"confidence NaN", func(r *Result) { r.Class.Reliability[0].Confidence = math.NaN() },
			"reliability bin 0 has 0 rows, 0 correct, confidence NaN"},
		{"too many bins", func(r *Result) { r.Class.Reliability = make([]CalibrationBin, 101) },
			"101 reliability bins (at most 100)"},
		{"failure", func(r *Result) { r.ErrKind, r.Class.LogLoss = "fit", math.NaN() }, ""},
	} {
		r := ok()
		c.edit(&r)
		if got := r.BadNumber(); got != c.want {
			t.Errorf("%s: BadNumber %q, want %q", c.name, got, c.want)
		}
	}
}
