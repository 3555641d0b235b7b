package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"runtime"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"

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

// setup returns the dial options for the coordinator (TLS, token, the
// worker's id in its logs) and exec wrapped with metrics when
// --metrics-listen is set, whose server stops with ctx.
func (s *security) setup(ctx context.Context, id string, parallel int, exec worker.Executor, log hclog.Logger) ([]grpc.DialOption, worker.Executor, error) {
	if id == "" { // as worker.Run names it
		host, _ := os.Hostname()
		id = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	if parallel <= 0 {
		parallel = runtime.NumCPU()
	}
	s.Peer = id
	opts, err := s.DialOptions()
	if err != nil {
		return nil, nil, err
	}
	if !s.TLSOn() {
		if tokens, _ := auth.LoadTokens(s.TokenFile); len(tokens) > 0 {
			log.Warn("sending the token without TLS: anyone on the network path can read it (set --tls-ca)")
		}
	}
	if s.metricsListen == "" {
		return opts, exec, nil
	}
	lis, err := net.Listen("tcp", s.metricsListen)
	if err != nil {
		return nil, nil, err
	}
	reg := metrics.NewRegistry()
	exec = metrics.NewWorker(reg).Wrap(exec, parallel)
	log.Info("serving metrics", "addr", "http://"+lis.Addr().String()+"/metrics")
	go func() {
		if err := metrics.Serve(ctx, lis, reg); err != nil {
			log.Error("metrics server stopped", "error", err)
		}
	}()
	return opts, exec, nil
}
