package auth

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

// lockedBuffer is a log destination safe to read while a server writes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestHandshakeLogIsRateLimitedPerHost(t *testing.T) {
	out := &lockedBuffer{}
	now := time.Unix(1e9, 0)
	l := &handshakeLog{log: hclog.New(&hclog.LoggerOptions{Output: out, Level: hclog.Debug}), every: time.Minute,
		now: func() time.Time { return now }, hosts: map[string]*hostLog{}}
	a := &net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 1000}
	b := &net.TCPAddr{IP: net.IPv4(10, 0, 0, 2), Port: 1000}
	plaintext := tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}
	steps := []struct {
		after time.Duration // since the previous step
		addr  *net.TCPAddr
		err   error
		want  string // the new line's refusals=; "": no new warning
	}{
		{0, a, plaintext, "refusals=1"},
		{time.Second, &net.TCPAddr{IP: a.IP, Port: 1001}, plaintext, ""}, // same host, another port
		{time.Second, a, plaintext, ""},
		{time.Second, b, plaintext, "refusals=1"}, // another host has its own limit
		{time.Second, a, io.EOF, ""},              // a probe: debug only
		{time.Minute, a, plaintext, "refusals=3"}, // two counted since the last line, and this one
		{time.Second, a, plaintext, ""},
	}
	for i, s := range steps {
		now = now.Add(s.after)
		before := strings.Count(out.String(), "[WARN]")
		l.refused(s.addr, s.err)
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		added := strings.Count(out.String(), "[WARN]") - before
		switch {
		case s.want == "" && added != 0:
			t.Fatalf("step %d: logged %q, want no warning", i, lines[len(lines)-1])
		case s.want != "" && (added != 1 || !strings.Contains(lines[len(lines)-1], s.want) ||
			!strings.Contains(lines[len(lines)-1], "remote="+s.addr.String())):
			t.Fatalf("step %d: log %q, want one warning with %s and the remote address", i, out.String(), s.want)
		}
	}
	if !strings.Contains(out.String(), "[DEBUG]") {
		t.Errorf("the closed connection was not logged at debug: %q", out.String())
	}
}

func TestHandshakeReason(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}, "does not speak TLS"},
		{&net.OpError{Op: "remote error", Err: errors.New("tls: bad certificate")}, "refused the handshake (bad certificate)"},
		{errors.New("tls: handshake timeout"), "the TLS handshake failed"},
	}
	for _, c := range cases {
		if got := handshakeReason(c.err); !strings.Contains(got, c.want) {
			t.Errorf("handshakeReason(%v) = %q, want %q in it", c.err, got, c.want)
		}
	}
}

func TestClassifyHandshake(t *testing.T) {
	verify := func(err error) error { return fmt.Errorf("handshake: %w", &tls.CertificateVerificationError{Err: err}) }
	cases := []struct {
		err        error
		want       HandshakeFault
		wantDetail string
	}{
		{tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}, FaultNotTLS, ""},
		{verify(x509.UnknownAuthorityError{}), FaultUnknownCA, ""}, // the cause, not its wrapper
		{verify(x509.HostnameError{Host: "coordinator.example"}), FaultHostname, "coordinator.example"},
		{verify(x509.CertificateInvalidError{Reason: x509.Expired}), FaultInvalidCert, ""},
		{verify(errors.New("x509: something else")), FaultVerification, ""},
		{&net.OpError{Op: "remote error", Err: errors.New("tls: bad certificate")}, FaultAlert, "bad certificate"},
		{&net.OpError{Op: "read", Err: io.EOF}, FaultOther, ""},
		{errors.New("tls: handshake timeout"), FaultOther, ""},
	}
	for _, c := range cases {
		if got, detail := ClassifyHandshake(c.err); got != c.want || detail != c.wantDetail {
			t.Errorf("ClassifyHandshake(%v) = (%d, %q), want (%d, %q)", c.err, got, detail, c.want, c.wantDetail)
		}
	}
}

// TestBuildLogsRefusedHandshakes: a coordinator built from a ServerConfig
// with TLS logs a plaintext client and a client certificate of another CA
// at the TLS layer, before any call is made.
func TestBuildLogsRefusedHandshakes(t *testing.T) {
	good, other := t.TempDir(), t.TempDir()
	for _, dir := range []string{good, other} {
		if err := WriteDevPKI(dir, DefaultHosts, time.Hour, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f := DevFiles
	out := &lockedBuffer{}
	log := hclog.New(&hclog.LoggerOptions{Output: out, Level: hclog.Info})
	cfg := ServerConfig{Cert: filepath.Join(good, f.ServerCert), Key: filepath.Join(good, f.ServerKey), ClientCA: filepath.Join(good, f.CA)}
	sec, err := cfg.Build("127.0.0.1:0", log)
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(sec.Options...)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	defer srv.Stop()
	addr := lis.Addr().String()

	// A plaintext client: the server reads a non-TLS record and closes.
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write([]byte("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	_, _ = conn.Read(make([]byte, 1)) // returns once the server has closed
	_ = conn.Close()
	waitForLog(t, out, "the client does not speak TLS")

	// A client certificate of another CA, from another host so that the
	// rate limit does not hide it (127.0.0.2 is loopback on Linux).
	ccfg, err := ClientTLS(filepath.Join(good, f.CA), filepath.Join(other, f.ClientCert), filepath.Join(other, f.ClientKey), "")
	if err != nil {
		t.Fatal(err)
	}
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}
	raw, err := d.Dial("tcp", addr)
	if err != nil {
		t.Skipf("cannot dial from 127.0.0.2: %v", err)
	}
	tc, _, err := credentials.NewTLS(ccfg).ClientHandshake(t.Context(), addr, raw)
	if err == nil {
		_, _ = tc.Read(make([]byte, 1)) // TLS 1.3: the refusal comes after the client's handshake
		_ = tc.Close()
	}
	waitForLog(t, out, "remote=127.0.0.2:")
	if !strings.Contains(out.String(), "signed by an unknown authority") {
		t.Fatalf("log lacks the reason: %s", out.String())
	}
}

// waitForLog polls out until it holds want, for up to 10 s.
func waitForLog(t *testing.T, out *lockedBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("log lacks %q:\n%s", want, out.String())
		}
		time.Sleep(5 * time.Millisecond) // polling a condition with a deadline
	}
}
