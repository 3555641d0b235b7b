package embedded

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/methods"
	"github.com/misslab/misslab/internal/worker"
)

// classMethods writes a methods file of testdata/methods/fake.py in dir:
// "prior" regresses and classifies (class frequencies), "badsum"
// classifies with a row summing to 0.9, "avg" only regresses, and
// "fillmean" imputes.
func classMethods(t *testing.T, dir string) *methods.Catalog {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 on PATH")
	}
	src, err := os.ReadFile(filepath.Join("testdata", "methods", "fake.py"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "fake.py"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	var hcl strings.Builder
	for _, m := range []struct{ name, kind, mode, tasks string }{
		{"prior", "learner", "mean", `["regression", "classification"]`},
		{"badsum", "learner", "badsum", `["classification"]`},
		{"avg", "learner", "mean", ""},
		{"fillmean", "imputer", "fill", ""},
	} {
		extra := ""
		if m.kind == "learner" {
			extra = "accepts_missing = true\n"
		}
		if m.tasks != "" {
			extra += "  tasks = " + m.tasks + "\n"
		}
		fmt.Fprintf(&hcl, "method %q {\n  kind = %q\n  command = [%q, \"fake.py\"]\n  files = [\"fake.py\"]\n  %s  timeout = \"5s\"\n  env = { FAKE = %q }\n}\n",
			m.name, m.kind, py, extra, m.mode)
	}
	path := filepath.Join(dir, "methods.hcl")
	if err := os.WriteFile(path, []byte(hcl.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cat, err := methods.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// classGrid is a binary task over built-in and external pipelines.
func classGrid(methods, pipelines string) string {
	return `sweep "cls" {
  seed        = 4
  repetitions = 1
  methods     = [` + methods + `]
  data {
    model   = "quadratic"
    task    = "binary"
    n_train = 300
    n_test  = 300
  }
  missingness {
    mechanism = "mcar"
    rate      = 0.2
  }
  pipelines { names = [` + pipelines + `] }
}
`
}

// TestEmbeddedClassificationWithMethods runs a binary task end to end
// through the embedded coordinator and worker: a tree behind an external
// imputer scores as behind the built-in one, an external learner that
// declares classification is scored on its probabilities, one whose rows
// do not sum to 1 fails as malformed output (the other pipelines are
// unaffected), and a learner that does not declare classification is
// refused at submit, by name.
func TestEmbeddedClassificationWithMethods(t *testing.T) {
	cat := classMethods(t, t.TempDir())
	f, err := grid.Parse([]byte(classGrid(`"prior", "badsum", "fillmean"`,
		`"tree/mean", "tree/fillmean", "prior/native", "prior/fillmean+mask", "badsum/native"`)), "cls.hcl", grid.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if _, err := Run(context.Background(), f, Options{OutDir: out, Parallel: 2, Executor: worker.NewExperiment(1, nil), Methods: cat}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	res := metricByPipeline(t, filepath.Join(out, ResultsFile), "log_loss")
	for _, ok := range []string{"tree/mean", "tree/fillmean", "prior/native", "prior/fillmean+mask"} {
		if r := res[ok]; r.err != "" || !(r.r2 > 0) {
			t.Errorf("%s: %+v, want a log loss", ok, r)
		}
	}
	if a, b := res["tree/mean"].r2, res["tree/fillmean"].r2; math.Abs(a-b) > 1e-9 {
		t.Errorf("tree behind the external mean imputer: log loss %v, behind built-in mean imputation %v", b, a)
	}
	if a, b := res["prior/native"].r2, res["prior/fillmean+mask"].r2; a != b {
		t.Errorf("the class frequencies score %v and %v, want the same whatever the covariates", a, b)
	}
	if r := res["badsum/native"]; !strings.Contains(r.err, "method-output") || !strings.Contains(r.err, "sum to 0.9") {
		t.Errorf("badsum/native: %+v, want a method-output failure naming the row sum", r)
	}

	refused, err := grid.Parse([]byte(classGrid(`"avg"`, `"avg/native"`)), "refused.hcl", grid.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), refused, Options{OutDir: t.TempDir(), Parallel: 1, Executor: worker.NewExperiment(1, nil), Methods: cat})
	if err == nil || !strings.Contains(err.Error(), `external learner "avg" does not declare classification`) {
		t.Errorf("a binary sweep with a regression-only learner: %v, want a refusal naming avg", err)
	}
}

// metricByPipeline reads one metric's rows of a one-job results table
// (in pipelineResult's r2 field).
func metricByPipeline(t *testing.T, path, metric string) map[string]pipelineResult {
	rows := readCSV(t, path)
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	out := map[string]pipelineResult{}
	for _, r := range rows[1:] {
		if r[col["metric"]] != metric {
			continue
		}
		name, _, _ := strings.Cut(r[col["pipeline"]], "@")
		v, err := strconv.ParseFloat(r[col["value"]], 64)
		if err != nil {
			v = math.NaN()
		}
		out[name] = pipelineResult{r2: v, err: r[col["error"]]}
	}
	return out
}
