package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"runtime"

	"github.com/hashicorp/go-hclog"

	"github.com/misslab/misslab/internal/auth"
	"github.com/misslab/misslab/internal/metrics"
	"github.com/misslab/misslab/internal/worker"
)

// security is the worker's security and observability flags.
type security struct {
	auth.ClientConfig
	metricsListen string
}

func addSecurity(fs *flag.FlagSet) *security {
	s := &security{}
	s.RegisterFlags(fs)
	fs.StringVar(&s.metricsListen, "metrics-listen", "", "serve Prometheus metrics over HTTP at ADDR/metrics and /healthz (off by default)")
	return s
}

// setup fills opts' transport (TLS) and per-call credentials (token,
// cluster, the worker's id in the coordinator's logs) and, when
// --metrics-listen is set, binds its listener and has the executor report
// each job to the worker's metrics (worker.Observe): it returns the
// metrics server to run beside the worker (nil without the flag). Errors
// wrap auth.ErrConfig or name the metrics listener.
func (s *security) setup(opts *worker.Options, log hclog.Logger) (serve func(context.Context) error, err error) {
	if opts.ID == "" {
		opts.ID = worker.DefaultID()
	}
	s.Peer = opts.ID
	transport, err := s.TransportCredentials()
	if err != nil {
		return nil, err
	}
	calls, err := s.CallOptions()
	if err != nil {
		return nil, err
	}
	opts.Transport, opts.DialOptions = transport, append(opts.DialOptions, calls...)
	if !s.TLSOn() {
		if tokens, _ := auth.LoadTokens(s.TokenFile); len(tokens) > 0 {
			log.Warn("sending the token without TLS: anyone on the network path can read it (set --tls-ca)")
		}
	}
	if s.metricsListen == "" {
		return nil, nil
	}
	lis, err := net.Listen("tcp", s.metricsListen)
	if err != nil {
		return nil, fmt.Errorf("metrics listener: %w", err)
	}
	parallel := opts.Parallel
	if parallel <= 0 { // as worker.Run does
		parallel = runtime.NumCPU()
	}
	reg := metrics.NewRegistry()
	opts.Executor = worker.Observe(opts.Executor, metrics.NewWorker(reg, parallel))
	log.Info("serving metrics", "addr", "http://"+lis.Addr().String()+"/metrics")
	return func(ctx context.Context) error { return metrics.Serve(ctx, lis, reg) }, nil
}
