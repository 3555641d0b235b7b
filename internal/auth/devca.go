package auth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// DefaultHosts are the names a development server certificate is valid
// for: loopback, the compose service name, and the Kubernetes Service of
// deploy/kubernetes in the misslab namespace.
var DefaultHosts = []string{
	"localhost", "127.0.0.1", "::1",
	"coordinator",
	"misslab-coordinator", "misslab-coordinator.misslab", "misslab-coordinator.misslab.svc",
	"misslab-coordinator.misslab.svc.cluster.local",
}

// CA is a certificate authority for development and tests: an ECDSA P-256
// key and a self-signed certificate. It is no substitute for a managed CA.
type CA struct {
	Cert *x509.Certificate
	key  *ecdsa.PrivateKey
	PEM  []byte // the certificate, PEM-encoded
}

// NewCA makes a CA named name, valid for validFor from an hour ago (to
// tolerate clock skew between machines).
func NewCA(name string, validFor time.Duration) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := template(name, validFor)
	tmpl.IsCA, tmpl.BasicConstraintsValid, tmpl.MaxPathLenZero = true, true, true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &CA{Cert: cert, key: key, PEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// Usage says what an issued certificate is for.
type Usage int

// Usages of Issue.
const (
	ServerCert Usage = iota // TLS server: hosts go into the SANs
	ClientCert              // TLS client (mutual TLS)
)

// Issue returns a certificate and key (both PEM) signed by ca, with
// common name name. A server certificate names hosts (DNS names or IP
// addresses) in its subject alternative names.
func (ca *CA) Issue(name string, usage Usage, hosts []string, validFor time.Duration) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := template(name, validFor)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	if usage == ServerCert {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		for _, h := range hosts {
			if ip := net.ParseIP(h); ip != nil {
				tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
			} else {
				tmpl.DNSNames = append(tmpl.DNSNames, h)
			}
		}
	} else {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.key)
	if err != nil {
		return nil, nil, err
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), nil
}

func template(name string, validFor time.Duration) *x509.Certificate {
	serial, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	now := time.Now()
	return &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: name, Organization: []string{"misslab dev"}},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(validFor)}
}

// NewToken returns a random token: 32 bytes from crypto/rand, hex-encoded.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// DevFiles are the files WriteDevPKI writes into its directory.
var DevFiles = struct{ CA, ServerCert, ServerKey, ClientCert, ClientKey, Token string }{
	"ca.pem", "server.pem", "server-key.pem", "client.pem", "client-key.pem", "token"}

// WriteDevPKI writes a fresh development CA certificate, a server
// certificate for hosts, a client certificate and a random token into
// dir (see DevFiles), valid for validFor. The CA's key is not kept: to
// issue more certificates, run it again. Keys and the token get mode
// secretMode (0o600 unless a container user must read them).
func WriteDevPKI(dir string, hosts []string, validFor time.Duration, secretMode os.FileMode) error {
	ca, err := NewCA("misslab development CA", validFor)
	if err != nil {
		return err
	}
	scert, skey, err := ca.Issue("misslab coordinator", ServerCert, hosts, validFor)
	if err != nil {
		return err
	}
	ccert, ckey, err := ca.Issue("misslab client", ClientCert, nil, validFor)
	if err != nil {
		return err
	}
	token, err := NewToken()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := []struct {
		name string
		data []byte
		mode os.FileMode
	}{
		{DevFiles.CA, ca.PEM, 0o644}, {DevFiles.ServerCert, scert, 0o644}, {DevFiles.ServerKey, skey, secretMode},
		{DevFiles.ClientCert, ccert, 0o644}, {DevFiles.ClientKey, ckey, secretMode}, {DevFiles.Token, []byte(token + "\n"), secretMode},
	}
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		if err := os.WriteFile(path, f.data, f.mode); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		if err := os.Chmod(path, f.mode); err != nil { // WriteFile keeps an existing file's mode
			return err
		}
	}
	return nil
}
