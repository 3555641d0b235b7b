package stats

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/misslab/misslab/internal/atomicfile"
)

func TestWriteResultsCSV(t *testing.T) {
	recs := []Record{
		{Scenario: "s2", Rep: 1, Pipeline: "tree/mia", R2: 0.25, MSE: 7.5, FitSeconds: 0.125, PredictSeconds: 1e-05},
		{Scenario: "s1", Rep: 2, Pipeline: "tree/mia", Failed: true, R2: math.NaN()},
		{Scenario: "s1", Rep: 1, Pipeline: "tree/mia", R2: 1.0 / 3, MSE: 2, FitSeconds: 3, PredictSeconds: 0.5},
	}
	var b bytes.Buffer
	if err := WriteResultsCSV(&b, recs); err != nil {
		t.Fatal(err)
	}
	want := "scenario,rep,pipeline,failed,r2,mse,fit_seconds,predict_seconds\n" +
		"s1,1,tree/mia,FALSE,0.3333333333333333,2,3,0.5\n" +
		"s1,2,tree/mia,TRUE,NA,NA,NA,NA\n" +
		"s2,1,tree/mia,FALSE,0.25,7.5,0.125,1e-05\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	// Shortest round-trip formatting loses nothing.
	row, _ := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	if v, _ := strconv.ParseFloat(row[1][4], 64); v != 1.0/3 {
		t.Errorf("r2 read back as %v", v)
	}
	if err := WriteResultsCSV(&b, append(recs, recs[0])); !errors.Is(err, ErrDuplicate) {
		t.Errorf("duplicate records: err = %v", err)
	}
}

func TestWriteSummaryAndTestsCSV(t *testing.T) {
	sums, err := Summarize(handRecords(), PrefixGroup("/"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteSummaryCSV(&b, sums); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+3*5 || strings.Join(rows[0], ",") != strings.Join(SummaryHeader, ",") {
		t.Fatalf("summary csv has %d rows, header %v", len(rows), rows[0])
	}
	// Row 1 is forest/a, metric r2 over {0.8, 0.9}: n 2, no outliers, and
	// median 0.5·0.8 + 0.5·0.9, which is 0.8500000000000001 in binary —
	// R's quantile(c(0.8, 0.9), 0.5) prints the same 17 digits.
	want := map[string]string{"pipeline": "forest/a", "family": "forest", "metric": "r2", "n": "2",
		"runs": "2", "failed": "0", "median": "0.8500000000000001", "n_outliers": "0"}
	for col, v := range want {
		if got := rows[1][index(SummaryHeader, col)]; got != v {
			t.Errorf("summary %s = %q, want %q", col, got, v)
		}
	}
	// tree/b r2 has one value: sd and se are NA.
	for _, r := range rows[1:] {
		if r[1] == "tree/b" && r[5] == "r2" && (r[index(SummaryHeader, "sd")] != "NA" || r[index(SummaryHeader, "se")] != "NA") {
			t.Errorf("tree/b r2 row %v: sd and se should be NA", r)
		}
	}

	tests, _ := PairwiseTests(handRecords(), nil, 0.95)
	b.Reset()
	if err := WriteTTestsCSV(&b, tests); err != nil {
		t.Fatal(err)
	}
	rows, _ = csv.NewReader(&b).ReadAll()
	if len(rows) != 1+3 || rows[1][index(TTestsHeader, "status")] == "" {
		t.Errorf("t-test csv rows: %v", rows)
	}
}

// TestCSVNamedScores: a classification report names its two scores in
// the headers and metric columns, and writes the tests of both metrics
// in one file with a metric column.
func TestCSVNamedScores(t *testing.T) {
	names := ScoreNames{Score: "auc", Loss: "log_loss"}
	var b bytes.Buffer
	recs := []Record{{Scenario: "s", Pipeline: "tree/mia", R2: 0.75, MSE: 0.5}}
	if err := WriteResultsCSVNamed(&b, recs, names); err != nil {
		t.Fatal(err)
	}
	if want := "scenario,rep,pipeline,failed,auc,log_loss,fit_seconds,predict_seconds\ns,0,tree/mia,FALSE,0.75,0.5,0,0\n"; b.String() != want {
		t.Errorf("results:\n%s\nwant\n%s", b.String(), want)
	}
	sums, err := Summarize(recs, nil)
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := WriteSummaryCSVNamed(&b, sums, names); err != nil {
		t.Fatal(err)
	}
	rows, _ := csv.NewReader(&b).ReadAll()
	var metrics []string
	for _, r := range rows[1:] {
		metrics = append(metrics, r[index(SummaryHeader, "metric")])
	}
	if got := strings.Join(metrics, ","); got != "auc,rel_auc,log_loss,fit_seconds,predict_seconds" {
		t.Errorf("summary metrics %s", got)
	}
	tests, _ := PairwiseTests(handRecords(), nil, 0.95)
	b.Reset()
	if err := WriteMetricTTestsCSV(&b, []MetricTests{{"auc", tests}, {"log_loss", tests[:1]}}); err != nil {
		t.Fatal(err)
	}
	rows, _ = csv.NewReader(&b).ReadAll()
	if len(rows) != 1+len(tests)+1 || rows[0][0] != "metric" || rows[1][0] != "auc" || rows[len(rows)-1][0] != "log_loss" ||
		strings.Join(rows[0][1:], ",") != strings.Join(TTestsHeader, ",") {
		t.Errorf("metric t-test csv: %v", rows)
	}
}

func TestWriteCurvesAndSelectionCSV(t *testing.T) {
	recs := []Record{curveRec("lin|100", 0, "tree/mia", 0.5, false), curveRec("lin|100", 1, "tree/mia", 0.7, false)}
	panels, err := LearningCurves(recs, CurveOptions{Point: curveKey,
		Bayes: func(string, int) (float64, bool) { return 0.8, true }})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteCurvesCSV(&b, panels); err != nil {
		t.Fatal(err)
	}
	want := "panel,kind,pipeline,n,log10_n,reps,failed,median,q1,q3\n" +
		"lin,bayes,,100,2,NA,NA,0.8,NA,NA\n" +
		"lin,pipeline,tree/mia,100,2,2,0,0.6,0.55,0.6499999999999999\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	sel, _ := SelectionFrequency([]Choice{{Group: "a,b", N: 50, Rate: 0.5, Chosen: "X1"}}, "X1", 0.95)
	b.Reset()
	if err := WriteSelectionCSV(&b, sel); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(rows) != 2 || rows[1][0] != "a,b" || rows[1][index(SelectionHeader, "freq")] != "1" ||
		rows[1][index(SelectionHeader, "hi")] != "1" {
		t.Errorf("selection csv = %v, %v (a comma in a key must be quoted)", rows, err)
	}
}

// The writers compose with atomicfile for crash-safe files.
func TestWriteCSVAtomically(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.csv")
	err := atomicfile.WriteFile(path, 0o644, func(w io.Writer) error { return WriteResultsCSV(w, handRecords()) })
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if n := strings.Count(string(data), "\n"); n != 1+len(handRecords()) {
		t.Errorf("results.csv has %d lines", n)
	}
}

func index(header []string, col string) int {
	for i, h := range header {
		if h == col {
			return i
		}
	}
	panic("no column " + col)
}
