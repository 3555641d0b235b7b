package auth

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc/credentials"
)

// HandshakeLogInterval is how often at most a refused TLS handshake from
// one remote host is logged; the refusals in between are counted and the
// count is given on the next line.
const HandshakeLogInterval = time.Minute

// maxLoggedHosts bounds the hosts whose refusals are being counted; past
// it, hosts not refused for HandshakeLogInterval are forgotten.
const maxLoggedHosts = 4096

// LogHandshakes returns creds whose ServerHandshake logs every failed
// handshake at warn through log (nil: discard), with the remote address
// and the reason in plain words: a client certificate from another CA, a
// plaintext client on the TLS port, a client that does not trust the
// coordinator's certificate. Lines are rate-limited to one per remote host
// per HandshakeLogInterval, with the number of refusals since the host's
// previous line. A client that connects and closes without sending a byte
// (a TCP probe, a port scan) is logged at debug only. The handshake itself
// is unchanged.
func LogHandshakes(creds credentials.TransportCredentials, log hclog.Logger) credentials.TransportCredentials {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	return &loggedCreds{TransportCredentials: creds,
		log: &handshakeLog{log: log, every: HandshakeLogInterval, now: time.Now, hosts: map[string]*hostLog{}}}
}

// loggedCreds are server transport credentials that log refused handshakes.
type loggedCreds struct {
	credentials.TransportCredentials
	log *handshakeLog
}

// ServerHandshake implements credentials.TransportCredentials.
func (c *loggedCreds) ServerHandshake(raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	conn, info, err := c.TransportCredentials.ServerHandshake(raw)
	if err != nil {
		c.log.refused(raw.RemoteAddr(), err)
	}
	return conn, info, err
}

// Clone implements credentials.TransportCredentials; the clone shares the
// rate limit.
func (c *loggedCreds) Clone() credentials.TransportCredentials {
	return &loggedCreds{TransportCredentials: c.TransportCredentials.Clone(), log: c.log}
}

// handshakeLog logs refused handshakes, at most one line per remote host
// per interval.
type handshakeLog struct {
	log   hclog.Logger
	every time.Duration
	now   func() time.Time

	mu    sync.Mutex
	hosts map[string]*hostLog // by remote host (IP, no port)
}

// hostLog is one remote host's state: when it may be logged again and the
// refusals not logged since its last line.
type hostLog struct {
	next   time.Time
	missed int
}

// refused logs (or counts) a failed handshake from addr.
func (l *handshakeLog) refused(addr net.Addr, err error) {
	remote := "unknown"
	if addr != nil {
		remote = addr.String()
	}
	if silentClient(err) {
		l.log.Debug("a client closed the connection before the TLS handshake", "remote", remote, "error", err)
		return
	}
	host := remote
	if h, _, splitErr := net.SplitHostPort(remote); splitErr == nil {
		host = h
	}
	now := l.now()
	l.mu.Lock()
	h := l.hosts[host]
	if h != nil && now.Before(h.next) {
		h.missed++
		l.mu.Unlock()
		return
	}
	if h == nil {
		l.forget(now)
		h = &hostLog{}
		l.hosts[host] = h
	}
	count := h.missed + 1
	h.next, h.missed = now.Add(l.every), 0
	l.mu.Unlock()
	l.log.Warn("refused a TLS handshake", "remote", remote, "reason", handshakeReason(err), "error", err.Error(),
		"refusals", count)
}

// forget drops hosts not refused for an interval once there are too many.
// Call with l.mu held.
func (l *handshakeLog) forget(now time.Time) {
	if len(l.hosts) < maxLoggedHosts {
		return
	}
	for host, h := range l.hosts {
		if !now.Before(h.next) {
			delete(l.hosts, host)
		}
	}
}

// silentClient reports whether err says the client went away without
// attempting a handshake.
func silentClient(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)
}

// HandshakeFault is why a TLS handshake failed, as either side sees it:
// the one classification behind the coordinator's log (LogHandshakes)
// and the worker's decision that retrying cannot help.
type HandshakeFault int

const (
	// FaultOther is none of the faults below: a reset, a timeout, a
	// closed connection (the peer may be restarting).
	FaultOther HandshakeFault = iota
	// FaultNotTLS: the peer's first record is not TLS (it speaks
	// plaintext).
	FaultNotTLS
	// FaultUnknownCA: the peer's certificate is signed by an authority
	// not trusted here.
	FaultUnknownCA
	// FaultHostname: the peer's certificate does not hold the name
	// dialled; the detail is that name.
	FaultHostname
	// FaultInvalidCert: the peer's certificate is expired, not yet valid,
	// or not for this use.
	FaultInvalidCert
	// FaultVerification: the peer's certificate failed verification in
	// another way.
	FaultVerification
	// FaultAlert: the peer sent a TLS alert (it refused the handshake);
	// the detail is the alert's description without its "tls: " prefix,
	// e.g. "bad certificate".
	FaultAlert
)

// ClassifyHandshake returns the fault behind err, the error of a failed
// TLS handshake (or, under TLS 1.3, of the first read after it), and its
// detail where the fault has one (see the constants).
func ClassifyHandshake(err error) (HandshakeFault, string) {
	var header tls.RecordHeaderError
	var unknownCA x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	var op *net.OpError
	switch {
	case errors.As(err, &header):
		return FaultNotTLS, ""
	case errors.As(err, &unknownCA):
		return FaultUnknownCA, ""
	case errors.As(err, &host):
		return FaultHostname, host.Host
	case errors.As(err, &invalid):
		return FaultInvalidCert, ""
	case errors.As(err, &verify):
		return FaultVerification, ""
	case errors.As(err, &op) && op.Op == "remote error" && op.Err != nil:
		return FaultAlert, strings.TrimPrefix(op.Err.Error(), "tls: ")
	}
	return FaultOther, ""
}

// handshakeReason says in plain words, from the coordinator's side, why
// the server handshake failed with err.
func handshakeReason(err error) string {
	fault, alert := ClassifyHandshake(err)
	switch fault {
	case FaultNotTLS:
		return "the client does not speak TLS (a worker or client without --tls-ca or --tls?)"
	case FaultUnknownCA:
		return "the client's certificate is signed by an unknown authority (not by the CA of --client-ca)"
	case FaultInvalidCert:
		return "the client's certificate is not valid here (expired, or not a client certificate)"
	case FaultHostname, FaultVerification:
		return "the client's certificate failed verification"
	case FaultAlert:
		return "the client refused the handshake (" + alert + "): it may not trust this coordinator's certificate (check its --tls-ca and --tls-server-name)"
	}
	return "the TLS handshake failed"
}
