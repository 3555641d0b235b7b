package auth

import (
	"flag"
	"fmt"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

// ClientConfig is what a worker or a command-line client needs to reach
// a secured coordinator. The zero value dials in plaintext with no token.
type ClientConfig struct {
	TokenFile  string // token file; empty: $MISSLAB_TOKEN; neither: no token
	CA         string // PEM CAs to trust; setting it turns TLS on
	Cert, Key  string // client certificate for mutual TLS; turns TLS on
	ServerName string // name to check in the server certificate (default: the dialled host)
	TLS        bool   // TLS with the system's roots even without CA
	Cluster    string // cluster name sent to the coordinator; empty: $MISSLAB_CLUSTER
	Peer       string // the client's name in the coordinator's logs
}

// RegisterFlags adds the client security flags to fs. The token is never
// a flag (it would show in ps): --token-file or $MISSLAB_TOKEN.
func (c *ClientConfig) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.TokenFile, "token-file", "", "file holding the coordinator's token (default: $"+EnvToken+")")
	fs.StringVar(&c.CA, "tls-ca", "", "PEM file of the CA that signed the coordinator's certificate (turns TLS on)")
	fs.StringVar(&c.Cert, "tls-cert", "", "client certificate (PEM) for mutual TLS")
	fs.StringVar(&c.Key, "tls-key", "", "client certificate's key (PEM) for mutual TLS")
	fs.StringVar(&c.ServerName, "tls-server-name", "", "name expected in the coordinator's certificate (default: host of the address)")
	fs.BoolVar(&c.TLS, "tls", false, "use TLS, trusting the system's CAs, even without --tls-ca")
	fs.StringVar(&c.Cluster, "cluster", "", "cluster this client belongs to (default: $"+EnvCluster+")")
}

// TLSOn reports whether the configuration dials with TLS.
func (c ClientConfig) TLSOn() bool { return c.TLS || c.CA != "" || c.Cert != "" }

// DialOptions returns the gRPC dial options of c: transport credentials
// (TLS or, if off, none: the caller's default applies) and per-call
// credentials carrying the token and cluster. Errors wrap ErrConfig.
func (c ClientConfig) DialOptions() ([]grpc.DialOption, error) {
	creds, err := c.TransportCredentials()
	if err != nil {
		return nil, err
	}
	opts, err := c.CallOptions()
	if err != nil {
		return nil, err
	}
	if creds != nil {
		opts = append([]grpc.DialOption{grpc.WithTransportCredentials(creds)}, opts...)
	}
	return opts, nil
}

// TransportCredentials returns the TLS credentials of c, or nil when TLS
// is off. Errors wrap ErrConfig.
func (c ClientConfig) TransportCredentials() (credentials.TransportCredentials, error) {
	if !c.TLSOn() {
		return nil, nil
	}
	cfg, err := ClientTLS(c.CA, c.Cert, c.Key, c.ServerName)
	if err != nil {
		return nil, err
	}
	return credentials.NewTLS(cfg), nil
}

// CallOptions returns the dial options sending the token, cluster and
// peer name with every call (none when all are empty). Errors wrap
// ErrConfig.
func (c ClientConfig) CallOptions() ([]grpc.DialOption, error) {
	tokens, err := LoadTokens(c.TokenFile)
	if err != nil {
		return nil, err
	}
	creds := Credentials{Cluster: ClusterName(c.Cluster), Peer: c.Peer, Secure: c.TLSOn()}
	if len(tokens) > 0 {
		creds.Token = tokens[0]
	}
	if creds.Token == "" && creds.Cluster == "" && creds.Peer == "" {
		return nil, nil
	}
	return []grpc.DialOption{grpc.WithPerRPCCredentials(creds)}, nil
}

// ServerConfig is a coordinator's security configuration. The zero value
// serves plaintext to everyone.
type ServerConfig struct {
	TokenFile string // accepted tokens; empty: $MISSLAB_TOKEN; neither: no token asked
	Cert, Key string // server certificate and key (PEM): TLS
	ClientCA  string // CAs of client certificates: mutual TLS required
	Cluster   string // cluster name clients must send; empty: $MISSLAB_CLUSTER
	// Insecure allows serving a non-loopback address with neither a token
	// nor client certificates.
	Insecure bool
}

// RegisterFlags adds the server security flags to fs.
func (c *ServerConfig) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.TokenFile, "token-file", "", "file of accepted tokens, one per line (default: $"+EnvToken+")")
	fs.StringVar(&c.Cert, "tls-cert", "", "server certificate (PEM) to serve TLS")
	fs.StringVar(&c.Key, "tls-key", "", "server certificate's key (PEM)")
	fs.StringVar(&c.ClientCA, "client-ca", "", "PEM CAs of client certificates; makes them required (mutual TLS)")
	fs.StringVar(&c.Cluster, "cluster", "", "cluster name workers and clients must give (default: $"+EnvCluster+")")
	fs.BoolVar(&c.Insecure, "insecure", false, "allow a non-loopback --listen with no token and no client CA")
}

// Server is a built ServerConfig.
type Server struct {
	Options []grpc.ServerOption // transport credentials, when TLS is on
	Policy  *Policy
	TLS     bool
}

// Build loads the files of c. It refuses (ErrConfig) to leave a
// non-loopback listen address open to anyone unless c.Insecure. Refused
// calls and, with TLS on, refused TLS handshakes (see LogHandshakes) are
// logged through log (nil: discard).
func (c ServerConfig) Build(listen string, log hclog.Logger) (*Server, error) {
	s := &Server{}
	if c.Cert != "" || c.Key != "" || c.ClientCA != "" {
		cfg, err := ServerTLS(c.Cert, c.Key, c.ClientCA)
		if err != nil {
			return nil, err
		}
		s.Options, s.TLS = []grpc.ServerOption{grpc.Creds(LogHandshakes(credentials.NewTLS(cfg), log))}, true
	}
	tokens, err := LoadTokens(c.TokenFile)
	if err != nil {
		return nil, err
	}
	s.Policy = NewPolicy(PolicyOptions{Tokens: tokens, Cluster: ClusterName(c.Cluster),
		RequireClientCert: c.ClientCA != "", Logger: log})
	if len(tokens) == 0 && c.ClientCA == "" && !c.Insecure && !Loopback(listen) {
		return nil, fmt.Errorf("%w: %s is reachable from other machines but no token (--token-file, $%s) "+
			"or client CA (--client-ca) is set; pass --insecure to serve it open anyway", ErrConfig, listen, EnvToken)
	}
	return s, nil
}
