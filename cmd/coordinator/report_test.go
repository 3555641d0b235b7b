package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/store"
	"github.com/misslab/misslab/internal/storeconv"
)

const testGrid = `
sweep "tiny" {
  seed        = 9
  repetitions = 2
  data {
    model   = "quadratic"
    n_train = 200
    n_test  = 200
  }
  missingness { mechanism = ["mcar", "mnar"] }
  pipelines { names = ["tree/mia", "tree/mean"] }
}
`

// TestReportOffline fills a store, copies its data directory and writes
// the report from the copy with the report command: no coordinator runs,
// the copy is not modified, and a directory without a store is an error
// that creates nothing.
func TestReportOffline(t *testing.T) {
	orig := t.TempDir()
	id := writeTestStore(t, orig, func(job, pi int) store.Result {
		return store.Result{R2: 0.5 + 0.1*float64(pi) + 0.01*float64(job), MSE: 1, FitSeconds: 0.01, PredictSeconds: 0.001}
	})

	copyDir := t.TempDir()
	db, err := os.ReadFile(filepath.Join(orig, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(copyDir, store.FileName), db, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{}, {"tiny"}, {id[:8]}} {
		out := filepath.Join(t.TempDir(), "r")
		if err := reportCmd(append(args, "--data", copyDir, "--out", out)); err != nil {
			t.Fatalf("report %v: %v", args, err)
		}
		for _, name := range []string{"index.html", "box-r2-1.png", "pvalues-2-1-tree.svg", "timing-2.png", "results.csv"} {
			if _, err := os.Stat(filepath.Join(out, name)); err != nil {
				t.Errorf("report %v: %v", args, err)
			}
		}
		page, _ := os.ReadFile(filepath.Join(out, "index.html"))
		if !bytes.Contains(page, []byte("misslab report: tiny")) || !bytes.Contains(page, []byte(id)) {
			t.Errorf("report %v: the page does not name the sweep and its id", args)
		}
	}
	after, _ := os.ReadFile(filepath.Join(copyDir, store.FileName))
	if !bytes.Equal(after, db) {
		t.Error("the report command changed the copied store")
	}

	missing := filepath.Join(t.TempDir(), "none")
	if err := reportCmd([]string{"--data", missing, "--out", t.TempDir()}); err == nil || !strings.Contains(err.Error(), "no store") {
		t.Errorf("missing data directory: %v", err)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Error("the report command created the missing data directory")
	}
	if err := reportCmd([]string{"--data", copyDir, "--out", copyDir + "/"}); err == nil {
		t.Error("a report into the data directory itself was accepted")
	}
	if err := reportCmd([]string{"other", "--data", copyDir, "--out", t.TempDir()}); err == nil {
		t.Error("an unknown sweep name gave no error")
	}
}

// TestRunWritesReport: `coordinator run` ends with the report of each
// sweep under --out/report/<sweep>/, next to results.csv.
func TestRunWritesReport(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tiny.hcl")
	if err := os.WriteFile(path, []byte(testGrid), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if err := run([]string{path, "--out", out, "--executor", "deterministic"}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"results.csv", "report/tiny/index.html", "report/tiny/box-r2-1.png", "report/tiny/summary.csv"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Error(err)
		}
	}
}

func TestSweepDir(t *testing.T) {
	used := map[string]bool{}
	id := strings.Repeat("ab", 32)
	for _, c := range []struct{ name, want string }{
		{"figure3", "figure3"},
		{"a b/../c", "a-b-..-c"},
		{"..", id[:12]},
		{"figure3", "figure3-" + id[:12]},
		{"é", id[:12] + "-" + id[:12]},
	} {
		if got := sweepDir(storeconv.Record{ID: id, Spec: &grid.Sweep{Name: c.name}}, used); got != c.want {
			t.Errorf("sweepDir(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}
