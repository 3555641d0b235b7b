package embedded

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/misslab/misslab/internal/client"
	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/methodid"
	"github.com/misslab/misslab/internal/methods"
	"github.com/misslab/misslab/internal/run"
	"github.com/misslab/misslab/internal/server"
	"github.com/misslab/misslab/internal/worker"
)

// ResultsFile is the name of the results table written by Run.
const ResultsFile = "results.csv"

// Options configure Run.
type Options struct {
	DataDir  string // store directory; default OutDir
	OutDir   string // where results.csv goes (required)
	Parallel int    // jobs at once; default runtime.NumCPU()
	Executor worker.Executor
	Logger   hclog.Logger
	Progress *client.Progress // nil: no progress output
	Coord    server.Options   // coordinator options (store, leases)
	// Methods is the methods file (coordinator run --methods): the
	// coordinator binds a grid's method names to it and the worker runs
	// them. nil: a grid naming an external method is refused at submit.
	Methods *methods.Catalog
}

// Run runs every sweep of f on this machine: a coordinator on a
// loopback listener and one in-process worker with Parallel slots, using
// the same gRPC path as a cluster. Results already stored in DataDir are
// reused. When every sweep is finished it writes OutDir/results.csv
// atomically and returns the sweep ids. If ctx ends first it stops,
// keeping what was stored, and returns ctx's error.
func Run(ctx context.Context, f *grid.File, o Options) ([]string, error) {
	if o.OutDir == "" || o.Executor == nil {
		return nil, errors.New("embedded: Run needs OutDir and Executor")
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
	if o.Methods != nil {
		o.Coord.Methods = o.Methods.Methods()
	}
	coord, err := server.Open(ctx, o.DataDir, o.Coord)
	if err != nil {
		return nil, err
	}
	defer coord.Close()
	// The worker keeps its own copy of each table, fetched over gRPC as
	// on a cluster: nothing is read from the coordinator's directory.
	tables, err := worker.OpenTableStore(filepath.Join(o.DataDir, "worker-tables"))
	if err != nil {
		return nil, err
	}
	exec, offers, closeMethods, err := withMethods(o)
	if err != nil {
		return nil, err
	}
	defer closeMethods()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srvCtx, stopSrv := context.WithCancel(context.Background())
	var srvErr error
	srvDone := make(chan struct{}) // closed once srvErr is set
	go func() { defer close(srvDone); srvErr = coord.Serve(srvCtx, lis) }()
	defer func() { // after the worker has drained, while the server listened
		stopSrv()
		<-srvDone
	}()
	wopts := worker.Options{Addr: lis.Addr().String(), ID: "embedded", Parallel: o.Parallel,
		Executor: worker.WithTables(exec, tables), Tables: tables, Methods: offers,
		Logger: o.Logger.Named("worker"), DrainTimeout: time.Second}
	var ids []string
	err = runGroup(ctx, srvDone, &srvErr, wopts, func(ctx context.Context) error {
		var err error
		ids, err = runAll(ctx, lis.Addr().String(), f, o.Progress)
		return err
	})
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

// errWorkerStopped is the error of a worker that stopped before the
// sweeps were done, without an error of its own.
var errWorkerStopped = errors.New("embedded: the worker stopped")

// runGroup runs the client (submit and follow, client) and the worker as
// one group (internal/run) beside the already serving coordinator, whose
// Serve error is *srvErr once srvDone is closed: when the client is done, the worker
// drains; when the worker or the coordinator stops first (a refusal, a
// failure), the client stops and that error is returned.
func runGroup(ctx context.Context, srvDone <-chan struct{}, srvErr *error, wopts worker.Options, client func(context.Context) error) error {
	var g run.Group
	g.AddContext(ctx, "client", client)
	g.AddContext(ctx, "worker", func(wctx context.Context) error {
		err := worker.Run(wctx, wopts)
		if err == nil && wctx.Err() == nil {
			err = errWorkerStopped
		}
		return err
	})
	g.AddContext(ctx, "coordinator", func(cctx context.Context) error {
		select {
		case <-srvDone:
			return fmt.Errorf("stopped serving: %w", *srvErr)
		case <-cctx.Done():
			return nil
		}
	})
	err := g.Run()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// withMethods returns the worker's executor and the methods it offers:
// with o.Methods, the executor runs them in processes of a runner that
// the returned function closes (stopping every process and removing its
// temporary files).
func withMethods(o Options) (worker.Executor, []methodid.Method, func(), error) {
	if o.Methods == nil {
		return o.Executor, nil, func() {}, nil
	}
	r, err := methods.NewRunner(o.Methods, methods.Options{MaxProcs: o.Parallel, Logger: o.Logger.Named("methods")})
	if err != nil {
		return nil, nil, nil, err
	}
	return worker.WithMethods(o.Executor, r), o.Methods.Methods(), func() { _ = r.Close() }, nil
}

func runAll(ctx context.Context, addr string, f *grid.File, p *client.Progress) ([]string, error) {
	c, err := client.Dial(addr)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	ids, err := c.SubmitFile(ctx, f)
	if err != nil {
		return ids, err
	}
	if p == nil {
		p = &client.Progress{Out: io.Discard}
	}
	return ids, c.Follow(ctx, ids, 200*time.Millisecond, p)
}
