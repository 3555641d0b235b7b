package auth_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	"github.com/misslab/misslab/internal/auth"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

const token = "0123456789abcdef0123456789abcdef"

// toStatus mirrors the coordinator's mapping of this package's errors.
func toStatus(err error) error {
	switch {
	case errors.Is(err, auth.ErrUnauthenticated):
		return status.Error(codes.Unauthenticated, err.Error())
	case errors.Is(err, auth.ErrWrongCluster):
		return status.Error(codes.PermissionDenied, err.Error())
	}
	return err
}

// serve starts a server with health, reflection and an unimplemented
// SweepService behind p: a call that passes p gets Unimplemented.
func serve(t *testing.T, p *auth.Policy, tlsCfg *tls.Config) string {
	t.Helper()
	opts := []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			resp, err := h(ctx, req)
			return resp, toStatus(err)
		}, p.UnaryInterceptor()),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			return toStatus(h(srv, ss))
		}, p.StreamInterceptor()),
	}
	if tlsCfg != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(tlsCfg)))
	}
	srv := grpc.NewServer(opts...)
	healthpb.RegisterHealthServer(srv, health.NewServer())
	reflection.Register(srv)
	pb.RegisterSweepServiceServer(srv, pb.UnimplementedSweepServiceServer{})
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	return lis.Addr().String()
}

type probe struct{ health, status, reflect codes.Code }

func call(t *testing.T, addr string, opts ...grpc.DialOption) probe {
	t.Helper()
	conn, err := grpc.NewClient(addr, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var p probe
	_, err = healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
	p.health = status.Code(err)
	_, err = pb.NewSweepServiceClient(conn).Status(ctx, &pb.StatusRequest{})
	p.status = status.Code(err)
	if p.status == codes.Unauthenticated && !strings.Contains(err.Error(), "auth:") {
		t.Errorf("refusal without a reason: %v", err)
	}
	rs, err := reflectionpb.NewServerReflectionClient(conn).ServerReflectionInfo(ctx)
	if err == nil {
		err = rs.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}})
		if err == nil {
			_, err = rs.Recv()
		}
	}
	p.reflect = status.Code(err)
	return p
}

func plaintext() grpc.DialOption { return grpc.WithTransportCredentials(insecure.NewCredentials()) }

func TestTokenOverGRPC(t *testing.T) {
	addr := serve(t, auth.NewPolicy(auth.PolicyOptions{Tokens: []string{token}, Cluster: "fig3"}), nil)
	cases := []struct {
		name  string
		creds *auth.Credentials
		want  probe
	}{
		{"none", nil, probe{codes.OK, codes.Unauthenticated, codes.OK}},
		{"wrong token", &auth.Credentials{Token: token + "0", Cluster: "fig3"}, probe{codes.OK, codes.Unauthenticated, codes.OK}},
		{"other cluster", &auth.Credentials{Token: token, Cluster: "fig4"}, probe{codes.OK, codes.PermissionDenied, codes.OK}},
		{"right", &auth.Credentials{Token: token, Cluster: "fig3"}, probe{codes.OK, codes.Unimplemented, codes.OK}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := []grpc.DialOption{plaintext()}
			if c.creds != nil {
				opts = append(opts, grpc.WithPerRPCCredentials(*c.creds))
			}
			if got := call(t, addr, opts...); got != c.want {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

// pki writes a dev PKI into a temp dir and returns the path of each file.
func pki(t *testing.T) func(name string) string {
	t.Helper()
	dir := t.TempDir()
	if err := auth.WriteDevPKI(dir, auth.DefaultHosts, time.Hour, 0o600); err != nil {
		t.Fatal(err)
	}
	return func(name string) string { return filepath.Join(dir, name) }
}

func clientTLS(t *testing.T, ca, cert, key, name string) grpc.DialOption {
	t.Helper()
	cfg, err := auth.ClientTLS(ca, cert, key, name)
	if err != nil {
		t.Fatal(err)
	}
	return grpc.WithTransportCredentials(credentials.NewTLS(cfg))
}

func TestTLSAndMutualTLS(t *testing.T) {
	good, other := pki(t), pki(t) // two unrelated development CAs
	f := auth.DevFiles
	srvTLS, err := auth.ServerTLS(good(f.ServerCert), good(f.ServerKey), "")
	if err != nil {
		t.Fatal(err)
	}
	mtls, err := auth.ServerTLS(good(f.ServerCert), good(f.ServerKey), good(f.CA))
	if err != nil {
		t.Fatal(err)
	}
	tlsAddr := serve(t, auth.NewPolicy(auth.PolicyOptions{}), srvTLS)
	mtlsAddr := serve(t, auth.NewPolicy(auth.PolicyOptions{RequireClientCert: true}), mtls)
	down := probe{codes.Unavailable, codes.Unavailable, codes.Unavailable} // handshake refused
	cases := []struct {
		name string
		addr string
		dial grpc.DialOption
		want probe
	}{
		{"tls: trusted CA", tlsAddr, clientTLS(t, good(f.CA), "", "", ""), probe{codes.OK, codes.Unimplemented, codes.OK}},
		{"tls: by service name", tlsAddr, clientTLS(t, good(f.CA), "", "", "coordinator"), probe{codes.OK, codes.Unimplemented, codes.OK}},
		{"tls: name not in certificate", tlsAddr, clientTLS(t, good(f.CA), "", "", "evil.example"), down},
		{"tls: other CA", tlsAddr, clientTLS(t, other(f.CA), "", "", ""), down},
		{"tls: plaintext client", tlsAddr, plaintext(), down},
		{"mtls: client certificate", mtlsAddr, clientTLS(t, good(f.CA), good(f.ClientCert), good(f.ClientKey), ""),
			probe{codes.OK, codes.Unimplemented, codes.OK}},
		{"mtls: no client certificate", mtlsAddr, clientTLS(t, good(f.CA), "", "", ""),
			probe{codes.OK, codes.Unauthenticated, codes.OK}},
		{"mtls: certificate of another CA", mtlsAddr, clientTLS(t, good(f.CA), other(f.ClientCert), other(f.ClientKey), ""), down},
		{"mtls: server certificate as client", mtlsAddr, clientTLS(t, good(f.CA), good(f.ServerCert), good(f.ServerKey), ""), down},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := call(t, c.addr, c.dial); got != c.want {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestTLSConfigErrors(t *testing.T) {
	f := auth.DevFiles
	good := pki(t)
	if _, err := auth.ServerTLS(good(f.ServerCert), "", ""); !errors.Is(err, auth.ErrConfig) {
		t.Errorf("missing key: %v", err)
	}
	if _, err := auth.ServerTLS(good(f.ServerCert), good(f.ClientKey), ""); !errors.Is(err, auth.ErrConfig) {
		t.Errorf("mismatched key: %v", err)
	}
	if _, err := auth.ClientTLS(good(f.ServerKey), "", "", ""); !errors.Is(err, auth.ErrConfig) {
		t.Errorf("key as CA: %v", err)
	}
	if _, err := auth.ClientTLS(good(f.CA), good(f.ClientCert), "", ""); !errors.Is(err, auth.ErrConfig) {
		t.Errorf("cert without key: %v", err)
	}
	st, err := os.Stat(good(f.ServerKey))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("server key mode %v, %v", st.Mode(), err)
	}
}
