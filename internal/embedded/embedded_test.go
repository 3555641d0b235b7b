package embedded

import (
	"context"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/server"
	"github.com/misslab/misslab/internal/worker"
)

const tiny = `
sweep "tiny" {
  seed        = 9
  repetitions = 3
  data { model = "quadratic" }
  missingness { mechanism = ["mcar", "mnar"] }
  pipelines { names = ["tree/mia", "linear/mean"] }
}
`

// TestRunWritesEveryResultOnce: Run drives a grid through a loopback
// coordinator and an in-process worker, writes one row per (job,
// pipeline) with the scores the executor reported, and a second Run on
// the same data directory reuses everything (no job runs again).
func TestRunWritesEveryResultOnce(t *testing.T) {
	f, err := grid.Parse([]byte(tiny), "tiny.hcl", grid.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	ids, err := Run(context.Background(), f, Options{OutDir: out, Parallel: 2, Executor: worker.Deterministic{}})
	if err != nil || len(ids) != 1 {
		t.Fatalf("Run: %v, %v", ids, err)
	}
	rows := readCSV(t, filepath.Join(out, ResultsFile))
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	sw := f.Sweeps[0]
	n := 0
	for _, r := range rows[1:] {
		if r[col["metric"]] != "r2" {
			continue
		}
		n++
		rep, _ := strconv.Atoi(r[col["rep"]])
		sc, _ := strconv.Atoi(r[col["scenario"]])
		r2, _ := strconv.ParseFloat(r[col["value"]], 64)
		want, _ := worker.DeterministicScores(sw.Seed, sw.Scenarios[sc].Canonical(), rep, r[col["pipeline"]])
		if r2 != want {
			t.Errorf("row %v: r2 %v, want the executor's %v", r, r2, want)
		}
	}
	if want := sw.Jobs() * len(sw.Pipelines); n != want {
		t.Fatalf("%d r2 rows, want %d (one per job and pipeline)", n, want)
	}
	counting := &countingExec{}
	if _, err := Run(context.Background(), f, Options{OutDir: out, Parallel: 2, Executor: counting}); err != nil {
		t.Fatal(err)
	}
	if n := counting.n.Load(); n != 0 {
		t.Fatalf("the second run executed %d jobs; every result was stored", n)
	}
}

type countingExec struct{ n atomic.Int64 }

func (c *countingExec) Execute(ctx context.Context, sw *grid.Sweep, sc, rep int, p []int) ([]worker.Result, error) {
	c.n.Add(1)
	return worker.Deterministic{}.Execute(ctx, sw, sc, rep, p)
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	rows, err := csv.NewReader(fh).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestRunStopsWhenItsWorkerIsRefused: the in-process worker is refused
// by its coordinator (another floating-point class): Run returns that
// refusal instead of waiting for sweeps nobody will run. (Before, the
// worker's error was dropped and Run waited for ever.)
func TestRunStopsWhenItsWorkerIsRefused(t *testing.T) {
	f, err := grid.Parse([]byte(tiny), "tiny.hcl", grid.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = Run(ctx, f, Options{OutDir: t.TempDir(), Parallel: 1, Executor: worker.Deterministic{},
		Coord: server.Options{FPClass: "elsewhere go0 scores/0"}})
	if !errors.Is(err, worker.ErrRefused) || ctx.Err() != nil {
		t.Errorf("Run with a refused worker: %v (deadline passed: %v), want the worker's refusal", err, ctx.Err() != nil)
	}
}
