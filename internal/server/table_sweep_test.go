package server_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/misslab/misslab/internal/client"
	"github.com/misslab/misslab/internal/experiment"
	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/server"
	"github.com/misslab/misslab/internal/storeconv"
	"github.com/misslab/misslab/internal/table"
	"github.com/misslab/misslab/internal/wire"
	"github.com/misslab/misslab/internal/worker"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

const tableGrid = `sweep "air" {
  seed        = 3
  repetitions = 2
  table {
    file        = "air.csv"
    target      = "Ozone"
    drop        = ["Day"]
    categorical = ["Month"]
  }
  split {
    folds = 3
  }
  missingness {
    mechanism = ["none", "mcar"]
    rate      = 0.25
  }
  pipelines {
    names = ["tree/mia", "linear/mean"]
  }
}
`

// tableGridFile writes the airquality table and a grid naming it into a
// directory of its own, and parses the grid.
func tableGridFile(t *testing.T) (*grid.File, string) {
	t.Helper()
	dir := t.TempDir()
	src, err := os.ReadFile("../../examples/data/airquality.csv")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "air.csv"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "grid.hcl")
	if err := os.WriteFile(path, []byte(tableGrid), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := grid.ParseFile(path, grid.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return f, filepath.Join(dir, "air.csv")
}

// TestTableSweepEndToEnd: a table sweep is refused until its table is
// uploaded; `submit` uploads it; a worker with its own table directory
// fetches it by hash and runs every fold; every stored score is
// bit-identical to experiment.Run on the locally read table; the folds
// export lists every row with a target once per repetition.
func TestTableSweepEndToEnd(t *testing.T) {
	f, csvPath := tableGridFile(t)
	sw := f.Sweeps[0]
	c := startCluster(t, t.TempDir(), server.Options{})
	ctx := context.Background()
	_, err := c.client.Submit(ctx, &pb.SubmitRequest{Spec: wire.SpecToProto(sw)})
	if status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("submit before upload: %v, want FailedPrecondition", err)
	}
	cl, err := client.Dial(c.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ids, err := cl.SubmitFile(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := worker.OpenTableStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- worker.Run(wctx, worker.Options{Addr: c.addr, ID: "w", Parallel: 2, Tables: tables,
			Executor: worker.NewExperiment(1, tables), MinBackoff: 10 * time.Millisecond, MaxBackoff: 100 * time.Millisecond})
	}()
	defer func() { stop(); <-done }()
	st := c.wait(ids[0])
	if st.GetDone() != int64(sw.Jobs()) || st.GetFailed() != 0 || sw.Jobs() != 2*2*3 {
		t.Fatalf("status %v, jobs %d", st, sw.Jobs())
	}
	if p, ok := tables.Path(sw.Scenarios[0].Table.SHA256); !ok || !sameFile(t, p, csvPath) {
		t.Fatalf("the worker's copy of the table: %q, %v", p, ok)
	}
	checkTableScores(t, c.coord, sw, csvPath)
	checkFoldsExport(t, cl, ids[0], sw, csvPath)
}

// checkTableScores recomputes every job of sw from the local table.
func checkTableScores(t *testing.T, coord *server.Coordinator, sw *grid.Sweep, csvPath string) {
	t.Helper()
	ref := sw.Scenarios[0].Table
	tb, err := table.ReadFile(context.Background(), csvPath, table.Options{Drop: ref.Drop, Categorical: ref.Categorical})
	if err != nil {
		t.Fatal(err)
	}
	d, err := tb.Design(table.Spec{Target: ref.Target, Drop: ref.Drop, Categorical: ref.Categorical})
	if err != nil {
		t.Fatal(err)
	}
	for job := range sw.Jobs() {
		si, unit := sw.Job(job)
		rep, fold := sw.Fold(unit)
		want := experiment.Run(context.Background(), experiment.Job{Seed: sw.Seed, Scenario: sw.Scenarios[si],
			Rep: rep, Fold: fold, Pipelines: sw.Pipelines, Design: d}, learn.Env{Threads: 1})
		for p, w := range want {
			r, ok, err := coord.Store().Lookup(storeconv.ToStore(sw), job, p)
			if err != nil || !ok || r.ErrKind != "" {
				t.Fatalf("job %d pipeline %d: stored %v %+v, err %v", job, p, ok, r, err)
			}
			if math.Float64bits(r.R2) != math.Float64bits(w.R2) || math.Float64bits(r.MAE) != math.Float64bits(w.MAE) ||
				!sameNaNBits(r.ImputeRMSETest, w.ImputeRMSETest) {
				t.Fatalf("job %d %s: stored (%v, %v, %v), recomputed (%v, %v, %v)", job, w.Pipeline,
					r.R2, r.MAE, r.ImputeRMSETest, w.R2, w.MAE, w.ImputeRMSETest)
			}
		}
	}
}

// checkFoldsExport: each repetition lists every row with a target in
// exactly one of the folds 1..K, rows being the file's 1-based data rows.
func checkFoldsExport(t *testing.T, cl *client.Client, id string, sw *grid.Sweep, csvPath string) {
	t.Helper()
	var buf bytes.Buffer
	if err := cl.ExportFolds(context.Background(), id, &buf); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil || len(recs) < 2 || recs[0][0] != "repetition" || recs[0][1] != "fold" || recs[0][2] != "row" {
		t.Fatalf("folds export: %v, %v", recs[:min(2, len(recs))], err)
	}
	src, _ := os.ReadFile(csvPath)
	file, _ := csv.NewReader(bytes.NewReader(src)).ReadAll()
	withTarget := map[int]bool{}
	for i, r := range file[1:] {
		if r[0] != "NA" {
			withTarget[i+1] = true
		}
	}
	seen := map[[2]int]int{} // (rep, row) → fold
	for _, r := range recs[1:] {
		rep, _ := strconv.Atoi(r[0])
		fold, _ := strconv.Atoi(r[1])
		row, _ := strconv.Atoi(r[2])
		if rep < 1 || rep > sw.Repetitions || fold < 1 || fold > 3 || !withTarget[row] {
			t.Fatalf("folds row %v", r)
		}
		if _, dup := seen[[2]int{rep, row}]; dup {
			t.Fatalf("row %d twice in repetition %d", row, rep)
		}
		seen[[2]int{rep, row}] = fold
	}
	if len(seen) != sw.Repetitions*len(withTarget) {
		t.Fatalf("%d (repetition, row) pairs, want %d", len(seen), sw.Repetitions*len(withTarget))
	}
}

func sameFile(t *testing.T, a, b string) bool {
	x, err1 := os.ReadFile(a)
	y, err2 := os.ReadFile(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

func sameNaNBits(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}
