package client_test

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"

	"github.com/misslab/misslab/internal/auth"
	"github.com/misslab/misslab/internal/client"
	"github.com/misslab/misslab/internal/server"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// serveSecured serves a coordinator on a temp data directory over TLS
// (mutual when mtls) with the dev PKI in dir and a token; it returns the
// address.
func serveSecured(t *testing.T, dir string, mtls bool) string {
	t.Helper()
	f := auth.DevFiles
	clientCA := ""
	if mtls {
		clientCA = filepath.Join(dir, f.CA)
	}
	cfg, err := auth.ServerTLS(filepath.Join(dir, f.ServerCert), filepath.Join(dir, f.ServerKey), clientCA)
	if err != nil {
		t.Fatal(err)
	}
	tokens, err := auth.LoadTokens(filepath.Join(dir, f.Token))
	if err != nil {
		t.Fatal(err)
	}
	p := auth.NewPolicy(auth.PolicyOptions{Tokens: tokens, RequireClientCert: mtls})
	c, err := server.Open(context.Background(), t.TempDir(), server.Options{GRPCOptions: []grpc.ServerOption{grpc.Creds(credentials.NewTLS(cfg))},
		Unary: []grpc.UnaryServerInterceptor{p.UnaryInterceptor()}, Stream: []grpc.StreamServerInterceptor{p.StreamInterceptor()}})
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = c.Serve(ctx, lis) }()
	t.Cleanup(func() { cancel(); <-done; c.Close() })
	return lis.Addr().String()
}

// TestClientErrorsSayWhatToDo: a command-line client that cannot reach
// its coordinator, or is refused, gets an error in plain words naming the
// flag to fix, not gRPC's text ("error reading server preface: EOF"),
// with the status code kept.
func TestClientErrorsSayWhatToDo(t *testing.T) {
	good, other := t.TempDir(), t.TempDir()
	for _, d := range []string{good, other} {
		if err := auth.WriteDevPKI(d, auth.DefaultHosts, time.Hour, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f := auth.DevFiles
	tlsAddr, mtlsAddr := serveSecured(t, good, false), serveSecured(t, good, true)
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()
	wrongToken := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(wrongToken, []byte("not-the-token-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	token := filepath.Join(good, f.Token)
	for _, c := range []struct {
		name string
		addr string
		cfg  auth.ClientConfig
		code codes.Code
		want []string
	}{
		{"nothing listens", closedAddr, auth.ClientConfig{}, codes.Unavailable, []string{"no coordinator answers at " + closedAddr, "--addr"}},
		{"plaintext client, TLS coordinator", tlsAddr, auth.ClientConfig{TokenFile: token}, codes.Unavailable,
			[]string{"requires TLS but this client dials in plaintext", "--tls-ca"}},
		{"unknown CA", tlsAddr, auth.ClientConfig{CA: filepath.Join(other, f.CA), TokenFile: token}, codes.Unavailable,
			[]string{"signed by an unknown authority", "--tls-ca"}},
		{"client certificate of another CA", mtlsAddr, auth.ClientConfig{CA: filepath.Join(good, f.CA), TokenFile: token,
			Cert: filepath.Join(other, f.ClientCert), Key: filepath.Join(other, f.ClientKey)}, codes.Unavailable,
			[]string{"client certificate", "--client-ca"}},
		{"no client certificate", mtlsAddr, auth.ClientConfig{CA: filepath.Join(good, f.CA), TokenFile: token}, codes.Unauthenticated,
			[]string{"did not accept this client's credentials", "--tls-cert"}},
		{"wrong token", tlsAddr, auth.ClientConfig{CA: filepath.Join(good, f.CA), TokenFile: wrongToken}, codes.Unauthenticated,
			[]string{"did not accept this client's credentials", "--token-file"}},
	} {
		cl, err := client.DialConfig(c.addr, c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		_, err = cl.Status(ctx, &pb.StatusRequest{})
		cancel()
		cl.Close()
		if status.Code(err) != c.code || err == nil {
			t.Errorf("%s: code %v, want %v (%v)", c.name, status.Code(err), c.code, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", c.name, err, w)
			}
		}
	}
	cl, err := client.DialConfig(tlsAddr, auth.ClientConfig{CA: filepath.Join(good, f.CA), TokenFile: token})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := cl.Status(context.Background(), &pb.StatusRequest{}); err != nil {
		t.Errorf("a client with the right CA and token: %v", err)
	}
}

// TestNoCoordinatorInPlainWords: an RPC, unary or streamed, that finds
// nothing listening says so in plain words only (no gRPC text), keeps
// its Unavailable code, and is Unreachable; a refusal by a coordinator
// that answers is not.
func TestNoCoordinatorInPlainWords(t *testing.T) {
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := closed.Addr().String()
	closed.Close()
	cl, err := client.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	_, unary := cl.Status(context.Background(), &pb.StatusRequest{})
	stream := cl.Export(context.Background(), "x", io.Discard)
	want := "no coordinator answers at " + addr + " (connection refused): start one with coordinator serve, or give its address with --addr"
	for name, err := range map[string]error{"unary": unary, "stream": stream} {
		if err == nil || err.Error() != want || status.Code(err) != codes.Unavailable || !client.Unreachable(err) {
			t.Errorf("%s: %v (code %v, unreachable %v), want %q", name, err, status.Code(err), client.Unreachable(err), want)
		}
	}

	good := t.TempDir()
	if err := auth.WriteDevPKI(good, auth.DefaultHosts, time.Hour, 0o600); err != nil {
		t.Fatal(err)
	}
	tlsAddr := serveSecured(t, good, false)
	plain, err := client.Dial(tlsAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, err := plain.Status(context.Background(), &pb.StatusRequest{}); err == nil || client.Unreachable(err) ||
		!strings.Contains(err.Error(), "rpc error") {
		t.Errorf("a TLS coordinator refusing a plaintext client: %v (unreachable %v), want the gRPC detail kept", err, client.Unreachable(err))
	}
}
