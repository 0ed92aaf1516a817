package metadata

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/telemetry"
)

// fakeServer serves fixed answers per path on 127.0.0.1 and records what
// it was asked. Paths without an answer get vLLM's 404.
type fakeServer struct {
	*httptest.Server
	mu     sync.Mutex
	hits   map[string]int
	auth   []string
	header http.Header // sent with every answer
}

type answer struct {
	status int
	ctype  string
	body   string
}

func newFakeServer(t *testing.T, routes map[string]answer, header http.Header) *fakeServer {
	t.Helper()
	f := &fakeServer{hits: map[string]int{}, header: header}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.hits[r.Method+" "+r.URL.Path]++
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		f.mu.Unlock()
		for k, vs := range f.header {
			w.Header()[k] = vs
		}
		a, ok := routes[r.URL.Path]
		if !ok || r.Method != http.MethodGet {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"detail":"Not Found"}`))
			return
		}
		ct := a.ctype
		if ct == "" {
			ct = "application/json"
		}
		w.Header().Set("Content-Type", ct)
		if a.status != 0 {
			w.WriteHeader(a.status)
		}
		_, _ = w.Write([]byte(a.body))
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeServer) requests() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]int{}
	for k, v := range f.hits {
		out[k] = v
	}
	return out
}

const vllmMetrics = `# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="llama"} 0.0
# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig
# TYPE vllm:cache_config_info gauge
vllm:cache_config_info{block_size="16",cache_dtype="auto",engine="0",num_gpu_blocks="4096"} 1.0
# HELP python_info Python platform information
# TYPE python_info gauge
python_info{implementation="CPython",major="3",minor="12",patchlevel="3",version="3.12.3"} 1.0
`

const snapshot = "0e9e39f249a16976918f6564b8830bc894c89659"

func vllmRoutes() map[string]answer {
	return map[string]answer{
		"/version": {body: `{"version":"0.9.1"}`},
		"/v1/models": {body: `{"object":"list","data":[{"id":"llama","object":"model","created":1,"owned_by":"vllm",` +
			`"root":"/root/.cache/huggingface/hub/models--meta-llama--Llama-3.1-8B-Instruct/snapshots/` + snapshot + `",` +
			`"parent":null,"max_model_len":8192,"permission":[]}]}`},
		"/metrics": {ctype: "text/plain; version=0.0.4; charset=utf-8", body: vllmMetrics},
	}
}

func twoH100(context.Context) telemetry.Hardware {
	g := telemetry.GPUDevice{Name: "NVIDIA H100 80GB HBM3", MemoryMiB: 81559}
	return telemetry.Hardware{GPUs: []telemetry.GPUDevice{g, g}, Source: "nvidia-smi"}
}

func noGPU(context.Context) telemetry.Hardware {
	return telemetry.Hardware{Source: "unknown", Notes: []string{"nvidia-smi not found in PATH"}}
}

func fullInputs() Inputs {
	return Inputs{
		Tokenizer: "meta-llama/Llama-3.1-8B-Instruct", TokenizerHash: "sha256:abc",
		ISL: 256, OSL: 128, Data: "prompt_tokens=256,output_tokens=128",
		SLO: "ttft_p99=500ms,itl_p95=50ms", Warmup: "30s", RunID: "r1",
		Version: "1.2.3", Commit: "deadbeef", DetectHardware: twoH100,
	}
}

func TestCollectVLLMLikeServer(t *testing.T) {
	srv := newFakeServer(t, vllmRoutes(), nil)
	h := http.Header{}
	h.Set("Authorization", "Bearer sk-test-key")
	res, err := Collect(context.Background(), Probe{BaseURL: srv.URL, Header: h, Secrets: []string{"sk-test-key"}, Model: "llama"}, fullInputs())
	if err != nil {
		t.Fatal(err)
	}
	md := res.Metadata
	want := map[string][2]string{ // field: value, source
		FieldEngine:        {md.Engine, `GET /v1/models owned_by "vllm"`},
		FieldEngineVersion: {md.EngineVersion, "GET /version"},
		FieldModel:         {md.Model, `GET /v1/models root (served as "llama"), a Hugging Face cache snapshot`},
		FieldModelRevision: {md.ModelRevision, `GET /v1/models root (served as "llama") (Hugging Face cache snapshot)`},
		FieldHardware:      {md.Hardware, "nvidia-smi on the host running goodput (set --label hardware=… if the server runs elsewhere)"},
	}
	values := map[string]string{
		FieldEngine: "vllm", FieldEngineVersion: "0.9.1", FieldModel: "meta-llama/Llama-3.1-8B-Instruct",
		FieldModelRevision: snapshot, FieldHardware: "2xNVIDIA H100 80GB HBM3 (81559 MiB)",
	}
	for f, vs := range want {
		if vs[0] != values[f] {
			t.Errorf("%s = %q, want %q", f, vs[0], values[f])
		}
		if md.Sources[f] != vs[1] {
			t.Errorf("source of %s = %q, want %q", f, md.Sources[f], vs[1])
		}
	}
	// Nothing says the precision: it is the one field missing
	// (max_concurrency waits for Finish).
	if !reflect.DeepEqual(md.Missing, []string{FieldPrecision}) {
		t.Errorf("missing = %v, want [precision]", md.Missing)
	}
	if md.ISLTokens != 256 || md.OSLTokens != 128 || md.RunID != "r1" || md.GoodputCommit != "deadbeef" || md.Warmup != "30s" {
		t.Errorf("run facts not recorded: %+v", md)
	}
	// Every probe was sent once, with the credentials.
	got := srv.requests()
	for _, p := range []string{"/version", "/v1/models", "/metrics", "/info", "/get_server_info"} {
		if got["GET "+p] != 1 {
			t.Errorf("GET %s sent %d times, want 1 (%v)", p, got["GET "+p], got)
		}
	}
	for _, a := range srv.auth {
		if a != "Bearer sk-test-key" {
			t.Errorf("probe sent Authorization %q", a)
		}
	}
	// The two 404s are explained.
	notes := strings.Join(res.Notes, "\n")
	for _, n := range []string{"GET /info: HTTP 404", "GET /get_server_info: HTTP 404"} {
		if !strings.Contains(notes, n) {
			t.Errorf("notes %q lack %q", notes, n)
		}
	}
}

func TestCollectServerWithNoMetadataEndpoints(t *testing.T) {
	srv := newFakeServer(t, nil, nil)
	in := fullInputs()
	in.DetectHardware = noGPU
	res, err := Collect(context.Background(), Probe{BaseURL: srv.URL, Model: "my-model"}, in)
	if err != nil {
		t.Fatal(err)
	}
	md := res.Metadata
	wantMissing := []string{FieldEngine, FieldEngineVersion, FieldModelRevision, FieldPrecision, FieldHardware}
	if !reflect.DeepEqual(md.Missing, wantMissing) {
		t.Errorf("missing = %v, want %v", md.Missing, wantMissing)
	}
	if md.Model != "my-model" || md.Sources[FieldModel] != "--model" {
		t.Errorf("model %q from %q, want my-model from --model", md.Model, md.Sources[FieldModel])
	}
	notes := strings.Join(res.Notes, "\n")
	for _, p := range []string{"/version", "/v1/models", "/metrics", "/info", "/get_server_info"} {
		if !strings.Contains(notes, "GET "+p+": HTTP 404") {
			t.Errorf("notes lack GET %s: HTTP 404:\n%s", p, notes)
		}
	}
	if !strings.Contains(notes, "hardware: no GPU found on this host (nvidia-smi not found in PATH)") {
		t.Errorf("notes lack the hardware reason:\n%s", notes)
	}
	var buf strings.Builder
	if err := WriteText(&buf, md, res.Notes); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"engine           MISSING  set --label engine=NAME (e.g. vllm)",
		"missing: engine, engine_version, model_revision, precision, hardware"} {
		if !strings.Contains(buf.String(), w) {
			t.Errorf("console lacks %q:\n%s", w, buf.String())
		}
	}
	err = Strict(md)
	var me *MissingError
	if !errors.As(err, &me) || !reflect.DeepEqual(me.Fields, wantMissing) {
		t.Fatalf("Strict = %v", err)
	}
	if want := "--strict-metadata: missing run metadata: engine (--label engine=NAME (e.g. vllm)); engine_version"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Strict error %q, want prefix %q", err, want)
	}
}

func TestCollectModelsFallbackToReadinessAnswer(t *testing.T) {
	srv := newFakeServer(t, nil, nil)
	in := fullInputs()
	res, err := Collect(context.Background(), Probe{BaseURL: srv.URL, Model: "m",
		Models: []loadgen.ModelInfo{{ID: "m", Root: "Qwen/Qwen2.5-7B-Instruct-AWQ", OwnedBy: "vllm"}}}, in)
	if err != nil {
		t.Fatal(err)
	}
	md := res.Metadata
	if md.Engine != "vllm" || md.Model != "Qwen/Qwen2.5-7B-Instruct-AWQ" || md.Precision != "awq" || !md.PrecisionInferred {
		t.Fatalf("got engine %q model %q precision %q inferred %v", md.Engine, md.Model, md.Precision, md.PrecisionInferred)
	}
	if src := md.Sources[FieldPrecision]; src != `inferred from the model name "Qwen/Qwen2.5-7B-Instruct-AWQ"` {
		t.Errorf("precision source %q", src)
	}
}

func TestCollectUnreachableServerIsNotAnError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	res, err := Collect(context.Background(), Probe{BaseURL: "http://" + addr, Model: "m"}, fullInputs())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.Metadata.Missing, FieldEngine) {
		t.Errorf("missing = %v, want engine in it", res.Metadata.Missing)
	}
	if notes := strings.Join(res.Notes, "\n"); !strings.Contains(notes, "GET /version: dial tcp") || strings.Contains(notes, "http://") {
		t.Errorf("notes should give the transport error without the URL:\n%s", notes)
	}
}

func TestCollectIsBoundedBySlowServer(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	const timeout = 300 * time.Millisecond
	start := time.Now()
	res, err := Collect(context.Background(), Probe{BaseURL: srv.URL, Model: "m", Timeout: timeout}, fullInputs())
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	// All seven probes run at once: the whole takes one timeout, not
	// seven. The bound leaves room for a loaded machine but is far below 7×.
	if elapsed > 4*timeout {
		t.Errorf("Collect took %v with a %v probe timeout", elapsed, timeout)
	}
	if notes := strings.Join(res.Notes, "\n"); strings.Count(notes, ": timed out") != 7 {
		t.Errorf("want seven timed-out probes in the notes:\n%s", notes)
	}
}

func TestCollectCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Collect(ctx, Probe{}, fullInputs()); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestCollectEngineSources(t *testing.T) {
	tests := []struct {
		name                           string
		routes                         map[string]answer
		header                         http.Header
		model                          string
		engine, version, src, vsrc     string
		wantModel, revision, precision string
		inferred                       bool
		wantNote                       string
	}{
		{
			name: "TGI /info",
			routes: map[string]answer{"/info": {body: `{"model_id":"bigscience/bloom-560m","model_sha":"4f42c91d806a19ae1a46af6c3fb5f4990d884cd6",` +
				`"model_dtype":"torch.float16","model_device_type":"cuda","version":"2.4.0","sha":"abc","docker_label":null}`},
				"/v1/models": {body: `{"object":"list","data":[{"id":"tgi","object":"model","created":0,"owned_by":"bigscience/bloom-560m"}]}`}},
			model:  "tgi",
			engine: telemetry.EngineTGI, version: "2.4.0", src: "GET /info", vsrc: "GET /info version",
			wantModel: "bigscience/bloom-560m", revision: "4f42c91d806a19ae1a46af6c3fb5f4990d884cd6", precision: "fp16",
		},
		{
			name: "SGLang /get_server_info",
			routes: map[string]answer{"/get_server_info": {body: `{"model_path":"Qwen/Qwen3-8B","tokenizer_path":"Qwen/Qwen3-8B",` +
				`"revision":"main","quantization":"fp8","dtype":"auto","tp_size":1,"version":"0.4.6.post1"}`},
				"/v1/models": {body: `{"object":"list","data":[{"id":"Qwen/Qwen3-8B","object":"model","owned_by":"sglang","root":"Qwen/Qwen3-8B"}]}`}},
			model:  "Qwen/Qwen3-8B",
			engine: telemetry.EngineSGLang, version: "0.4.6.post1", src: "GET /get_server_info", vsrc: "GET /get_server_info version",
			wantModel: "Qwen/Qwen3-8B", revision: "main", precision: "fp8",
		},
		{
			name: "SGLang generic quantization: precision from the name",
			routes: map[string]answer{"/get_server_info": {body: `{"model_path":"RedHatAI/Llama-3.1-8B-Instruct-FP8-dynamic",` +
				`"quantization":"compressed-tensors","dtype":"auto","version":"0.5.0"}`}},
			model:  "x",
			engine: telemetry.EngineSGLang, version: "0.5.0", src: "GET /get_server_info", vsrc: "GET /get_server_info version",
			wantModel: "RedHatAI/Llama-3.1-8B-Instruct-FP8-dynamic", precision: "fp8", inferred: true,
		},
		{
			name:   "Server header",
			routes: map[string]answer{"/v1/models": {body: `{"data":[{"id":"m","owned_by":"system"}]}`}},
			header: http.Header{"Server": {"text-generation-inference/3.3.2"}},
			model:  "m",
			engine: telemetry.EngineTGI, version: "3.3.2", src: "Server header of GET /version", vsrc: "Server header of GET /version",
			wantModel: "m",
		},
		{
			name:   "X-Powered-By header",
			header: http.Header{"Server": {"uvicorn"}, "X-Powered-By": {"sglang/0.4.9"}},
			model:  "m",
			engine: telemetry.EngineSGLang, version: "0.4.9", src: "X-Powered-By header of GET /version", vsrc: "X-Powered-By header of GET /version",
			wantModel: "m",
		},
		{
			name:      "uvicorn names no engine",
			header:    http.Header{"Server": {"uvicorn"}},
			model:     "m",
			wantModel: "m",
		},
		{
			name: "metrics prefix and build info",
			routes: map[string]answer{"/metrics": {ctype: "text/plain", body: "# TYPE sglang:build_info gauge\nsglang:build_info{version=\"0.5.1\"} 1\n" +
				"# TYPE sglang:num_running_reqs gauge\nsglang:num_running_reqs 0\n"}},
			model:  "m",
			engine: telemetry.EngineSGLang, version: "0.5.1", src: "GET /metrics (sglang:* families)", vsrc: "GET /metrics sglang:build_info{version}",
			wantModel: "m",
		},
		{
			name: "goodput mock: owned_by beats the vLLM-style metrics",
			routes: map[string]answer{
				"/version":   {body: `{"version":"goodput-mock-0.1.0"}`},
				"/v1/models": {body: `{"data":[{"id":"goodput-mock","owned_by":"goodput","root":"goodput-mock"}]}`},
				"/metrics":   {ctype: "text/plain", body: vllmMetrics},
			},
			model:  "goodput-mock",
			engine: telemetry.EngineGoodputMock, version: "0.1.0", src: `GET /v1/models owned_by "goodput"`, vsrc: "GET /version",
			wantModel: "goodput-mock",
		},
		{
			name: "gateway /version is not the engine's",
			routes: map[string]answer{
				"/version":   {body: `{"version":"1.72.0"}`},
				"/v1/models": {body: `{"data":[{"id":"gpt","owned_by":"openai"}]}`},
			},
			model:     "gpt",
			wantModel: "gpt",
			wantNote:  `GET /version answered "1.72.0" but the engine is unknown, whose version it need not be; not recorded`,
		},
		{
			name:   "HTML answer to /version",
			routes: map[string]answer{"/version": {ctype: "text/html", body: "<html>login</html>"}},
			model:  "m", wantModel: "m",
			wantNote: "GET /version: answer is not a JSON object",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, tt.routes, tt.header)
			res, err := Collect(context.Background(), Probe{BaseURL: srv.URL, Model: tt.model}, fullInputs())
			if err != nil {
				t.Fatal(err)
			}
			md := res.Metadata
			if md.Engine != tt.engine || md.EngineVersion != tt.version {
				t.Errorf("engine %q %q, want %q %q", md.Engine, md.EngineVersion, tt.engine, tt.version)
			}
			// Headers come with every answer: the first probe in the
			// fixed order (/version first) is named as the source.
			if md.Sources[FieldEngine] != tt.src || md.Sources[FieldEngineVersion] != tt.vsrc {
				t.Errorf("sources %q / %q, want %q / %q", md.Sources[FieldEngine], md.Sources[FieldEngineVersion], tt.src, tt.vsrc)
			}
			if md.Model != tt.wantModel || md.ModelRevision != tt.revision || md.Precision != tt.precision || md.PrecisionInferred != tt.inferred {
				t.Errorf("model %q rev %q precision %q inferred %v; want %q %q %q %v",
					md.Model, md.ModelRevision, md.Precision, md.PrecisionInferred, tt.wantModel, tt.revision, tt.precision, tt.inferred)
			}
			if tt.wantNote != "" && !slices.Contains(res.Notes, tt.wantNote) {
				t.Errorf("notes %q lack %q", res.Notes, tt.wantNote)
			}
		})
	}
}

func TestCollectLabels(t *testing.T) {
	srv := newFakeServer(t, vllmRoutes(), nil)
	file, err := ParseLabelsFile(strings.NewReader(strings.Join([]string{
		`app.kubernetes.io/name="bench"`,
		`bench/engine="vllm-0.9.0"`,
		`bench/hardware="4xH100-SXM-80GB"`,
		`bench/precision="FP8"`,
		`bench/isl="1024"`,
		`bench/osl="256"`,
		`bench/run-id="job-123"`,
		`bench/tokenizer="llama-3-tokenizer"`,
		`bench/concurrency="32"`,
		`bench/model="meta-llama/Llama-3.1-8B-Instruct"`,
	}, "\n")), "/etc/podinfo/labels")
	if err != nil {
		t.Fatal(err)
	}
	flags := []Label{{Key: "team", Value: "perf", Source: "--label"}, {Key: "model_revision", Value: "v2", Source: "--label"}}
	in := fullInputs()
	in.ISL, in.OSL, in.RunID, in.Tokenizer, in.TokenizerHash = 0, 256, "", "", ""
	in.DetectHardware = func(context.Context) telemetry.Hardware {
		t.Error("hardware detection ran although a hardware label was given")
		return telemetry.Hardware{}
	}
	in.Labels = append(file, flags...)
	res, err := Collect(context.Background(), Probe{BaseURL: srv.URL, Model: "llama"}, in)
	if err != nil {
		t.Fatal(err)
	}
	md := res.Metadata
	checks := []struct{ field, got, want, src string }{
		{FieldEngine, md.Engine, "vllm", "/etc/podinfo/labels line 2"},
		{FieldEngineVersion, md.EngineVersion, "0.9.0", "/etc/podinfo/labels line 2"},
		{FieldHardware, md.Hardware, "4xH100-SXM-80GB", "/etc/podinfo/labels line 3"},
		{FieldPrecision, md.Precision, "fp8", "/etc/podinfo/labels line 4"},
		{FieldRunID, md.RunID, "job-123", "/etc/podinfo/labels line 7"},
		{FieldTokenizer, md.Tokenizer, "llama-3-tokenizer", "/etc/podinfo/labels line 8"},
		{FieldModel, md.Model, "meta-llama/Llama-3.1-8B-Instruct", "/etc/podinfo/labels line 10"},
		{FieldModelRevision, md.ModelRevision, "v2", "--label"},
	}
	for _, c := range checks {
		if c.got != c.want || md.Sources[c.field] != c.src {
			t.Errorf("%s = %q from %q, want %q from %q", c.field, c.got, md.Sources[c.field], c.want, c.src)
		}
	}
	if md.ISLTokens != 1024 || md.Sources[FieldISL] != "/etc/podinfo/labels line 5" {
		t.Errorf("isl %v from %q", md.ISLTokens, md.Sources[FieldISL])
	}
	if md.OSLTokens != 256 || md.Sources[FieldOSL] != "--data" {
		t.Errorf("osl %v from %q", md.OSLTokens, md.Sources[FieldOSL])
	}
	if md.MaxConcurrency != 32 {
		t.Errorf("max concurrency %d", md.MaxConcurrency)
	}
	wantLabels := map[string]string{"app.kubernetes.io/name": "bench", "team": "perf"}
	if !reflect.DeepEqual(md.Labels, wantLabels) {
		t.Errorf("free labels %v, want %v", md.Labels, wantLabels)
	}
	// The server says 0.9.1: the label wins, the disagreement is noted.
	want := `engine_version: label says "0.9.0", the server says "0.9.1" (GET /version); kept the label`
	if !slices.Contains(res.Notes, want) {
		t.Errorf("notes %q lack %q", res.Notes, want)
	}
	if !reflect.DeepEqual(md.Missing, []string{FieldTokenizerHash}) {
		t.Errorf("missing %v, want [tokenizer_hash]", md.Missing)
	}
}

func TestCollectRunFactsBeatLabels(t *testing.T) {
	in := fullInputs()
	in.Labels = []Label{{Key: "bench/isl", Value: "1024", Source: "f line 1"}, {Key: "bench/run-id", Value: "other", Source: "f line 2"}}
	res, err := Collect(context.Background(), Probe{Model: "m"}, in)
	if err != nil {
		t.Fatal(err)
	}
	md := res.Metadata
	if md.ISLTokens != 256 || md.RunID != "r1" {
		t.Fatalf("isl %v run id %q: the run's values must win", md.ISLTokens, md.RunID)
	}
	want := map[string]string{"bench/isl": "1024", "bench/run-id": "other"}
	if !reflect.DeepEqual(md.Labels, want) {
		t.Errorf("labels %v, want the contradicting labels kept: %v", md.Labels, want)
	}
	notes := strings.Join(res.Notes, "\n")
	for _, w := range []string{`f line 1: label bench/isl="1024" disagrees with the run's "256"`, `f line 2: label bench/run-id="other" disagrees with the run's "r1"`, "no server probed"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
}

func TestCollectNeverRecordsTheAPIKey(t *testing.T) {
	const key = "sk-very-secret-0123456789"
	// A hostile or broken server echoes the credentials everywhere.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		w.Header().Set("Server", "vllm/"+strings.TrimPrefix(auth, "Bearer "))
		switch r.URL.Path {
		case "/version":
			_, _ = w.Write([]byte(`{"version":"` + auth + `"}`))
		case "/v1/models":
			_, _ = w.Write([]byte(`{"data":[{"id":"m","owned_by":"vllm","root":"org/` + strings.TrimPrefix(auth, "Bearer ") + `"}]}`))
		default:
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	t.Cleanup(srv.Close)
	h := http.Header{}
	h.Set("Authorization", "Bearer "+key)
	h.Set("X-Tenant-Token", "tenant-secret-value")
	h.Set("X-Team", "vllm") // not a credential: "vllm" must survive
	res, err := Collect(context.Background(), Probe{BaseURL: srv.URL, Header: h, Secrets: []string{key}, Model: "m"}, fullInputs())
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res.Metadata)
	if err != nil {
		t.Fatal(err)
	}
	all := string(b) + strings.Join(res.Notes, "\n")
	var buf strings.Builder
	_ = WriteText(&buf, res.Metadata, res.Notes)
	all += buf.String()
	if strings.Contains(all, key) || strings.Contains(all, "tenant-secret-value") {
		t.Fatalf("a secret leaked into the metadata:\n%s", all)
	}
	if !strings.Contains(all, "***") {
		t.Fatalf("expected the echoed key to be replaced by ***:\n%s", all)
	}
	if res.Metadata.Engine != "vllm" {
		t.Errorf("engine %q: a non-credential header value was redacted", res.Metadata.Engine)
	}
}

func TestFinish(t *testing.T) {
	bench := func(s report.Strategy, peak float64, prompt, output report.Float, n report.Int) *report.Benchmark {
		b := &report.Benchmark{}
		b.Config.Strategy = s
		if peak > 0 {
			b.Metrics.RequestConcurrency = &report.StatusDistributionSummary{Total: &report.DistributionSummary{Max: report.Float(peak)}}
		}
		b.Metrics.PromptTokenCount = &report.StatusDistributionSummary{Successful: &report.DistributionSummary{Mean: prompt, Count: n}}
		b.Metrics.OutputTokenCount = &report.StatusDistributionSummary{Successful: &report.DistributionSummary{Mean: output, Count: n}}
		return b
	}
	tests := []struct {
		name    string
		benches []*report.Benchmark
		want    int
		src     string
	}{
		{"concurrent streams", []*report.Benchmark{
			bench(report.Strategy{Type: "concurrent", Streams: 4}, 3.9, 100, 10, 1),
			bench(report.Strategy{Type: "concurrent", Streams: 16}, 15.2, 100, 10, 1),
		}, 16, "rounds: concurrent streams"},
		{"constant rate: peak measured", []*report.Benchmark{
			bench(report.Strategy{Type: "synchronous"}, 1, 100, 10, 1),
			bench(report.Strategy{Type: "constant", Rate: 8}, 11.2, 100, 10, 1),
		}, 12, "rounds: peak measured request concurrency"},
		{"throughput cap", []*report.Benchmark{bench(report.Strategy{Type: "throughput", MaxConcurrency: 512}, 300, 100, 10, 1)}, 512, "rounds: throughput in-flight cap"},
		{"no rounds", nil, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, src := MaxConcurrency(tt.benches)
			if n != tt.want || src != tt.src {
				t.Errorf("MaxConcurrency = %d %q, want %d %q", n, src, tt.want, tt.src)
			}
		})
	}

	// Finish: the rounds replace a declared concurrency; ISL and OSL come
	// from the measured means, weighted by request count, when the data
	// description gave none: ISL (100·1 + 400·3)/4 = 325, OSL (10·1 + 30·3)/4 = 25.
	md := &report.RunMetadata{MaxConcurrency: 8, Sources: map[string]string{FieldMaxConcurrency: "--label"}, Labels: map[string]string{}}
	notes := Finish(md, []*report.Benchmark{
		bench(report.Strategy{Type: "concurrent", Streams: 4}, 0, 100, 10, 1),
		bench(report.Strategy{Type: "concurrent", Streams: 16}, 0, 400, 30, 3),
	})
	if md.MaxConcurrency != 16 || md.Labels["max_concurrency"] != "8" || len(notes) != 1 {
		t.Errorf("max concurrency %d, labels %v, notes %q", md.MaxConcurrency, md.Labels, notes)
	}
	if md.ISLTokens != 325 || md.OSLTokens != 25 || md.Sources[FieldISL] != "measured: mean prompt tokens of the successful requests" {
		t.Errorf("isl %v osl %v from %q", md.ISLTokens, md.OSLTokens, md.Sources[FieldISL])
	}
	if slices.Contains(md.Missing, FieldMaxConcurrency) || !slices.Contains(md.Missing, FieldEngine) {
		t.Errorf("missing = %v", md.Missing)
	}
	// Without rounds, max_concurrency is now listed as missing.
	md2 := &report.RunMetadata{}
	Finish(md2, nil)
	if !slices.Contains(md2.Missing, FieldMaxConcurrency) {
		t.Errorf("missing = %v, want max_concurrency in it", md2.Missing)
	}
}

func TestRequiredFieldsMatchTheReportKeys(t *testing.T) {
	b, err := json.Marshal(report.RunMetadata{})
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]any
	if err := json.Unmarshal(b, &keys); err != nil {
		t.Fatal(err)
	}
	for _, f := range RequiredFields() {
		if _, ok := keys[f]; !ok {
			t.Errorf("required field %q is not a key of report.RunMetadata", f)
		}
		if Hint(f) == "" {
			t.Errorf("field %q has no hint", f)
		}
	}
	if n := len(MissingFields(&report.RunMetadata{})); n != len(RequiredFields()) {
		t.Errorf("an empty metadata misses %d fields, want all %d", n, len(RequiredFields()))
	}
}

// TestCollectLlamaCppAndOllama: llama-server is known by GET /props (its
// build as the version, its slots), Ollama by GET /api/version; neither
// has /version, so the other engines' 404s are only notes.
func TestCollectLlamaCppAndOllama(t *testing.T) {
	tests := []struct {
		name                               string
		routes                             map[string]answer
		model                              string
		engine, version, src, vsrc, model2 string
		slots                              int64
		slotsSrc                           string
	}{
		{
			name: "llama.cpp /props",
			routes: map[string]answer{
				"/props": {body: `{"default_generation_settings":{"n_ctx":4096,"params":{"temperature":0.8}},"total_slots":4,` +
					`"model_path":"/models/tiny-llama3.gguf","chat_template":"{{ messages }}","modalities":{"vision":false,"audio":false},"build_info":"b6123-4b0a0f9d"}`},
				"/v1/models": {body: `{"object":"list","data":[{"id":"/models/tiny-llama3.gguf","object":"model","created":1765000000,"owned_by":"llamacpp","meta":{"n_vocab":128256}}]}`},
				"/metrics":   {ctype: "text/plain", body: "# TYPE llamacpp:requests_processing gauge\nllamacpp:requests_processing 0\n"},
			},
			model:  "/models/tiny-llama3.gguf",
			engine: telemetry.EngineLlamaCpp, version: "b6123-4b0a0f9d", src: "GET /props", vsrc: "GET /props build_info",
			model2: "/models/tiny-llama3.gguf", slots: 4, slotsSrc: "GET /props total_slots",
		},
		{
			name: "llama.cpp by its metrics only",
			routes: map[string]answer{
				"/metrics": {ctype: "text/plain", body: "# TYPE llamacpp:requests_processing gauge\nllamacpp:requests_processing 0\n"},
			},
			model:  "m",
			engine: telemetry.EngineLlamaCpp, src: "GET /metrics (llamacpp:* families)", model2: "m",
		},
		{
			name: "Ollama /api/version",
			routes: map[string]answer{
				"/api/version": {body: `{"version":"0.6.2"}`},
				"/v1/models":   {body: `{"object":"list","data":[{"id":"tiny:latest","object":"model","created":1765000000,"owned_by":"library"}]}`},
			},
			model:  "tiny:latest",
			engine: telemetry.EngineOllama, version: "0.6.2", src: "GET /api/version", vsrc: "GET /api/version version", model2: "tiny:latest",
		},
		{
			name:   "a /api/version that is not Ollama's",
			routes: map[string]answer{"/api/version": {body: `{"version":"2.1.0","name":"gateway"}`}},
			model:  "m", model2: "m",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, tt.routes, nil)
			res, err := Collect(context.Background(), Probe{BaseURL: srv.URL, Model: tt.model}, fullInputs())
			if err != nil {
				t.Fatal(err)
			}
			md := res.Metadata
			if md.Engine != tt.engine || md.EngineVersion != tt.version || md.Model != tt.model2 {
				t.Errorf("engine %q %q model %q, want %q %q %q", md.Engine, md.EngineVersion, md.Model, tt.engine, tt.version, tt.model2)
			}
			if md.Sources[FieldEngine] != tt.src || md.Sources[FieldEngineVersion] != tt.vsrc {
				t.Errorf("sources %q / %q, want %q / %q", md.Sources[FieldEngine], md.Sources[FieldEngineVersion], tt.src, tt.vsrc)
			}
			if int64(md.ServerSlots) != tt.slots || md.Sources[FieldServerSlots] != tt.slotsSrc {
				t.Errorf("slots %d from %q, want %d from %q", md.ServerSlots, md.Sources[FieldServerSlots], tt.slots, tt.slotsSrc)
			}
			b, err := json.Marshal(md)
			if err != nil {
				t.Fatal(err)
			}
			if has := strings.Contains(string(b), `"server_slots":`); has != (tt.slots > 0) {
				t.Errorf("server_slots in the JSON: %v, want %v: %s", has, tt.slots > 0, b)
			}
			var buf strings.Builder
			if err := WriteText(&buf, md, res.Notes); err != nil {
				t.Fatal(err)
			}
			if tt.slots > 0 && !strings.Contains(buf.String(), "server_slots") {
				t.Errorf("console lacks the slots:\n%s", buf.String())
			}
			// An engine known by its own info endpoint is not told about
			// the other engines' (nor /version) that it does not serve.
			notes := strings.Join(res.Notes, "\n")
			for _, p := range []string{"/version", "/info", "/get_server_info", "/props", "/api/version"} {
				n := "GET " + p + ": HTTP 404"
				if quiet := tt.vsrc != ""; quiet == strings.Contains(notes, n) && tt.routes[p].body == "" {
					t.Errorf("%q in the notes: %v, want it only without an info endpoint's answer:\n%s", n, !quiet, notes)
				}
			}
		})
	}
}

// A /metrics that fails once under load (HTTP 503) is asked again: the
// engine still comes from its families. A 404 is an answer, asked once.
func TestCollectRetriesATransientFailure(t *testing.T) {
	var mu sync.Mutex
	hits := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		n := hits[r.URL.Path]
		mu.Unlock()
		switch {
		case r.URL.Path == "/metrics" && n == 1:
			http.Error(w, "busy", http.StatusServiceUnavailable)
		case r.URL.Path == "/metrics":
			w.Header().Set("Content-Type", "text/plain; version=0.0.4")
			_, _ = io.WriteString(w, vllmMetrics)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	res, err := Collect(context.Background(), Probe{BaseURL: srv.URL, Model: "llama"}, fullInputs())
	if err != nil {
		t.Fatal(err)
	}
	if md := res.Metadata; md.Engine != "vllm" || !strings.Contains(md.Sources[FieldEngine], "GET /metrics") {
		t.Errorf("engine %q from %q; want vllm from GET /metrics", md.Engine, md.Sources[FieldEngine])
	}
	mu.Lock()
	defer mu.Unlock()
	if hits["/metrics"] != 2 || hits["/version"] != 1 {
		t.Errorf("hits %v; want /metrics twice, /version (404) once", hits)
	}
	if notes := strings.Join(res.Notes, "\n"); strings.Contains(notes, "/metrics: HTTP 503") {
		t.Errorf("notes %q keep the failure the retry undid", notes)
	}
}
