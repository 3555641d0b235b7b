package worker

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/misslab/misslab/internal/auth"
	"google.golang.org/grpc/credentials"
)

// refuseAfter is how many consecutive connection attempts must fail the
// same permanent way at the TLS layer before the worker gives up: one
// odd answer (a coordinator restarting behind a load balancer, a proxy
// in a bad state) must not end a worker.
const refuseAfter = 3

// alertWait bounds the wait for the coordinator's TLS alert after a
// failed write.
const alertWait = time.Second

// outcome is what one connection attempt told about the transport.
type outcome int

const (
	// spoke: the coordinator answered over the transport (it is the
	// right protocol), or the attempt failed in a way that passes.
	spoke outcome = iota
	// rejected: the TLS layer failed in a way retrying cannot mend (see
	// auth.TLSRefusal).
	rejected
	// silent: a plaintext connection was closed before the coordinator
	// sent a byte, as a TLS server does with a plaintext client (and as a
	// load balancer with no backend does): worth a TLS probe.
	silent
)

// attempts follows the outcomes of the worker's connection attempts:
// the current run of identical failures and its length. The zero value
// is ready to use.
type attempts struct {
	mu     sync.Mutex
	kind   outcome
	reason string // plain words (rejected); identical failures share it
	cause  error  // the last failure's error
	run    int
	due    chan struct{} // signalled when a run reaches refuseAfter
}

// record notes one attempt's outcome.
func (a *attempts) record(kind outcome, reason string, cause error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if kind == spoke {
		a.kind, a.reason, a.cause, a.run = spoke, "", nil, 0
		return
	}
	if kind != a.kind || reason != a.reason {
		a.kind, a.reason, a.run = kind, reason, 0
	}
	a.cause = cause
	a.run++
	if a.run == refuseAfter {
		select {
		case a.dueLocked() <- struct{}{}:
		default:
		}
	}
}

// decide returns a channel signalled when a run of failures reaches
// refuseAfter, so that the worker decides without waiting out its
// backoff (while gRPC keeps reconnecting).
func (a *attempts) decide() <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.dueLocked()
}

func (a *attempts) dueLocked() chan struct{} {
	if a.due == nil {
		a.due = make(chan struct{}, 1)
	}
	return a.due
}

// streak returns the current run of identical failures.
func (a *attempts) streak() (kind outcome, reason string, cause error, run int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.kind, a.reason, a.cause, a.run
}

// reset forgets the current run.
func (a *attempts) reset() { a.record(spoke, "", nil) }

// watchedCreds wrap the worker's transport credentials (TLS or
// plaintext) to see how each connection attempt ends: gRPC reports a
// handshake failure only as Unavailable with the error's text, and fails
// calls fast with the last connection error while it waits to reconnect,
// so counting failed calls would count one attempt many times.
type watchedCreds struct {
	credentials.TransportCredentials
	tls  bool
	seen *attempts
}

// ClientHandshake implements credentials.TransportCredentials.
func (c *watchedCreds) ClientHandshake(ctx context.Context, authority string, raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	conn, info, err := c.TransportCredentials.ClientHandshake(ctx, authority, raw)
	if err != nil {
		if reason := auth.TLSRefusal(err, "this worker"); reason != "" && ctx.Err() == nil {
			c.seen.record(rejected, reason, err)
		} else {
			c.seen.record(spoke, "", nil) // a transient failure ends a run
		}
		return nil, nil, err
	}
	return &watchedConn{Conn: conn, tls: c.tls, seen: c.seen}, info, nil
}

// Clone implements credentials.TransportCredentials; the clone reports
// to the same attempts.
func (c *watchedCreds) Clone() credentials.TransportCredentials {
	return &watchedCreds{TransportCredentials: c.TransportCredentials.Clone(), tls: c.tls, seen: c.seen}
}

// watchedConn is a connection past its handshake. Its first read tells
// how the attempt ended: bytes mean the coordinator speaks this
// transport; a TLS alert means it refused the worker's certificate; a
// plaintext connection closed without a byte may be a TLS server.
type watchedConn struct {
	net.Conn
	tls     bool
	seen    *attempts
	decided atomic.Bool
}

// Read implements net.Conn.
func (c *watchedConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 || err != nil {
		c.decide(n, err)
	}
	return n, err
}

// Write implements net.Conn. A write the peer refused before the first
// read settles the attempt: on plaintext it is the silent close of a TLS
// server; under TLS the coordinator's alert is read now, as gRPC closes
// the connection (and the alert with it) as soon as a write fails.
func (c *watchedConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	if err == nil || !closedByPeer(err) || c.decided.Load() {
		return n, err
	}
	if !c.tls {
		c.decide(0, err)
		return n, err
	}
	_ = c.Conn.SetReadDeadline(time.Now().Add(alertWait))
	rn, rerr := c.Conn.Read(make([]byte, 1))
	c.decide(rn, rerr)
	return n, err
}

// decide records the first read's outcome. A read cut short by the
// worker's own close says nothing.
func (c *watchedConn) decide(n int, err error) {
	if (n == 0 && errors.Is(err, net.ErrClosed)) || !c.decided.CompareAndSwap(false, true) {
		return
	}
	switch {
	case n > 0:
		c.seen.record(spoke, "", nil)
	case c.tls:
		if reason := auth.TLSRefusal(err, "this worker"); reason != "" {
			c.seen.record(rejected, reason, err)
		} else {
			c.seen.record(spoke, "", nil)
		}
	case closedByPeer(err):
		c.seen.record(silent, "", err)
	default:
		c.seen.record(spoke, "", nil)
	}
}

// closedByPeer reports whether err says the peer closed or reset the
// connection.
func closedByPeer(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
