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
	l.log.Warn("refused a TLS handshake", "remote", remote, "reason", HandshakeReason(err), "error", err.Error(),
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

// HandshakeReason says in plain words, from the coordinator's side, why
// the server handshake failed with err.
func HandshakeReason(err error) string {
	var header tls.RecordHeaderError
	var unknownCA x509.UnknownAuthorityError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	switch {
	case errors.As(err, &header):
		return "the client does not speak TLS (a worker or client without --tls-ca or --tls?)"
	case errors.As(err, &unknownCA):
		return "the client's certificate is signed by an unknown authority (not by the CA of --client-ca)"
	case errors.As(err, &invalid):
		return "the client's certificate is not valid here (expired, or not a client certificate)"
	case errors.As(err, &verify):
		return "the client's certificate failed verification"
	}
	if alert, ok := RemoteAlert(err); ok {
		return "the client refused the handshake (" + alert + "): it may not trust this coordinator's certificate (check its --tls-ca and --tls-server-name)"
	}
	return "the TLS handshake failed"
}

// RemoteAlert reports whether err is a TLS alert received from the peer
// (e.g. "bad certificate"), and if so returns the alert's description
// without its "tls: " prefix.
func RemoteAlert(err error) (string, bool) {
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "remote error" || op.Err == nil {
		return "", false
	}
	return strings.TrimPrefix(op.Err.Error(), "tls: "), true
}
