package worker

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"

	"github.com/misslab/misslab/internal/auth"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

const testToken = "0123456789abcdef0123456789abcdef"

// syncBuffer is a log destination safe to read while the server writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// countingListener counts the connections it accepts.
type countingListener struct {
	net.Listener
	n atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

// fakeCoordinator welcomes every worker and reports its id on hello.
type fakeCoordinator struct {
	pb.UnimplementedWorkServiceServer
	hello chan string
}

func (f *fakeCoordinator) Work(s grpc.BidiStreamingServer[pb.WorkRequest, pb.WorkResponse]) error {
	m, err := s.Recv()
	if err != nil {
		return err
	}
	if err := s.Send(&pb.WorkResponse{Msg: &pb.WorkResponse_Welcome{Welcome: &pb.Welcome{HeartbeatSeconds: 1}}}); err != nil {
		return err
	}
	select {
	case f.hello <- m.GetHello().GetWorkerId():
	default:
	}
	for {
		if _, err := s.Recv(); err != nil {
			return nil
		}
	}
}

// toStatus maps the policy's errors as the coordinator does.
func toStatus(err error) error {
	switch {
	case errors.Is(err, auth.ErrUnauthenticated):
		return status.Error(codes.Unauthenticated, err.Error())
	case errors.Is(err, auth.ErrWrongCluster):
		return status.Error(codes.PermissionDenied, err.Error())
	}
	return err
}

// testCoordinator is a fake coordinator behind the security of a real one.
type testCoordinator struct {
	addr  string
	lis   *countingListener
	log   *syncBuffer
	hello chan string
}

// startCoordinator serves a fakeCoordinator on lis with cfg's TLS,
// token and logging, as cmd/coordinator wires them.
func startCoordinator(t *testing.T, cfg auth.ServerConfig, lis net.Listener) *testCoordinator {
	t.Helper()
	c := &testCoordinator{addr: lis.Addr().String(), lis: &countingListener{Listener: lis}, log: &syncBuffer{},
		hello: make(chan string, 1)}
	log := hclog.New(&hclog.LoggerOptions{Name: "coordinator", Output: c.log, Level: hclog.Debug})
	sec, err := cfg.Build(c.addr, log.Named("auth"))
	if err != nil {
		t.Fatal(err)
	}
	p := sec.Policy
	srv := grpc.NewServer(append(sec.Options,
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			return toStatus(h(srv, ss))
		}, p.StreamInterceptor()))...)
	pb.RegisterWorkServiceServer(srv, &fakeCoordinator{hello: c.hello})
	go func() { _ = srv.Serve(c.lis) }()
	t.Cleanup(srv.Stop)
	return c
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return lis
}

// pki writes a development PKI into a temp dir; it returns the path of
// each file by name (auth.DevFiles).
func pki(t *testing.T) func(string) string {
	t.Helper()
	dir := t.TempDir()
	if err := auth.WriteDevPKI(dir, auth.DefaultHosts, time.Hour, 0o600); err != nil {
		t.Fatal(err)
	}
	return func(name string) string { return filepath.Join(dir, name) }
}

func clientTLS(t *testing.T, ca, cert, key string) credentials.TransportCredentials {
	t.Helper()
	cfg, err := auth.ClientTLS(ca, cert, key, "")
	if err != nil {
		t.Fatal(err)
	}
	return credentials.NewTLS(cfg)
}

// runWorker runs a worker against addr until it returns or ctx ends.
func runWorker(ctx context.Context, addr string, transport credentials.TransportCredentials, dial ...grpc.DialOption) error {
	return Run(ctx, Options{Addr: addr, ID: "w1", Parallel: 1, Executor: Deterministic{}, Transport: transport,
		MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond, DrainTimeout: time.Second, DialOptions: dial})
}

func TestRefusedWorkerStops(t *testing.T) {
	good, other := pki(t), pki(t) // two unrelated development CAs
	f := auth.DevFiles
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(testToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tlsOnly := auth.ServerConfig{Cert: good(f.ServerCert), Key: good(f.ServerKey), TokenFile: tokenFile}
	mtls := auth.ServerConfig{Cert: good(f.ServerCert), Key: good(f.ServerKey), ClientCA: good(f.CA)}
	plain := auth.ServerConfig{TokenFile: tokenFile}
	cases := []struct {
		name      string
		server    auth.ServerConfig
		transport credentials.TransportCredentials
		dial      []grpc.DialOption
		want      []string // in the worker's error
		wantLog   string   // in the coordinator's log; "": no refused handshake
		code      codes.Code
	}{
		{name: "client certificate of another CA", server: mtls,
			transport: clientTLS(t, good(f.CA), other(f.ClientCert), other(f.ClientKey)),
			want:      []string{"unknown authority", "client certificate", "--client-ca"},
			wantLog:   "the client's certificate is signed by an unknown authority"},
		{name: "server certificate of another CA", server: tlsOnly, transport: clientTLS(t, other(f.CA), "", ""),
			want: []string{"unknown authority", "--tls-ca"}, wantLog: "the client refused the handshake (bad certificate)"},
		{name: "plaintext worker, TLS coordinator", server: tlsOnly,
			want: []string{"requires TLS", "--tls-ca"}, wantLog: "the client does not speak TLS"},
		{name: "TLS worker, plaintext coordinator", server: plain, transport: clientTLS(t, good(f.CA), "", ""),
			want: []string{"does not speak TLS"}},
		{name: "wrong token", server: plain,
			dial: []grpc.DialOption{grpc.WithPerRPCCredentials(auth.Credentials{Token: testToken + "x"})},
			want: []string{"Unauthenticated", "wrong token", "--token-file"}, code: codes.Unauthenticated},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			coord := startCoordinator(t, c.server, listen(t))
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			err := runWorker(ctx, coord.addr, c.transport, c.dial...)
			if !errors.Is(err, ErrRefused) || ctx.Err() != nil {
				t.Fatalf("Run = %v, want ErrRefused before the deadline", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if c.code != codes.OK && status.Code(err) != c.code {
				t.Errorf("status code %v, want %v", status.Code(err), c.code)
			}
			// refuseAfter attempts, plus a probe and attempts racing the
			// decision.
			n := coord.lis.n.Load()
			if n > 2*refuseAfter {
				t.Errorf("%d connections before giving up, want at most %d", n, 2*refuseAfter)
			}
			if c.code == codes.OK && n < refuseAfter { // one odd handshake is no refusal
				t.Errorf("gave up after %d connections, want %d at least", n, refuseAfter)
			}
			logged := coord.log.String()
			if c.wantLog == "" {
				if strings.Contains(logged, "refused a TLS handshake") {
					t.Errorf("unexpected handshake refusal in the log:\n%s", logged)
				}
				return
			}
			if !strings.Contains(logged, c.wantLog) || !strings.Contains(logged, "remote=127.0.0.1:") {
				t.Errorf("coordinator log lacks %q and the remote address:\n%s", c.wantLog, logged)
			}
			if n := strings.Count(logged, "refused a TLS handshake"); n != 1 {
				t.Errorf("%d lines of refused handshakes from one host within a minute, want 1:\n%s", n, logged)
			}
		})
	}
}

// gate is a listener that closes every connection, as a load balancer
// with no live coordinator behind it does, until open is closed.
type gate struct {
	net.Listener
	open   chan struct{}
	closed chan struct{} // one value per connection closed (dropped when full)
}

func (g *gate) Accept() (net.Conn, error) {
	for {
		c, err := g.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case <-g.open:
			return c, nil
		default:
		}
		_ = c.Close()
		select {
		case g.closed <- struct{}{}:
		default:
		}
	}
}

func TestWorkerWaitsForCoordinator(t *testing.T) {
	good := pki(t)
	f := auth.DevFiles
	cases := []struct {
		name      string
		server    auth.ServerConfig
		transport credentials.TransportCredentials
	}{
		{"plaintext", auth.ServerConfig{}, nil},
		{"TLS", auth.ServerConfig{Cert: good(f.ServerCert), Key: good(f.ServerKey)}, clientTLS(t, good(f.CA), "", "")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := &gate{Listener: listen(t), open: make(chan struct{}), closed: make(chan struct{}, 100)}
			coord := startCoordinator(t, c.server, g)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- runWorker(ctx, coord.addr, c.transport) }()
			deadline := time.After(20 * time.Second)
			for range 3 * refuseAfter { // enough closed attempts to refuse, were they refusals
				select {
				case <-g.closed:
				case err := <-done:
					t.Fatalf("the worker gave up while the coordinator was away: %v", err)
				case <-deadline:
					t.Fatal("the worker stopped retrying")
				}
			}
			close(g.open)
			select {
			case id := <-coord.hello:
				if id != "w1" {
					t.Fatalf("hello from %q", id)
				}
			case err := <-done:
				t.Fatalf("the worker gave up: %v", err)
			case <-deadline:
				t.Fatal("the worker did not connect once the coordinator was up")
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatalf("Run = %v after a clean drain", err)
			}
		})
	}
}

// TestFailedPreconditionRefusesOnlyAnFPClass checks that the one
// FailedPrecondition that stops a worker is the coordinator's refusal of
// its floating-point class; any other is retried.
func TestFailedPreconditionRefusesOnlyAnFPClass(t *testing.T) {
	w := &Worker{}
	cases := []struct {
		msg     string
		refused bool
	}{
		{`server: worker of another floating-point class: worker "w" computes in floating-point class "x"`, true},
		{"store: schema version 9 is newer than this coordinator's", false},
	}
	for _, c := range cases {
		reason, _ := w.refusalOf(context.Background(), status.Error(codes.FailedPrecondition, c.msg))
		if (reason != "") != c.refused {
			t.Errorf("%q: refusal reason %q, want refused %v", c.msg, reason, c.refused)
		}
		if c.refused && !strings.Contains(reason, "--fp-class") {
			t.Errorf("%q: reason %q does not point to --fp-class", c.msg, reason)
		}
	}
}
