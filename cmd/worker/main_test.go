package main

import (
	"bytes"
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/misslab/misslab/internal/auth"
)

// TestRefusedWorkerExitsOne: a worker refused at the TLS layer exits with
// status 1 and says why, instead of retrying for ever.
func TestRefusedWorkerExitsOne(t *testing.T) {
	good, other := t.TempDir(), t.TempDir()
	for _, dir := range []string{good, other} {
		if err := auth.WriteDevPKI(dir, auth.DefaultHosts, time.Hour, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f := auth.DevFiles
	cfg, err := auth.ServerTLS(filepath.Join(good, f.ServerCert), filepath.Join(good, f.ServerKey), "")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(grpc.Creds(credentials.NewTLS(cfg)))
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	defer srv.Stop()
	cases := []struct {
		name  string
		flags []string
		want  string
	}{
		{"plaintext", nil, "requires TLS"},
		{"CA of another PKI", []string{"--tls-ca", filepath.Join(other, f.CA)}, "unknown authority"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			var out bytes.Buffer
			args := append([]string{"--join", lis.Addr().String(), "--executor", "noop", "--parallel", "1",
				"--max-backoff", "50ms"}, c.flags...)
			code := realMain(ctx, args, &out, &out)
			if code != 1 || ctx.Err() != nil {
				t.Fatalf("exit status %d (deadline passed: %v), want 1:\n%s", code, ctx.Err() != nil, out.String())
			}
			if !strings.Contains(out.String(), "refused by the coordinator") || !strings.Contains(out.String(), c.want) {
				t.Fatalf("output does not say %q:\n%s", c.want, out.String())
			}
		})
	}
}
