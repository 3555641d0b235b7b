package auth

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
)

// ServerTLS returns the TLS configuration of a coordinator serving the
// certificate in certFile (PEM, chain allowed) with the key in keyFile.
// With clientCA set, client certificates are verified against the CAs in
// that PEM file when offered (tls.VerifyClientCertIfGiven): a certificate
// from another CA fails the handshake, and a Policy with
// RequireClientCert refuses calls without one, except health checks.
// Errors wrap ErrConfig.
func ServerTLS(certFile, keyFile, clientCA string) (*tls.Config, error) {
	if certFile == "" || keyFile == "" {
		return nil, fmt.Errorf("%w: TLS needs both a certificate and a key", ErrConfig)
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("%w: server certificate: %w", ErrConfig, err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if clientCA != "" {
		pool, err := loadPool(clientCA)
		if err != nil {
			return nil, err
		}
		cfg.ClientCAs, cfg.ClientAuth = pool, tls.VerifyClientCertIfGiven
	}
	return cfg, nil
}

// ClientTLS returns the TLS configuration of a client (worker or
// command-line client) that trusts the CAs in caFile (empty: the system's
// roots) and, when certFile and keyFile are set, presents that client
// certificate (mutual TLS). serverName overrides the name checked against
// the server's certificate (default: the host of the dialled address).
// Errors wrap ErrConfig.
func ClientTLS(caFile, certFile, keyFile, serverName string) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: serverName}
	if caFile != "" {
		pool, err := loadPool(caFile)
		if err != nil {
			return nil, err
		}
		cfg.RootCAs = pool
	}
	if (certFile == "") != (keyFile == "") {
		return nil, fmt.Errorf("%w: a client certificate needs both --tls-cert and --tls-key", ErrConfig)
	}
	if certFile != "" {
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("%w: client certificate: %w", ErrConfig, err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

func loadPool(file string) (*x509.CertPool, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("%w: CA file: %w", ErrConfig, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("%w: no PEM certificate in CA file %s", ErrConfig, file)
	}
	return pool, nil
}
