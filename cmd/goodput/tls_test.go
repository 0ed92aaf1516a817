package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/cli"
	"github.com/goodput-dev/goodput/mock"
)

// TLS: the server's certificate is verified by default; a self-signed
// one fails the run before any load with a message that names the two
// ways out (--ca-file, --insecure), and each of those works.

// startTLSMock serves a mock over HTTPS on 127.0.0.1 with a self-signed
// certificate, and returns the server and the mock (for its request
// count).
func startTLSMock(t *testing.T) (*httptest.Server, *mock.Server) {
	t.Helper()
	cfg := mock.DefaultConfig()
	cfg.TTFT, cfg.TTFTStdev, cfg.ITL, cfg.ITLStdev = time.Millisecond, 0, 0, 0
	m, err := mock.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewTLSServer(m.Handler()) // listens on 127.0.0.1
	t.Cleanup(func() { srv.Close(); _ = m.Close() })
	return srv, m
}

// writeCA writes the PEM of srv's certificate (its own CA: self-signed).
func writeCA(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ca.pem")
	b := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeOtherCA writes a freshly made self-signed CA certificate that
// signed nothing the server has (httptest's servers all share one
// certificate, so another httptest server is not "another CA").
func writeOtherCA(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "not the server's CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "other-ca.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTLSVerification(t *testing.T) {
	srv, m := startTLSMock(t)
	cases := []struct {
		name     string
		args     []string
		code     int
		want     string // part of stderr's last line when the run fails
		requests uint64 // completion requests the mock must see
	}{
		{name: "verified by default", code: cli.ExitFailure,
			want: "certificate", requests: 0},
		{name: "another CA", args: []string{"--ca-file", writeOtherCA(t)}, code: cli.ExitFailure,
			want: "--ca-file", requests: 0},
		{name: "--ca-file", args: []string{"--ca-file", writeCA(t, srv)}, code: cli.ExitOK, requests: 3},
		{name: "--insecure", args: []string{"--insecure"}, code: cli.ExitOK, requests: 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := m.Stats().Requests
			dir := t.TempDir()
			args := append([]string{"benchmark", "--target", srv.URL, "--rate-type", "synchronous", "--max-requests", "3",
				"--data", "prompt_tokens=8,output_tokens=4", "--output-dir", dir, "--run-id", "r", "--server-metrics", "off"}, tc.args...)
			code, _, stderr := runGoodput(t, args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, stderr)
			}
			if tc.code != cli.ExitOK {
				last := lastLine(stderr)
				if !strings.Contains(last, tc.want) || !strings.Contains(last, "--insecure") {
					t.Fatalf("last line %q: want the certificate failure, naming %s and --insecure", last, tc.want)
				}
			}
			if got := m.Stats().Requests - before; got != tc.requests {
				t.Fatalf("the mock got %d completion requests, want %d", got, tc.requests)
			}
		})
	}
}
