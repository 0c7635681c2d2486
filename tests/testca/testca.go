// Package testca makes certificate authorities and the certificates they
// sign for tests, as PEM files in the test's temporary directory, where an
// operator's openssl commands would leave them.
package testca

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// CA is a certificate authority whose certificate is in CertFile.
type CA struct {
	Name     string
	CertFile string
	cert     *x509.Certificate
	key      *ecdsa.PrivateKey
	dir      string
}

// Pair is a certificate and its key, as files.
type Pair struct {
	CertFile, KeyFile string
}

// New makes a CA valid for a day.
func New(t testing.TB, name string) *CA {
	t.Helper()
	key := newKey(t)
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(t),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	ca := &CA{Name: name, cert: cert, key: key, dir: t.TempDir()}
	ca.CertFile = ca.write(t, name+"-ca.pem", "CERTIFICATE", der)
	return ca
}

// Pool holds the CA's certificate, for a Go client or server.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.cert)
	return p
}

// Server signs a server certificate for the host names and IP addresses.
func (ca *CA) Server(t testing.TB, name string, hosts ...string) Pair {
	t.Helper()
	tmpl := ca.leaf(t, name, x509.ExtKeyUsageServerAuth)
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	return ca.sign(t, name, tmpl)
}

// Client signs a client certificate.
func (ca *CA) Client(t testing.TB, name string) Pair {
	t.Helper()
	return ca.sign(t, name, ca.leaf(t, name, x509.ExtKeyUsageClientAuth))
}

// Expired signs a server certificate that expired an hour ago.
func (ca *CA) Expired(t testing.TB, name string, hosts ...string) Pair {
	t.Helper()
	tmpl := ca.leaf(t, name, x509.ExtKeyUsageServerAuth)
	tmpl.DNSNames = hosts
	tmpl.NotBefore = time.Now().Add(-48 * time.Hour)
	tmpl.NotAfter = time.Now().Add(-time.Hour)
	return ca.sign(t, name, tmpl)
}

// TLSCertificate loads a pair for a Go client.
func (p Pair) TLSCertificate(t testing.TB) tls.Certificate {
	t.Helper()
	c, err := tls.LoadX509KeyPair(p.CertFile, p.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (ca *CA) leaf(t testing.TB, name string, usage x509.ExtKeyUsage) *x509.Certificate {
	now := time.Now()
	return &x509.Certificate{
		SerialNumber: serial(t),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
	}
}

func (ca *CA) sign(t testing.TB, name string, tmpl *x509.Certificate) Pair {
	t.Helper()
	key := newKey(t)
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return Pair{
		CertFile: ca.write(t, name+".pem", "CERTIFICATE", der),
		KeyFile:  ca.write(t, name+"-key.pem", "PRIVATE KEY", keyDER),
	}
}

func (ca *CA) write(t testing.TB, file, typ string, der []byte) string {
	t.Helper()
	path := filepath.Join(ca.dir, file)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func serial(t testing.TB) *big.Int {
	t.Helper()
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		t.Fatal(err)
	}
	return n
}
