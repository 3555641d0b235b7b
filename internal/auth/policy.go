package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"strings"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
)

// DefaultExempt lists the method prefixes reachable without credentials:
// the standard health service (probes) and server reflection (grpcurl).
var DefaultExempt = []string{
	"/grpc.health.v1.Health/",
	"/grpc.reflection.v1.ServerReflection/",
	"/grpc.reflection.v1alpha.ServerReflection/",
}

// Policy is the coordinator's access rule. Every call to a method not
// under an Exempt prefix must pass all the checks that are configured:
// a verified client certificate (RequireClientCert), one of Tokens, and
// the Cluster name. A Policy with nothing configured lets everything
// through. Its interceptors return errors wrapping ErrUnauthenticated or
// ErrWrongCluster and log each refusal.
type Policy struct {
	hashes            [][sha256.Size]byte
	cluster           string
	requireClientCert bool
	exempt            []string
	log               hclog.Logger
}

// PolicyOptions configure NewPolicy.
type PolicyOptions struct {
	Tokens  []string // accepted tokens; none: no token is asked for
	Cluster string   // if set, clients must name this cluster
	// RequireClientCert asks every non-exempt call for a client
	// certificate verified by the server's client CA (mutual TLS). The
	// TLS layer verifies any certificate offered; this makes one required
	// while leaving health checks open to probes without one.
	RequireClientCert bool
	Exempt            []string     // default DefaultExempt
	Logger            hclog.Logger // refusals are logged at warn; default discard
}

// NewPolicy returns the policy described by o.
func NewPolicy(o PolicyOptions) *Policy {
	p := &Policy{cluster: o.Cluster, requireClientCert: o.RequireClientCert, exempt: o.Exempt, log: o.Logger}
	if p.exempt == nil {
		p.exempt = DefaultExempt
	}
	if p.log == nil {
		p.log = hclog.NewNullLogger()
	}
	for _, t := range o.Tokens {
		p.hashes = append(p.hashes, sha256.Sum256([]byte(t)))
	}
	return p
}

// Open reports whether the policy lets every call through.
func (p *Policy) Open() bool { return len(p.hashes) == 0 && p.cluster == "" && !p.requireClientCert }

// Check decides one call to the full method name (as in
// grpc.UnaryServerInfo.FullMethod). It returns nil when the call may go on.
func (p *Policy) Check(ctx context.Context, method string) error {
	for _, prefix := range p.exempt {
		if strings.HasPrefix(method, prefix) {
			return nil
		}
	}
	md, _ := metadata.FromIncomingContext(ctx)
	err := p.check(ctx, md)
	if err != nil {
		addr := "unknown"
		if pr, ok := peer.FromContext(ctx); ok {
			addr = pr.Addr.String()
		}
		p.log.Warn("refused a call", "method", method, "peer", addr, "client", first(md, MetadataPeer),
			"cluster", first(md, MetadataCluster), "reason", err.Error())
	}
	return err
}

func (p *Policy) check(ctx context.Context, md metadata.MD) error {
	if p.requireClientCert && !verifiedClient(ctx) {
		return fmt.Errorf("%w: a client certificate signed by the coordinator's client CA is required (mutual TLS)", ErrUnauthenticated)
	}
	if len(p.hashes) > 0 {
		got, ok := strings.CutPrefix(first(md, MetadataToken), "Bearer ")
		if !ok || got == "" {
			return fmt.Errorf("%w: no token: give the coordinator's token with --token-file or $%s", ErrUnauthenticated, EnvToken)
		}
		if !p.tokenOK(got) {
			return fmt.Errorf("%w: wrong token", ErrUnauthenticated)
		}
	}
	if p.cluster != "" {
		got := first(md, MetadataCluster)
		if got != p.cluster {
			return fmt.Errorf("%w: the client was deployed for cluster %q but this coordinator serves cluster %q",
				ErrWrongCluster, got, p.cluster)
		}
	}
	return nil
}

// tokenOK compares the SHA-256 of got with every accepted token's in
// constant time: neither the match nor its position leaks through timing.
func (p *Policy) tokenOK(got string) bool {
	h := sha256.Sum256([]byte(got))
	ok := 0
	for i := range p.hashes {
		ok |= subtle.ConstantTimeCompare(h[:], p.hashes[i][:])
	}
	return ok == 1
}

func verifiedClient(ctx context.Context) bool {
	pr, ok := peer.FromContext(ctx)
	if !ok {
		return false
	}
	info, ok := pr.AuthInfo.(credentials.TLSInfo)
	return ok && len(info.State.VerifiedChains) > 0
}

func first(md metadata.MD, key string) string {
	if v := md.Get(key); len(v) > 0 {
		return v[0]
	}
	return ""
}

// UnaryInterceptor checks unary calls.
func (p *Policy) UnaryInterceptor() grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		if err := p.Check(ctx, info.FullMethod); err != nil {
			return nil, err
		}
		return h(ctx, req)
	}
}

// StreamInterceptor checks streaming calls before the handler runs.
func (p *Policy) StreamInterceptor() grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
		if err := p.Check(ss.Context(), info.FullMethod); err != nil {
			return err
		}
		return h(srv, ss)
	}
}
