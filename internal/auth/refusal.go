package auth

import (
	"context"
	"crypto/tls"
	"fmt"
	"time"
)

// ProbeTimeout bounds SpeaksTLS's probe: 5 s.
const ProbeTimeout = 5 * time.Second

// TLSRefusal says in plain words why the TLS layer refused a connection
// to the coordinator when retrying cannot help, naming flags to fix it,
// or returns "" when err is not such a refusal (a reset, a timeout: the
// coordinator may be restarting). who names the dialling side in the
// text ("this worker", "this client").
func TLSRefusal(err error, who string) string {
	fault, detail := ClassifyHandshake(err)
	switch fault {
	case FaultNotTLS:
		return "the coordinator does not speak TLS (it answered in plaintext): drop --tls, --tls-ca, --tls-cert and --tls-key, " +
			"or serve the coordinator with --tls-cert and --tls-key"
	case FaultUnknownCA:
		return "the coordinator's certificate is signed by an unknown authority: pass --tls-ca with the CA that signed it"
	case FaultHostname:
		return fmt.Sprintf("the coordinator's certificate is not valid for %q: pass --tls-server-name with a name it holds", detail)
	case FaultInvalidCert:
		return "the coordinator's certificate is not valid (expired, not yet valid, or not a server certificate)"
	case FaultVerification:
		return "the coordinator's certificate failed verification: pass --tls-ca with the CA that signed it"
	case FaultAlert:
		return alertRefusal(detail, who)
	}
	return ""
}

// alertRefusal says in plain words why the coordinator refused the
// handshake of who with the TLS alert described by alert.
func alertRefusal(alert, who string) string {
	switch alert {
	case "unknown certificate authority":
		return "the coordinator does not trust " + who + "'s client certificate (signed by an unknown authority): " +
			"pass --tls-cert and --tls-key with a certificate signed by the CA of the coordinator's --client-ca"
	case "certificate required":
		return "the coordinator requires a client certificate (mutual TLS): pass --tls-cert and --tls-key"
	case "bad certificate", "unsupported certificate", "revoked certificate", "expired certificate", "unknown certificate":
		return "the coordinator refused " + who + "'s client certificate (" + alert + "): pass --tls-cert and --tls-key " +
			"with a valid client certificate signed by the CA of the coordinator's --client-ca"
	}
	return "the coordinator refused the TLS handshake (" + alert + ")"
}

// PlaintextRefusal is the plain words for who dialling in plaintext a
// coordinator that requires TLS (see SpeaksTLS).
func PlaintextRefusal(who string) string {
	return "the coordinator requires TLS but " + who + " dials in plaintext: pass --tls-ca with the CA " +
		"that signed the coordinator's certificate (or --tls to trust the system's CAs)"
}

// SpeaksTLS reports whether the server at addr (host:port) answers a TLS
// handshake, with a certificate or an alert: a plaintext client's sign
// that the coordinator requires TLS. The probe verifies nothing and
// sends no data; it offers HTTP/2 (as gRPC does) so that a gRPC server
// completes the handshake without complaint, and gives up after
// ProbeTimeout.
func SpeaksTLS(ctx context.Context, addr string) bool {
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	d := tls.Dialer{Config: &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}, MinVersion: tls.VersionTLS12}} //nolint:gosec // a probe that sends nothing
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		fault, _ := ClassifyHandshake(err)
		return fault == FaultAlert
	}
	_ = conn.Close()
	return true
}

// HandshakeError returns the error of a TLS handshake with the server at
// addr under cfg (nil when it succeeds), within ProbeTimeout: what a gRPC
// client's "authentication handshake failed" hides, for TLSRefusal.
func HandshakeError(ctx context.Context, addr string, cfg *tls.Config) error {
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	c := cfg.Clone()
	c.NextProtos = []string{"h2"}
	conn, err := (&tls.Dialer{Config: c}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	tc := conn.(*tls.Conn)
	// With TLS 1.3 a server's refusal of the client certificate arrives
	// after the client's side of the handshake: read to see it.
	_ = tc.SetReadDeadline(time.Now().Add(2 * time.Second))
	_, err = tc.Read(make([]byte, 1))
	_ = tc.Close()
	if fault, _ := ClassifyHandshake(err); fault == FaultAlert {
		return err
	}
	return nil
}
