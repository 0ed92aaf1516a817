package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/pflag"
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

func TestMetadataLabels(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "labels")
	if err := os.WriteFile(good, []byte("bench/engine=\"vllm\"\nbench/run-id=\"job-7\"\nteam=\"perf\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad")
	if err := os.WriteFile(bad, []byte("a=\"x\"\nb=y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		o       metadataOptions
		flags   []string
		keys    []string
		runID   string
		wantErr string
	}{
		{name: "file then flags", o: metadataOptions{labelsFile: good, probeTimeout: time.Second}, flags: []string{"engine=sglang", "hardware=8xH200"},
			keys: []string{"bench/engine", "bench/run-id", "team", "engine", "hardware"}, runID: "job-7"},
		{name: "flags only", o: metadataOptions{probeTimeout: time.Second}, flags: []string{"run_id=r2"}, keys: []string{"run_id"}, runID: "r2"},
		{name: "malformed file line", o: metadataOptions{labelsFile: bad, probeTimeout: time.Second}, wantErr: "line 2: want key=\"value\""},
		{name: "malformed flag", o: metadataOptions{probeTimeout: time.Second}, flags: []string{"novalue"}, wantErr: `--label "novalue": want key=value`},
		{name: "bad isl", o: metadataOptions{probeTimeout: time.Second}, flags: []string{"isl=many"}, wantErr: `label isl="many": want a number of tokens`},
		{name: "missing file", o: metadataOptions{labelsFile: filepath.Join(dir, "absent"), probeTimeout: time.Second}, wantErr: "--labels-file: open"},
		{name: "bad timeout", o: metadataOptions{}, wantErr: "--metadata-timeout 0s: want a positive duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.o.metadataLabels(tt.flags)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if _, ok := err.(usageError); !ok {
					t.Fatalf("err %v is not a usage error (exit 2)", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, l := range got {
				keys = append(keys, l.Key)
			}
			if strings.Join(keys, ",") != strings.Join(tt.keys, ",") {
				t.Errorf("keys %v, want %v", keys, tt.keys)
			}
		})
	}
}

func TestMetadataFlagsRegister(t *testing.T) {
	var o metadataOptions
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	metadataFlags(&o, fs)
	if err := fs.Parse([]string{"--labels-file", "/etc/podinfo/labels", "--strict-metadata", "--metadata-timeout", "5s"}); err != nil {
		t.Fatal(err)
	}
	if o.labelsFile != "/etc/podinfo/labels" || !o.strict || o.probeTimeout != 5*time.Second {
		t.Fatalf("options %+v", o)
	}
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
		&env{stdout: &out, stderr: &errb, stdin: strings.NewReader(""), getenv: func(string) string { return "" }})
	if code != exitUsage {
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
	code := realMain([]string{"benchmark", "--help"}, &env{stdout: &out, stderr: &errb, stdin: strings.NewReader(""), getenv: func(string) string { return "" }})
	return code, out.String(), errb.String()
}
