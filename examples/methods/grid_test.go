package adapters_test

import (
	"context"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/misslab/misslab/internal/client"
	"github.com/misslab/misslab/internal/embedded"
	"github.com/misslab/misslab/internal/worker"
)

// TestByomGrid runs examples/byom.hcl at two repetitions through the
// embedded coordinator and worker with the shipped methods, and checks
// live, end to end, that R's rpart (the R adapter) and misslab's
// tree/surrogate score the same on every job, and that every external
// pipeline produced a score.
func TestByomGrid(t *testing.T) {
	if testing.Short() {
		t.Skip("runs scikit-learn and R fits (about a minute)")
	}
	cat := installMethods(t, python(t), rscript(t))
	f, err := client.LoadGrid(filepath.Join("..", "byom.hcl"), 2)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	_, err = embedded.Run(context.Background(), f, embedded.Options{OutDir: out, Parallel: 2,
		Executor: worker.NewExperiment(1, nil), Methods: cat})
	if err != nil {
		t.Fatal(err)
	}
	r2 := byomScores(t, filepath.Join(out, embedded.ResultsFile))
	jobs := 0
	for job, s := range r2 {
		jobs++
		for _, p := range []string{"tree/surrogate", "rpart/native", "hgb/native", "hgb/mean+mask",
			"tree/sk_iterative", "svm/knn_impute+mask"} {
			if v, ok := s[p]; !ok || math.IsNaN(v) {
				t.Errorf("job %s: no score for %s", job, p)
			}
		}
		if g, r := s["tree/surrogate"], s["rpart/native"]; math.Abs(g-r) > 1e-12*math.Max(1, math.Abs(r)) {
			t.Errorf("job %s: tree/surrogate R² %.17g, rpart %.17g", job, g, r)
		}
	}
	if jobs != 6 {
		t.Errorf("%d jobs, want 3 scenarios × 2 repetitions", jobs)
	}
}

// byomScores reads the R² of every (scenario, repetition) and pipeline
// label (the name without the methods' identities); failures are NaN.
func byomScores(t *testing.T, path string) map[string]map[string]float64 {
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	rows, err := csv.NewReader(fh).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	out := map[string]map[string]float64{}
	for _, r := range rows[1:] {
		if r[col["metric"]] != "r2" {
			continue
		}
		job := r[col["scenario"]] + "/" + r[col["rep"]]
		if out[job] == nil {
			out[job] = map[string]float64{}
		}
		name, _, _ := strings.Cut(r[col["pipeline"]], "@")
		v, err := strconv.ParseFloat(r[col["value"]], 64)
		if err != nil {
			t.Logf("job %s %s: %s", job, name, r[col["error"]])
			v = math.NaN()
		}
		out[job][name] = v
	}
	return out
}
