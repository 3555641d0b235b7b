package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/worker"
)

// ResultsFile is the name of the results table written by RunEmbedded.
const ResultsFile = "results.csv"

// EmbeddedOptions configure RunEmbedded.
type EmbeddedOptions struct {
	DataDir  string // store directory; default OutDir
	OutDir   string // where results.csv goes (required)
	Parallel int    // jobs at once; default runtime.NumCPU()
	Executor worker.Executor
	Logger   hclog.Logger
	Progress *Progress // nil: no progress output
	Coord    Options   // coordinator options (store, leases)
}

// RunEmbedded runs every sweep of f on this machine: a coordinator on a
// loopback listener and one in-process worker with Parallel slots, using
// the same gRPC path as a cluster. Results already stored in DataDir are
// reused. When every sweep is finished it writes OutDir/results.csv
// atomically and returns the sweep ids. If ctx ends first it stops,
// keeping what was stored, and returns ctx's error.
func RunEmbedded(ctx context.Context, f *grid.File, o EmbeddedOptions) ([]string, error) {
	if o.OutDir == "" || o.Executor == nil {
		return nil, errors.New("server: RunEmbedded needs OutDir and Executor")
	}
	if o.DataDir == "" {
		o.DataDir = o.OutDir
	}
	if o.Parallel <= 0 {
		o.Parallel = runtime.NumCPU()
	}
	if o.Logger == nil {
		o.Logger = hclog.NewNullLogger()
	}
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return nil, err
	}
	o.Coord.Logger = o.Logger.Named("coordinator")
	coord, err := Open(o.DataDir, o.Coord)
	if err != nil {
		return nil, err
	}
	defer coord.Close()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srvCtx, stopSrv := context.WithCancel(context.Background())
	srvDone := make(chan struct{})
	go func() { defer close(srvDone); _ = coord.Serve(srvCtx, lis) }()
	wctx, stopWorker := context.WithCancel(context.Background())
	workerDone := make(chan struct{})
	go func() {
		defer close(workerDone)
		_ = worker.Run(wctx, worker.Options{Addr: lis.Addr().String(), ID: "embedded", Parallel: o.Parallel,
			Executor: o.Executor, Logger: o.Logger.Named("worker"), DrainTimeout: time.Second})
	}()
	defer func() { // the worker drains while the server still listens
		stopWorker()
		<-workerDone
		stopSrv()
		<-srvDone
	}()

	ids, err := runAll(ctx, lis.Addr().String(), f, o.Progress)
	if err != nil {
		return ids, err
	}
	if err := coord.Flush(ctx); err != nil {
		return ids, err
	}
	if err := coord.Store().ExportFile(filepath.Join(o.OutDir, ResultsFile), ids...); err != nil {
		return ids, fmt.Errorf("write results: %w", err)
	}
	return ids, nil
}

func runAll(ctx context.Context, addr string, f *grid.File, p *Progress) ([]string, error) {
	c, err := Dial(addr)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	ids, err := c.SubmitFile(ctx, f)
	if err != nil {
		return ids, err
	}
	if p == nil {
		p = &Progress{Out: discard{}}
	}
	return ids, c.Follow(ctx, ids, 200*time.Millisecond, p)
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }
