package run

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/dataset"
	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/metadata"
	"github.com/goodput-dev/goodput/report/console"
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

func TestLabelsRunIDMustBeAValidRunID(t *testing.T) {
	_, err := labelsRunID([]metadata.Label{{Key: "bench/run-id", Value: "../../etc", Source: "/etc/podinfo/labels line 4"}})
	var ue UsageError
	if err == nil || !errors.As(err, &ue) || !strings.Contains(err.Error(), `/etc/podinfo/labels line 4: label bench/run-id="../../etc": a run id uses letters`) {
		t.Fatalf("err = %v", err)
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
	md, err := collectRunMetadata(context.Background(), &w, false, p, metadata.Inputs{RunID: "r", DetectHardware: noGPUs}, console.Columns)
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
	_, err = collectRunMetadata(context.Background(), &w, true, p,
		metadata.Inputs{RunID: "r", Version: "1.0.0", Commit: "abc", SLO: "ttft_p99=1s", Warmup: "none", ISL: 16, OSL: 4, DetectHardware: noGPUs}, console.Columns)
	var ue UsageError
	if !errors.As(err, &ue) {
		t.Fatalf("err %v, want a usage error (exit 2)", err)
	}
	want := "--strict-metadata: missing run metadata: engine (--label engine=NAME (e.g. vllm)); engine_version"
	if !strings.HasPrefix(ue.Msg, want) || strings.Contains(ue.Msg, "\n") {
		t.Errorf("message %q, want one line starting %q", ue.Msg, want)
	}
	if srv.posts() != 0 {
		t.Errorf("%d POST requests reached the server", srv.posts())
	}
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
		in := metadataInputs(&Config{}, d, tok, "r", false)
		if in.ISL != tt.isl || in.OSL != tt.osl || in.Tokenizer != "o200k_base" || !strings.HasPrefix(in.TokenizerHash, "sha256:") {
			t.Errorf("%s: isl %v osl %v tokenizer %q %q, want %v %v", tt.spec, in.ISL, in.OSL, in.Tokenizer, in.TokenizerHash, tt.isl, tt.osl)
		}
	}
}

func TestFinishRunMetadataPrintsWhatIsMissing(t *testing.T) {
	var w bytes.Buffer
	md, err := collectRunMetadata(context.Background(), &w, false, metadata.Probe{Model: "m"},
		metadata.Inputs{RunID: "r", DetectHardware: noGPUs}, console.Columns)
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

func TestLabelsRunID(t *testing.T) {
	for _, tt := range []struct {
		labels []metadata.Label
		want   string
	}{
		{[]metadata.Label{{Key: "bench/engine", Value: "vllm"}, {Key: "bench/run-id", Value: "job-7"}, {Key: "team", Value: "perf"}}, "job-7"},
		{[]metadata.Label{{Key: "run_id", Value: "r2"}}, "r2"},
		{[]metadata.Label{{Key: "team", Value: "perf"}}, ""},
	} {
		if id, err := labelsRunID(tt.labels); err != nil || id != tt.want {
			t.Errorf("labelsRunID(%v) = %q, %v; want %q", tt.labels, id, err, tt.want)
		}
	}
}
