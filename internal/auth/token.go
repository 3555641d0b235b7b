package auth

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
)

// Metadata keys and the environment variable used by the token scheme.
const (
	// MetadataToken carries "Bearer <token>" (the standard HTTP header).
	MetadataToken = "authorization"
	// MetadataCluster carries the cluster name the client was deployed for.
	MetadataCluster = "misslab-cluster"
	// MetadataPeer carries the client's name (a worker's id) for the logs
	// of the coordinator; it is informational and never trusted.
	MetadataPeer = "misslab-peer"
	// EnvToken is read for the token when no token file is given.
	EnvToken = "MISSLAB_TOKEN"
	// EnvCluster is read for the cluster name when no flag gives one.
	EnvCluster = "MISSLAB_CLUSTER"
)

// Errors of this package. The coordinator maps ErrUnauthenticated to
// codes.Unauthenticated and ErrWrongCluster to codes.PermissionDenied.
var (
	// ErrUnauthenticated: the call carries no credentials or wrong ones.
	ErrUnauthenticated = errors.New("auth: unauthenticated")
	// ErrWrongCluster: the credentials are right but the client was
	// deployed for another cluster (another study's coordinator).
	ErrWrongCluster = errors.New("auth: wrong cluster")
	// ErrConfig: a token, certificate or key file is unusable.
	ErrConfig = errors.New("auth: bad configuration")
)

// minTokenLen is the shortest token accepted: 16 bytes, about 96 bits
// when drawn as base64 (the dev CA's tokens are 32 random bytes, hex).
const minTokenLen = 16

// LoadTokens returns the tokens in file, one per line (blank lines and
// lines starting with # are skipped), or, when file is empty, the value
// of $MISSLAB_TOKEN. It returns no tokens and no error when neither is
// set. Tokens shorter than 16 characters are refused with ErrConfig.
// A coordinator accepts every token returned (so that a token can be
// rotated by listing old and new); a client sends the first.
func LoadTokens(file string) ([]string, error) {
	var raw []byte
	switch {
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("%w: token file: %w", ErrConfig, err)
		}
		raw = b
	case os.Getenv(EnvToken) != "":
		raw = []byte(os.Getenv(EnvToken))
	default:
		return nil, nil
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if len(t) < minTokenLen {
			return nil, fmt.Errorf("%w: a token must have at least %d characters", ErrConfig, minTokenLen)
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: token file %q holds no token", ErrConfig, file)
	}
	return out, nil
}

// ClusterName returns flag when set, else $MISSLAB_CLUSTER.
func ClusterName(flag string) string {
	if flag != "" {
		return flag
	}
	return os.Getenv(EnvCluster)
}

// Credentials are what a client sends with every call: implements
// grpc/credentials.PerRPCCredentials. Zero fields are not sent.
type Credentials struct {
	Token   string // the shared token
	Cluster string // the cluster the client was deployed for
	Peer    string // the client's name for the coordinator's logs
	// Secure makes gRPC refuse to send the token over a plaintext
	// connection.
	Secure bool
}

// GetRequestMetadata implements credentials.PerRPCCredentials.
func (c Credentials) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	md := map[string]string{}
	if c.Token != "" {
		md[MetadataToken] = "Bearer " + c.Token
	}
	if c.Cluster != "" {
		md[MetadataCluster] = c.Cluster
	}
	if c.Peer != "" {
		md[MetadataPeer] = c.Peer
	}
	return md, nil
}

// RequireTransportSecurity implements credentials.PerRPCCredentials.
func (c Credentials) RequireTransportSecurity() bool { return c.Secure }
