package embedded

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"time"
)

// selfIdentity is the client certificate this process's own clients of the
// frontend present when it requires client certificates: the Web UI's
// connection and the readiness check. The operator's CA signs only what the
// operator issues, so the frontend also trusts a CA made in memory at each
// start. Its private key signs this one certificate and is dropped; the
// certificate's key lives only in this process.
type selfIdentity struct {
	caPEM           []byte
	certPEM, keyPEM []byte
	cert            tls.Certificate
}

// selfIdentityLifetime outlasts any process: the certificate is made anew
// at every start.
const selfIdentityLifetime = 20 * 365 * 24 * time.Hour

func newSelfIdentity() (*selfIdentity, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("in-memory client CA: %w", err)
	}
	notBefore := time.Now().Add(-time.Hour) // clocks of the same machine, but a little slack costs nothing
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "agent-todos embedded server, in-memory client CA"},
		NotBefore:             notBefore,
		NotAfter:              notBefore.Add(selfIdentityLifetime),
		IsCA:                  true,
		BasicConstraintsValid: true,
		MaxPathLenZero:        true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("in-memory client CA: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, fmt.Errorf("in-memory client CA: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("in-memory client certificate: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: "agent-todos embedded Web UI"},
		NotBefore:    notBefore,
		NotAfter:     notBefore.Add(selfIdentityLifetime),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("in-memory client certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("in-memory client certificate: %w", err)
	}
	s := &selfIdentity{
		caPEM:   pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		keyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
	}
	if s.cert, err = tls.X509KeyPair(s.certPEM, s.keyPEM); err != nil {
		return nil, fmt.Errorf("in-memory client certificate: %w", err)
	}
	return s, nil
}

// serial is a random 128-bit serial number, as RFC 5280 recommends.
func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	return n
}
