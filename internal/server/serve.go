package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/hashicorp/go-hclog"

	"github.com/misslab/misslab/internal/atomicfile"
	"github.com/misslab/misslab/internal/metrics"
	"github.com/misslab/misslab/internal/run"
)

// ServeDir opens the coordinator of data directory dir and serves it on
// listen until ctx ends; with Options.HealthListen it also serves the
// health service alone there, and with Options.MetricsListen its
// Prometheus metrics (and those of the Go runtime and process) over HTTP
// at /metrics there. Every listener is bound before anything is served:
// one that cannot be bound is an error, returned before serving. Each
// bound function is then called, in order, with the gRPC address
// actually bound (the port the kernel chose for ":0"); an error from one
// stops ServeDir and is returned wrapped. The servers run as one group
// (internal/run): if one of them fails, the others stop and ServeDir
// returns that failure, naming the server; once ctx ends they all stop
// and it returns nil.
func ServeDir(ctx context.Context, listen, dir string, opts Options, bound ...func(net.Addr) error) error {
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	var lis []net.Listener
	defer func() {
		for _, l := range lis {
			l.Close() // a no-op once a server has closed it
		}
	}()
	listenOn := func(what, addr string) (net.Listener, error) {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("server: %s listener: %w", what, err)
		}
		lis = append(lis, l)
		return l, nil
	}
	grpcLis, err := listenOn("gRPC", listen)
	if err != nil {
		return err
	}
	var g run.Group
	if opts.HealthListen != "" {
		hl, err := listenOn("health", opts.HealthListen)
		if err != nil {
			return err
		}
		g.AddContext(ctx, "health server", func(ctx context.Context) error { return ServeHealth(ctx, hl) })
		opts.Logger.Info("serving health checks", "addr", hl.Addr().String())
	}
	if opts.MetricsListen != "" {
		ml, err := listenOn("metrics", opts.MetricsListen)
		if err != nil {
			return err
		}
		reg := metrics.NewRegistry()
		opts.Observer = NewMetrics(reg)
		g.AddContext(ctx, "metrics server", func(ctx context.Context) error { return metrics.Serve(ctx, ml, reg) })
		opts.Logger.Info("serving metrics", "addr", "http://"+ml.Addr().String()+"/metrics")
	}
	c, err := Open(ctx, dir, opts)
	if err != nil {
		return err
	}
	defer c.Close()
	c.log.Info("serving", "addr", grpcLis.Addr().String(), "data", dir, "fp_class", c.opts.FPClass)
	for _, f := range bound {
		if err := f(grpcLis.Addr()); err != nil {
			return fmt.Errorf("server: after binding %s: %w", grpcLis.Addr(), err)
		}
	}
	g.AddContext(ctx, "gRPC server", func(ctx context.Context) error { return c.Serve(ctx, grpcLis) })
	err = g.Run()
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// WriteFileAtomic writes path through write, atomically.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	return atomicfile.WriteFile(path, 0o644, write)
}
