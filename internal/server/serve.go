package server

import (
	"context"
	"fmt"
	"io"
	"net"

	"github.com/misslab/misslab/internal/atomicfile"
)

// ServeDir opens the coordinator of data directory dir and serves it on
// listen until ctx ends. Each bound function is called, in order, with
// the address actually bound (the port the kernel chose for ":0") once
// every listener is open and before serving; an error from one stops
// ServeDir and is returned wrapped.
func ServeDir(ctx context.Context, listen, dir string, opts Options, bound ...func(net.Addr) error) error {
	c, err := Open(dir, opts)
	if err != nil {
		return err
	}
	defer c.Close()
	lis, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	c.log.Info("serving", "addr", lis.Addr().String(), "data", dir, "fp_class", c.opts.FPClass)
	if opts.HealthListen != "" {
		hl, err := net.Listen("tcp", opts.HealthListen)
		if err != nil {
			lis.Close()
			return err
		}
		c.log.Info("serving health checks", "addr", hl.Addr().String())
		go func() { _ = ServeHealth(ctx, hl) }()
	}
	for _, f := range bound {
		if err := f(lis.Addr()); err != nil {
			lis.Close()
			return fmt.Errorf("server: after binding %s: %w", lis.Addr(), err)
		}
	}
	return c.Serve(ctx, lis)
}

// WriteFileAtomic writes path through write, atomically.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	return atomicfile.WriteFile(path, 0o644, write)
}
