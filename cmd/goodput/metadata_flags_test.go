package main

import (
	"bytes"
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/dataset"
	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/metadata"
	"github.com/goodput-dev/goodput/telemetry"
	"github.com/goodput-dev/goodput/tokenize"
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
				var ue usageError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if !asUsage(err, &ue) {
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
			if id, err := labelsRunID(got); err != nil || id != tt.runID {
				t.Errorf("run id %q, %v; want %q", id, err, tt.runID)
			}
		})
	}
}

func TestLabelsRunIDMustBeAValidRunID(t *testing.T) {
	_, err := labelsRunID([]metadata.Label{{Key: "bench/run-id", Value: "../../etc", Source: "/etc/podinfo/labels line 4"}})
	var ue usageError
	if err == nil || !asUsage(err, &ue) || !strings.Contains(err.Error(), `/etc/podinfo/labels line 4: label bench/run-id="../../etc": a run id uses letters`) {
		t.Fatalf("err = %v", err)
	}
}

func asUsage(err error, ue *usageError) bool {
	u, ok := err.(usageError)
	if ok {
		*ue = u
	}
	return ok
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

func TestMetadataProbeSendsCredentialsButRecordsNone(t *testing.T) {
	srv := newCountingServer(t)
	cfg := loadgen.ClientConfig{Target: srv.URL, Model: "m", APIKey: "sk-secret-123456", Headers: map[string]string{"X-Team": "a"}}
	c, err := loadgen.NewClient(cfg, loadgen.NewClock())
	if err != nil {
		t.Fatal(err)
	}
	p := metadataProbe(c, nil, time.Second)
	var w bytes.Buffer
	md, err := collectRunMetadata(context.Background(), &w, &metadataOptions{}, p, metadata.Inputs{RunID: "r", DetectHardware: noGPUs})
	if err != nil {
		t.Fatal(err)
	}
	// A probe that gave up may still be served: read under the lock.
	srv.mu.Lock()
	auth := maps.Clone(srv.auth)
	srv.mu.Unlock()
	if !auth["Bearer sk-secret-123456"] || len(auth) != 1 {
		t.Errorf("probes sent Authorization %v", auth)
	}
	if strings.Contains(w.String(), "sk-secret") {
		t.Errorf("the key leaked to the console:\n%s", w.String())
	}
	if md.Model != "m" || !strings.Contains(w.String(), "engine           MISSING") {
		t.Errorf("model %q, console:\n%s", md.Model, w.String())
	}
}

func noGPUs(context.Context) telemetry.Hardware { return telemetry.Hardware{Source: "unknown"} }

// --strict-metadata fails with exit 2 and the list of missing fields,
// and sends no load.
func TestStrictMetadataFailsBeforeAnyLoad(t *testing.T) {
	srv := newCountingServer(t)
	c, err := loadgen.NewClient(loadgen.ClientConfig{Target: srv.URL, Model: "m"}, loadgen.NewClock())
	if err != nil {
		t.Fatal(err)
	}
	p := metadataProbe(c, nil, time.Second)
	var w bytes.Buffer
	_, err = collectRunMetadata(context.Background(), &w, &metadataOptions{strict: true}, p,
		metadata.Inputs{RunID: "r", Version: "1.0.0", Commit: "abc", SLO: "ttft_p99=1s", Warmup: "none", ISL: 16, OSL: 4, DetectHardware: noGPUs})
	var errb bytes.Buffer
	if code := exitCode(&errb, "benchmark", err); code != exitUsage {
		t.Fatalf("exit %d, want 2 (err %v)", code, err)
	}
	want := "goodput benchmark: --strict-metadata: missing run metadata: engine (--label engine=NAME (e.g. vllm)); engine_version"
	if !strings.HasPrefix(errb.String(), want) || strings.Count(errb.String(), "\n") != 1 {
		t.Errorf("stderr %q, want one line starting %q", errb.String(), want)
	}
	if srv.posts() != 0 {
		t.Errorf("%d POST requests reached the server", srv.posts())
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

// ISL and OSL come from the data's description: the mean prompt length
// (with the shared prefix) and the mean max_tokens.
func TestMetadataInputsTakeLengthsFromTheData(t *testing.T) {
	tok, err := tokenize.Builtin("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		spec     string
		isl, osl float64
	}{
		{"prompt_tokens=256,output_tokens=128", 256, 128},
		{"prompt_tokens=256", 256, 0},
		{"prompt_tokens=256,output_tokens=128,prefix_tokens=512,prefix_count=4", 768, 128},
	} {
		d, err := dataset.Open(tt.spec, dataset.Options{Tokenizer: tok, Seed: 1})
		if err != nil {
			t.Fatalf("%s: %v", tt.spec, err)
		}
		in := metadataInputs(&plan{}, d, tok, "r", false)
		if in.ISL != tt.isl || in.OSL != tt.osl || in.Tokenizer != "o200k_base" || !strings.HasPrefix(in.TokenizerHash, "sha256:") {
			t.Errorf("%s: isl %v osl %v tokenizer %q %q, want %v %v", tt.spec, in.ISL, in.OSL, in.Tokenizer, in.TokenizerHash, tt.isl, tt.osl)
		}
	}
}

func TestFinishRunMetadataPrintsWhatIsMissing(t *testing.T) {
	var w bytes.Buffer
	md, err := collectRunMetadata(context.Background(), &w, &metadataOptions{}, metadata.Probe{Model: "m"},
		metadata.Inputs{RunID: "r", DetectHardware: noGPUs})
	if err != nil {
		t.Fatal(err)
	}
	w.Reset()
	finishRunMetadata(&w, md, nil)
	if !strings.HasPrefix(w.String(), "run metadata missing: engine (--label engine=NAME (e.g. vllm)), ") ||
		!strings.Contains(w.String(), "max_concurrency (--label max_concurrency=N)") {
		t.Errorf("output %q", w.String())
	}
}
