package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/goodput-dev/goodput/cli"
)

// countingServer answers GET /v1/models with one model and 404 to every
// other path, and counts requests by method and path.
type countingServer struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
	auth map[string]bool
}

func newCountingServer(t *testing.T) *countingServer {
	t.Helper()
	s := &countingServer{hits: map[string]int{}, auth: map[string]bool{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.Method+" "+r.URL.Path]++
		s.auth[r.Header.Get("Authorization")] = true
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodGet && r.URL.Path == "/v1/models" {
			_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"m","object":"model","owned_by":"someone"}]}`))
			return
		}
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"detail":"Not Found"}`))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *countingServer) posts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for k, v := range s.hits {
		if strings.HasPrefix(k, "POST ") {
			n += v
		}
	}
	return n
}

// Once the benchmark command registers --strict-metadata, the whole
// command must stop before its load.
func TestBenchmarkStrictMetadataSendsNoLoad(t *testing.T) {
	code, help, _ := compareCmdHelp(t)
	if code != 0 || !strings.Contains(help, "--strict-metadata") {
		t.Skip("goodput benchmark does not register --strict-metadata yet")
	}
	srv := newCountingServer(t)
	var out, errb bytes.Buffer
	code = realMain([]string{"benchmark", "--target", srv.URL, "--data", "prompt_tokens=16,output_tokens=4", "--rate-type", "synchronous",
		"--max-requests", "2", "--strict-metadata", "--output-dir", t.TempDir(), "--disable-progress"},
		&cli.Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(""), Getenv: func(string) string { return "" }})
	if code != cli.ExitUsage {
		t.Fatalf("exit %d, want 2\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	if !strings.Contains(errb.String(), "--strict-metadata: missing run metadata: engine") {
		t.Errorf("stderr does not list the missing fields:\n%s", errb.String())
	}
	if srv.posts() != 0 {
		t.Errorf("%d POST requests reached the server", srv.posts())
	}
}

func compareCmdHelp(t *testing.T) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := realMain([]string{"benchmark", "--help"}, &cli.Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(""), Getenv: func(string) string { return "" }})
	return code, out.String(), errb.String()
}
