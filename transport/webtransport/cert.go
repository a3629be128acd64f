package webtransport

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"strconv"
	"time"
)

// CertValidity is how long a self-signed certificate is valid: Chrome
// accepts one pinned through serverCertificateHashes for at most 14 days.
const CertValidity = 13 * 24 * time.Hour

// SelfSigned returns a self-signed ECDSA P-256 certificate valid from now
// for CertValidity, and the SHA-256 of its DER bytes, which a page passes
// to WebTransport in serverCertificateHashes.
func SelfSigned(now time.Time) (tls.Certificate, [32]byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, [32]byte{}, fmt.Errorf("webtransport: certificate key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return tls.Certificate{}, [32]byte{}, fmt.Errorf("webtransport: certificate serial: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "netphys webtransport"},
		NotBefore:    now,
		NotAfter:     now.Add(CertValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, [32]byte{}, fmt.Errorf("webtransport: certificate: %w", err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, sha256.Sum256(der), nil
}

// Info is what a page needs to open a session: the endpoint's URL and,
// for a self-signed certificate, its SHA-256 in standard base64.
type Info struct {
	URL      string `json:"url"`
	CertHash string `json:"certHash,omitempty"`
}

// Info returns the endpoint's Info for a page loaded from host (the
// request's Host: the endpoint is on the same host, at its own port).
func (m *Mux) Info(host string) Info {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	in := Info{URL: "https://" + net.JoinHostPort(host, strconv.Itoa(int(m.EndpointAddr().Port()))) + m.cfg.Path}
	if h, ok := m.CertHash(); ok {
		in.CertHash = base64.StdEncoding.EncodeToString(h[:])
	}
	return in
}

// InfoHandler serves Info as JSON (GET), for the page to read beside its
// connect token.
func (m *Mux) InfoHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			w.Header().Set("Allow", "GET")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_ = json.NewEncoder(w).Encode(m.Info(r.Host))
	})
}
