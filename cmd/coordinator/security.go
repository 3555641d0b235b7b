package main

import (
	"flag"

	"github.com/hashicorp/go-hclog"

	"github.com/misslab/misslab/internal/auth"
	"github.com/misslab/misslab/internal/client"
	"github.com/misslab/misslab/internal/server"
)

// clientSecurity is the security flags of submit, status, cancel and export.
type clientSecurity struct{ auth.ClientConfig }

func addClientSecurity(fs *flag.FlagSet) *clientSecurity {
	s := &clientSecurity{}
	s.RegisterFlags(fs)
	return s
}

// dial connects to the coordinator at addr with the flags' TLS and token.
func (s *clientSecurity) dial(addr string) (*client.Client, error) {
	return client.DialConfig(addr, s.ClientConfig)
}

// serveSecurity is the security and observability flags of serve.
type serveSecurity struct {
	auth.ServerConfig
	metricsListen, healthListen string
}

func addServeSecurity(fs *flag.FlagSet) *serveSecurity {
	s := &serveSecurity{}
	s.RegisterFlags(fs)
	fs.StringVar(&s.metricsListen, "metrics-listen", "", "serve Prometheus metrics over HTTP at ADDR/metrics (off by default)")
	fs.StringVar(&s.healthListen, "health-listen", "", "also serve the gRPC health service alone, in plaintext, at ADDR (for probes that cannot speak TLS)")
	return s
}

// apply fills opts with the access policy, TLS, the health listener and
// the metrics listener (ServeDir binds and serves them).
func (s *serveSecurity) apply(listen string, opts *server.Options, log hclog.Logger) error {
	sec, err := s.Build(listen, log.Named("auth"))
	if err != nil {
		return err
	}
	opts.GRPCOptions = append(opts.GRPCOptions, sec.Options...)
	opts.Unary = append(opts.Unary, sec.Policy.UnaryInterceptor())
	opts.Stream = append(opts.Stream, sec.Policy.StreamInterceptor())
	opts.HealthListen, opts.MetricsListen = s.healthListen, s.metricsListen
	log.Info("security", "tls", sec.TLS, "client_certificates", s.ClientCA != "", "open", sec.Policy.Open(),
		"cluster", auth.ClusterName(s.Cluster))
	return nil
}
