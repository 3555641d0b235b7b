package client

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/misslab/misslab/internal/auth"
)

// explainer turns the errors of RPCs that never reached the coordinator,
// or that it refused, into errors that say what to do, as a worker's
// refusals do: a connection refused, a TLS handshake refused (probed
// again to see why), a plaintext client of a TLS coordinator, a token or
// cluster refused. The gRPC status stays reachable (status.Code).
type explainer struct {
	addr string
	tls  *tls.Config // nil: the client dials in plaintext
}

// explain returns err, explained when it is one of the cases above.
func (e explainer) explain(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	var done *explained
	if errors.As(err, &done) {
		return err
	}
	msg := status.Convert(err).Message()
	why := ""
	switch status.Code(err) {
	case codes.Unavailable:
		if why = e.noCoordinator(msg); why != "" {
			return &explained{why: why, err: err, unreachable: true}
		}
		why = e.unreachable(ctx, msg)
	case codes.Unauthenticated:
		why = "the coordinator did not accept this client's credentials: check its token (--token-file or $" + auth.EnvToken +
			") and, under mutual TLS, its client certificate (--tls-cert, --tls-key)"
	case codes.PermissionDenied:
		why = "the coordinator serves another cluster: check --cluster or $" + auth.EnvCluster
	}
	if why == "" {
		return err
	}
	return &explained{why: why, err: err, detail: true}
}

// explained is an RPC's error in plain words, the gRPC error inside
// (status.Code finds its code). Its text is the plain words, followed
// by the gRPC error's in parentheses when that says more.
type explained struct {
	why         string
	err         error
	detail      bool // the gRPC error's text adds to why
	unreachable bool // nothing answered at the address
}

func (e *explained) Error() string {
	if e.detail {
		return e.why + " (" + e.err.Error() + ")"
	}
	return e.why
}

func (e *explained) Unwrap() error { return e.err }

// Unreachable reports whether err is an RPC's that found no coordinator
// at its address: nothing listening, an unknown host, no route.
func Unreachable(err error) bool {
	var x *explained
	return errors.As(err, &x) && x.unreachable
}

// noCoordinator says, in full, why an RPC found no coordinator at the
// address: nothing listens there, the host is unknown, or it cannot be
// reached. "" when the failure is another.
func (e explainer) noCoordinator(msg string) string {
	switch {
	case strings.Contains(msg, "connection refused"):
		return fmt.Sprintf("no coordinator answers at %s (connection refused): start one with coordinator serve, "+
			"or give its address with --addr", e.addr)
	case strings.Contains(msg, "no such host"):
		return fmt.Sprintf("the host of %s is unknown: check --addr", e.addr)
	case strings.Contains(msg, "i/o timeout"), strings.Contains(msg, "no route to host"), strings.Contains(msg, "network is unreachable"):
		_, why, _ := strings.Cut(msg, "dial tcp ")
		if _, after, ok := strings.Cut(why, ": "); ok {
			why = after
		}
		return fmt.Sprintf("no coordinator could be reached at %s (%s): check --addr, and that the coordinator runs and "+
			"its port is open", e.addr, strings.TrimSuffix(why, `"`))
	}
	return ""
}

// unreachable says why an RPC could not reach the coordinator at the
// transport (TLS), or "".
func (e explainer) unreachable(ctx context.Context, msg string) string {
	switch {
	case e.tls != nil:
		// The refusal may show as a failed handshake, the server's alert,
		// or only a broken pipe when the server hung up first: a handshake
		// of its own says which.
		if r := auth.TLSRefusal(auth.HandshakeError(ctx, e.addr, e.tls), "this client"); r != "" {
			return fmt.Sprintf("the coordinator at %s refused this client's connection: %s", e.addr, r)
		}
	case e.tls == nil && auth.SpeaksTLS(ctx, e.addr):
		return fmt.Sprintf("the coordinator at %s refused this client's connection: %s", e.addr, auth.PlaintextRefusal("this client"))
	}
	return ""
}

// interceptors returns the unary and stream client interceptors that
// explain every RPC's error.
func (e explainer) interceptors() []grpc.DialOption {
	unary := func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoke grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		return e.explain(ctx, invoke(ctx, method, req, reply, cc, opts...))
	}
	stream := func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer,
		opts ...grpc.CallOption) (grpc.ClientStream, error) {
		s, err := streamer(ctx, desc, cc, method, opts...)
		if err != nil {
			return nil, e.explain(ctx, err)
		}
		return explainedStream{s, e}, nil
	}
	return []grpc.DialOption{grpc.WithChainUnaryInterceptor(unary), grpc.WithChainStreamInterceptor(stream)}
}

// explainedStream explains the errors of a stream's messages.
type explainedStream struct {
	grpc.ClientStream
	e explainer
}

// RecvMsg implements grpc.ClientStream.
func (s explainedStream) RecvMsg(m any) error {
	return s.e.explain(s.Context(), s.ClientStream.RecvMsg(m))
}

// DialConfig is Dial with a command line's security flags (TLS, token,
// cluster; see auth.ClientConfig). Errors wrap auth.ErrConfig.
func DialConfig(addr string, cfg auth.ClientConfig) (*Client, error) {
	opts, err := cfg.DialOptions()
	if err != nil {
		return nil, err
	}
	e := explainer{addr: addr}
	if cfg.TLSOn() {
		if e.tls, err = auth.ClientTLS(cfg.CA, cfg.Cert, cfg.Key, cfg.ServerName); err != nil {
			return nil, err
		}
	}
	return dial(addr, e, opts...)
}
