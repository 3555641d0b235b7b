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
	"github.com/misslab/misslab/internal/version"
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

// TestWorkerCommandLine: --help, -h and help print the usage, in --flag
// form and without the test knobs, to standard output with status 0;
// --version and version print the version line; a bad command line exits
// 2 with the usage line on standard error; the hidden knobs still parse.
func TestWorkerCommandLine(t *testing.T) {
	for _, c := range []struct {
		args   []string
		code   int
		stdout string // prefix
		stderr string // prefix
	}{
		{[]string{"--help"}, 0, "usage: worker --join HOST:PORT [flags]\n", ""},
		{[]string{"-h"}, 0, "usage: worker --join HOST:PORT [flags]\n", ""},
		{[]string{"help"}, 0, "usage: worker --join HOST:PORT [flags]\n", ""},
		{[]string{"--version"}, 0, version.Line() + "\n", ""},
		{[]string{"version"}, 0, version.Line() + "\n", ""},
		{nil, 2, "", "worker: --join is required\nusage: worker --join HOST:PORT [flags]\nRun 'worker --help' for more.\n"},
		{[]string{"--join", "h:1", "--bogus"}, 2, "", "worker: unknown flag --bogus\nusage: worker"},
		{[]string{"--join", "h:1", "extra"}, 2, "", "worker: unexpected argument \"extra\"\nusage: worker"},
		{[]string{"--join", "h:1", "--parallel", "x"}, 2, "", "worker: invalid value \"x\" for flag --parallel"},
	} {
		var stdout, stderr bytes.Buffer
		code := realMain(context.Background(), c.args, &stdout, &stderr)
		if code != c.code || !strings.HasPrefix(stdout.String(), c.stdout) || !strings.HasPrefix(stderr.String(), c.stderr) ||
			(c.stdout == "") != (stdout.Len() == 0) || (c.stderr == "") != (stderr.Len() == 0) {
			t.Errorf("%q: status %d (want %d), stdout %q, stderr %q", c.args, code, c.code, stdout.String(), stderr.String())
		}
		if c.code == 0 && strings.HasPrefix(c.stdout, "usage") {
			out := stdout.String()
			for _, want := range []string{"\n  --join string\n", "\n  --parallel int\n", "\n  --token-file string\n", "\n  --version\n"} {
				if !strings.Contains(out, want) {
					t.Errorf("%q: the usage lacks %q:\n%s", c.args, want, out)
				}
			}
			if strings.Contains(out, "--executor") || strings.Contains(out, "--delay") || strings.Contains(out, "for tests") {
				t.Errorf("%q: the usage shows a test knob:\n%s", c.args, out)
			}
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out bytes.Buffer
	args := []string{"--join", "127.0.0.1:1", "--executor", "deterministic", "--delay", "1ms", "--parallel", "1", "--max-backoff", "10ms"}
	if code := realMain(ctx, args, &out, &out); code != 0 || strings.Contains(out.String(), "usage") {
		t.Errorf("--executor and --delay: status %d, want 0 (parsed, stopped at once):\n%s", code, &out)
	}
}
