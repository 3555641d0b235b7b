package server

import (
	"context"
	"io"
	"net"

	"github.com/misslab/misslab/internal/atomicfile"
)

// ServeDir opens the coordinator of data directory dir and serves it on
// listen until ctx ends.
func ServeDir(ctx context.Context, listen, dir string, opts Options) error {
	c, err := Open(dir, opts)
	if err != nil {
		return err
	}
	defer c.Close()
	lis, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	c.log.Info("serving", "addr", lis.Addr().String(), "data", dir)
	if opts.HealthListen != "" {
		hl, err := net.Listen("tcp", opts.HealthListen)
		if err != nil {
			lis.Close()
			return err
		}
		c.log.Info("serving health checks", "addr", hl.Addr().String())
		go func() { _ = ServeHealth(ctx, hl) }()
	}
	return c.Serve(ctx, lis)
}

// WriteFileAtomic writes path through write, atomically.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	return atomicfile.WriteFile(path, 0o644, write)
}
