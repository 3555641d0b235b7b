package auth

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:7420": true, "localhost:7420": true, "[::1]:7420": true, "127.1.2.3:1": true,
		":7420": false, "0.0.0.0:7420": false, "10.0.0.1:7420": false, "coordinator:7420": false, "junk": false,
	} {
		if got := Loopback(addr); got != want {
			t.Errorf("Loopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

func TestServerConfigBuild(t *testing.T) {
	dir := t.TempDir()
	if err := WriteDevPKI(dir, DefaultHosts, time.Hour, 0o600); err != nil {
		t.Fatal(err)
	}
	f := func(n string) string { return filepath.Join(dir, n) }
	t.Setenv(EnvToken, "")
	t.Setenv(EnvCluster, "")
	cases := []struct {
		name    string
		cfg     ServerConfig
		listen  string
		wantErr bool
		tls     bool
		open    bool
	}{
		{"loopback open", ServerConfig{}, "127.0.0.1:7420", false, false, true},
		{"network open refused", ServerConfig{}, ":7420", true, false, false},
		{"network open insecure", ServerConfig{Insecure: true}, ":7420", false, false, true},
		{"network with token", ServerConfig{TokenFile: f(DevFiles.Token)}, ":7420", false, false, false},
		{"network with mTLS", ServerConfig{Cert: f(DevFiles.ServerCert), Key: f(DevFiles.ServerKey), ClientCA: f(DevFiles.CA)}, ":7420", false, true, false},
		{"TLS alone is not authentication", ServerConfig{Cert: f(DevFiles.ServerCert), Key: f(DevFiles.ServerKey)}, ":7420", true, false, false},
		{"client CA without certificate", ServerConfig{ClientCA: f(DevFiles.CA)}, ":7420", true, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := c.cfg.Build(c.listen, nil)
			if c.wantErr {
				if !errors.Is(err, ErrConfig) {
					t.Fatalf("err = %v, want ErrConfig", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.TLS != c.tls || s.Policy.Open() != c.open {
				t.Fatalf("TLS %v open %v, want %v %v", s.TLS, s.Policy.Open(), c.tls, c.open)
			}
		})
	}
}

func TestClientConfigDialOptions(t *testing.T) {
	dir := t.TempDir()
	if err := WriteDevPKI(dir, DefaultHosts, time.Hour, 0o600); err != nil {
		t.Fatal(err)
	}
	f := func(n string) string { return filepath.Join(dir, n) }
	t.Setenv(EnvToken, "")
	t.Setenv(EnvCluster, "")
	if o, err := (ClientConfig{}).DialOptions(); err != nil || len(o) != 0 {
		t.Fatalf("zero config: %d options, %v", len(o), err)
	}
	if o, err := (ClientConfig{CA: f(DevFiles.CA), TokenFile: f(DevFiles.Token)}).DialOptions(); err != nil || len(o) != 2 {
		t.Fatalf("TLS and token: %d options, %v", len(o), err)
	}
	if _, err := (ClientConfig{CA: f(DevFiles.Token)}).DialOptions(); !errors.Is(err, ErrConfig) {
		t.Fatalf("token as CA: %v", err)
	}
	if err := os.WriteFile(f("short"), []byte("abc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := (ClientConfig{TokenFile: f("short")}).DialOptions(); !errors.Is(err, ErrConfig) {
		t.Fatalf("short token: %v", err)
	}
}
