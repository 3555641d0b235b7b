package auth

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/grpc/metadata"
)

const (
	tokA = "0123456789abcdef0123"
	tokB = "fedcba9876543210fedc"
)

func TestLoadTokens(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name, file, env string
		want            []string
		wantErr         bool
	}{
		{name: "none", want: nil},
		{name: "env", env: tokA, want: []string{tokA}},
		{name: "file wins over env", file: write("one", tokA+"\n"), env: tokB, want: []string{tokA}},
		{name: "rotation list", file: write("two", "# new first\n"+tokB+"\n\n  "+tokA+"  \n"), want: []string{tokB, tokA}},
		{name: "too short", file: write("short", "secret\n"), wantErr: true},
		{name: "empty file", file: write("empty", "# nothing\n"), wantErr: true},
		{name: "missing file", file: filepath.Join(dir, "absent"), wantErr: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(EnvToken, c.env)
			got, err := LoadTokens(c.file)
			if c.wantErr {
				if !errors.Is(err, ErrConfig) {
					t.Fatalf("err = %v, want ErrConfig", err)
				}
				return
			}
			if err != nil || len(got) != len(c.want) {
				t.Fatalf("got %q, %v; want %q", got, err, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("got %q, want %q", got, c.want)
				}
			}
		})
	}
}

func TestPolicyCheck(t *testing.T) {
	p := NewPolicy(PolicyOptions{Tokens: []string{tokA, tokB}, Cluster: "fig3"})
	const protected = "/misslab.v1.WorkService/Work"
	md := func(kv ...string) context.Context {
		return metadata.NewIncomingContext(context.Background(), metadata.Pairs(kv...))
	}
	cases := []struct {
		name   string
		ctx    context.Context
		method string
		want   error
	}{
		{"no metadata", context.Background(), protected, ErrUnauthenticated},
		{"no token", md(MetadataCluster, "fig3"), protected, ErrUnauthenticated},
		{"not bearer", md(MetadataToken, tokA, MetadataCluster, "fig3"), protected, ErrUnauthenticated},
		{"wrong token", md(MetadataToken, "Bearer "+tokA+"x", MetadataCluster, "fig3"), protected, ErrUnauthenticated},
		{"token prefix", md(MetadataToken, "Bearer "+tokA[:10], MetadataCluster, "fig3"), protected, ErrUnauthenticated},
		{"right token", md(MetadataToken, "Bearer "+tokA, MetadataCluster, "fig3"), protected, nil},
		{"second token", md(MetadataToken, "Bearer "+tokB, MetadataCluster, "fig3"), protected, nil},
		{"other cluster", md(MetadataToken, "Bearer "+tokA, MetadataCluster, "fig4"), protected, ErrWrongCluster},
		{"no cluster", md(MetadataToken, "Bearer "+tokA), protected, ErrWrongCluster},
		{"wrong token and cluster", md(MetadataToken, "Bearer nope-nope-nope-nope", MetadataCluster, "fig4"), protected, ErrUnauthenticated},
		{"health", context.Background(), "/grpc.health.v1.Health/Check", nil},
		{"health watch", context.Background(), "/grpc.health.v1.Health/Watch", nil},
		{"reflection", context.Background(), "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo", nil},
		{"reflection alpha", context.Background(), "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", nil},
		{"look-alike", context.Background(), "/grpc.health.v1.HealthX/Check", ErrUnauthenticated},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := p.Check(c.ctx, c.method)
			if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
				t.Fatalf("Check = %v, want %v", err, c.want)
			}
		})
	}
	if !NewPolicy(PolicyOptions{}).Open() || p.Open() {
		t.Fatal("Open() wrong")
	}
	if err := NewPolicy(PolicyOptions{}).Check(context.Background(), protected); err != nil {
		t.Fatalf("open policy refused: %v", err)
	}
}

func TestCredentialsMetadata(t *testing.T) {
	md, err := Credentials{Token: tokA, Cluster: "fig3", Peer: "w1"}.GetRequestMetadata(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if md[MetadataToken] != "Bearer "+tokA || md[MetadataCluster] != "fig3" || md[MetadataPeer] != "w1" {
		t.Fatalf("metadata %v", md)
	}
	md, _ = Credentials{}.GetRequestMetadata(context.Background())
	if len(md) != 0 {
		t.Fatalf("empty credentials sent %v", md)
	}
}
