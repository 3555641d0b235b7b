package server_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/misslab/misslab/internal/client"
	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/server"
	"github.com/misslab/misslab/internal/wire"
	"github.com/misslab/misslab/internal/worker"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

type pqTableRow struct {
	Y float64  `parquet:"y"`
	A *float64 `parquet:"a,optional"`
	B float64  `parquet:"b"`
	C string   `parquet:"c"`
}

// A Parquet table sweep runs end to end; Submit checks it from the
// file's footer: a spec naming other features is InvalidArgument and
// stores nothing.
func TestParquetTableSweep(t *testing.T) {
	dir := t.TempDir()
	var rows []pqTableRow
	for i := range 60 {
		a := float64(i%9) - 4
		r := pqTableRow{Y: 2*a + float64(i%5), B: float64(i % 7), C: []string{"u", "v", "w"}[i%3]}
		if i%6 != 0 {
			r.A = &a
		}
		rows = append(rows, r)
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[pqTableRow](&buf)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "t.parquet"), buf.Bytes(), 0o644))
	must(os.WriteFile(filepath.Join(dir, "g.hcl"), []byte(`sweep "pq" {
  seed        = 1
  repetitions = 2
  table {
    file        = "t.parquet"
    target      = "y"
    categorical = ["c"]
  }
  split {
    folds = 3
  }
  missingness {
    mechanism = ["none", "self-masking"]
    rate      = 0.2
  }
  pipelines {
    names = ["tree/mia", "linear/mean+mask"]
  }
}
`), 0o644))
	f, err := grid.ParseFile(filepath.Join(dir, "g.hcl"), grid.ParseOptions{})
	must(err)
	c := startCluster(t, t.TempDir(), server.Options{})
	cl, err := client.Dial(c.addr)
	must(err)
	defer cl.Close()
	bad := wire.SpecToProto(f.Sweeps[0])
	for _, sc := range bad.GetScenarios() {
		sc.Table.Features = []string{"b", "a", "c"}
	}
	conn, err := grpc.NewClient(c.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	must(err)
	defer conn.Close()
	if _, _, err := client.UploadTable(context.Background(), conn, filepath.Join(dir, "t.parquet")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.client.Submit(context.Background(), &pb.SubmitRequest{Spec: bad}); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("features out of order: %v, want InvalidArgument", err)
	}
	ids, err := cl.SubmitFile(context.Background(), f)
	must(err)
	tables, err := worker.OpenTableStore(t.TempDir())
	must(err)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- worker.Run(ctx, worker.Options{Addr: c.addr, ID: "w", Parallel: 2, Tables: tables,
			Executor: worker.NewExperiment(1, tables), MinBackoff: 10 * time.Millisecond, MaxBackoff: 100 * time.Millisecond})
	}()
	defer func() { stop(); <-done }()
	if st := c.wait(ids[0]); st.GetDone() != 12 || st.GetFailed() != 0 {
		t.Fatalf("status %v", st)
	}
	all, err := c.client.Status(context.Background(), &pb.StatusRequest{})
	must(err)
	if n := len(all.GetSweeps()); n != 1 {
		t.Fatalf("%d sweeps stored, want only the valid one", n)
	}
}
