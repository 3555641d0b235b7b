package report

import (
	"context"
	"encoding/csv"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/misslab/misslab/internal/stats"
)

// classInput is a classification report: the golden input's scenarios
// and pipelines with each R² turned into an AUC and a log-loss (higher
// R², higher AUC, lower log-loss), learning curves in log-loss towards a
// Bayes log-loss, and reliability bins per pipeline.
func classInput() Input {
	in := goldenInput()
	in.Task, in.Choices, in.Theory = Classification, nil, nil
	rng := rand.New(rand.NewPCG(3, 9))
	for i, r := range in.Records {
		if r.Failed {
			continue
		}
		auc := min(0.5+0.45*r.R2, 0.999)
		in.Records[i].R2, in.Records[i].MSE = auc, 0.69-0.4*(auc-0.5)+0.01*rng.NormFloat64()
	}
	bayes := in.Curves.Bayes
	in.Curves.Bayes = func(panel string, n int) (float64, bool) {
		v, ok := bayes(panel, n)
		return 0.69 - 0.4*0.45*v, ok // the log-loss of the Bayes AUC's pipeline
	}
	for _, s := range stats.Scenarios(in.Records) {
		for _, pl := range stats.Pipelines(in.Records) {
			c := CalibrationCell{Scenario: s, Pipeline: pl, Reps: 12, Bins: make([]stats.CalibrationBin, 10)}
			for b := 5; b < 10; b++ {
				n := 20 + rng.IntN(50)
				conf := (float64(b) + 0.5) / 10
				c.Bins[b] = stats.CalibrationBin{Count: n, Correct: min(n, int(float64(n)*(conf-0.05))), Confidence: conf * float64(n)}
			}
			in.Calibration = append(in.Calibration, c)
		}
	}
	return in
}

// TestClassificationReport: a classification report names AUC and
// log-loss wherever a regression report names R² and MSE, draws both
// box grids, both sets of p-value matrices, reliability diagrams and
// log-loss learning curves, and writes the files a reader needs.
func TestClassificationReport(t *testing.T) {
	if testing.Short() {
		t.Skip("draws every figure")
	}
	dir := t.TempDir()
	files, err := Write(context.Background(), dir, classInput())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"box-auc-1.png", "box-rel-auc-1.png", "box-log-loss-1.png", "calibration-1.png",
		"pvalues-1-1-tree.png", "pvalues-log-loss-1-1-tree.png", "curves.png", "ranks-cd.png", "calibration.csv"} {
		if !slices.Contains(files, f) {
			t.Errorf("no %s among %v", f, files)
		}
	}
	for _, f := range files {
		if strings.Contains(f, "r2") || f == "box-rel-1.png" {
			t.Errorf("a classification report wrote %s", f)
		}
	}
	page := readFile(t, filepath.Join(dir, "index.html"))
	for _, want := range []string{"Test AUC", "Test log-loss", "median AUC", "median log-loss", "rank by mean test AUC",
		"Reliability diagrams", "Median test log-loss over the repetitions", "Bayes-rate log-loss"} {
		if !strings.Contains(page, want) {
			t.Errorf("index.html lacks %q", want)
		}
	}
	if strings.Contains(page, "R²") {
		t.Errorf("index.html of a classification report mentions R²")
	}
	if _, err := CheckPage(dir, strings.NewReader(page)); err != nil {
		t.Fatal(err)
	}
	head := func(name string) []string {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rows, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return rows[0]
	}
	if h := strings.Join(head("results.csv"), ","); !strings.Contains(h, ",auc,log_loss,") {
		t.Errorf("results.csv header %s", h)
	}
	if h := head("ttests.csv"); h[0] != "metric" {
		t.Errorf("ttests.csv header %v", h)
	}
	if h := strings.Join(head("calibration.csv"), ","); h != strings.Join(calibrationHeader, ",") {
		t.Errorf("calibration.csv header %s", h)
	}
}

// TestClassificationTestsBothScores: the t-tests of log-loss are those
// of the records' MSE field, and the ranks are those of AUC.
func TestClassificationTestsBothScores(t *testing.T) {
	in := classInput()
	dir, _ := writePageOnly(t, in)
	f, err := os.Open(filepath.Join(dir, "ttests.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	swapped := slices.Clone(in.Records)
	for i := range swapped {
		swapped[i].R2 = swapped[i].MSE
	}
	aucTests, _ := stats.PairwiseTests(in.Records, stats.PrefixGroup("/"), 0.95)
	lossTests, _ := stats.PairwiseTests(swapped, stats.PrefixGroup("/"), 0.95)
	var auc, loss int
	for _, r := range rows[1:] {
		switch r[0] {
		case "auc":
			auc++
		case "log_loss":
			loss++
		default:
			t.Fatalf("metric %q", r[0])
		}
	}
	if auc != len(aucTests) || loss != len(lossTests) || auc == 0 {
		t.Errorf("ttests.csv: %d AUC and %d log-loss rows, want %d and %d", auc, loss, len(aucTests), len(lossTests))
	}
	// The log-loss rows carry the log-loss differences.
	for _, r := range rows[1:] {
		if r[0] != "log_loss" {
			continue
		}
		i := slices.IndexFunc(lossTests, func(x stats.PairTest) bool {
			return x.Scenario == r[1] && x.A == r[3] && x.B == r[4]
		})
		if i < 0 || strconv.FormatFloat(lossTests[i].MeanDiff, 'g', -1, 64) != r[7] {
			t.Fatalf("log-loss row %v does not match the test of the MSE field", r)
		}
	}
}

// TestCalibrationInputErrors: bins that cannot be a test set's, or a
// pipeline listed twice, are input errors.
func TestCalibrationInputErrors(t *testing.T) {
	for name, edit := range map[string]func(*Input){
		"correct above rows": func(in *Input) { in.Calibration[0].Bins[6].Correct = in.Calibration[0].Bins[6].Count + 1 },
		"confidence NaN":     func(in *Input) { in.Calibration[0].Bins[7].Confidence = math.NaN() },
		"listed twice":       func(in *Input) { in.Calibration = append(in.Calibration, in.Calibration[0]) },
		"unknown task":       func(in *Input) { in.Task = 7 },
	} {
		in := classInput()
		edit(&in)
		if _, err := write(context.Background(), t.TempDir(), in, false); !errors.Is(err, ErrInput) {
			t.Errorf("%s: err = %v, want ErrInput", name, err)
		}
	}
}
