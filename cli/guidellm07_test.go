package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/internal/clitest"

	"sigs.k8s.io/yaml"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/report"
)

func TestParseRegistry(t *testing.T) {
	cases := []struct {
		in   string
		want regValue
	}{
		{"kind=constant,rate=10", regValue{"kind": "constant", "rate": float64(10)}},
		{`{"kind":"constant","rate":[16,32]}`, regValue{"kind": "constant", "rate": []any{float64(16), float64(32)}}},
		{"kind: poisson\nrate: 2.5", regValue{"kind": "poisson", "rate": 2.5}},
		{"kind=openai_http,target=http://localhost:8000/v1,http2=false", regValue{"kind": "openai_http", "target": "http://localhost:8000/v1", "http2": false}},
		{"kind=generative_column_mapper,column_mappings.text_column=article", regValue{"kind": "generative_column_mapper", "column_mappings": map[string]any{"text_column": "article"}}},
		{"kind=huggingface,source=abisee/cnn_dailymail,load_kwargs.name=3.0.0", regValue{"kind": "huggingface", "source": "abisee/cnn_dailymail", "load_kwargs": map[string]any{"name": "3.0.0"}}},
		{"kind=sweep,sweep-size=5", regValue{"kind": "sweep", "sweep_size": float64(5)}},
		{"kind=generative,sample_size=", regValue{"kind": "generative", "sample_size": nil}},
	}
	for _, c := range cases {
		got, err := parseRegistry(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("parseRegistry(%q) = %#v, %v; want %#v", c.in, got, err, c.want)
		}
	}
	for _, plain := range []string{"openai_http", "sweep", "42", "/models/llama/tokenizer.json"} {
		if _, err := parseRegistry(plain); err != errNotRegistry {
			t.Errorf("parseRegistry(%q): %v, want the plain form", plain, err)
		}
	}
	for _, bad := range []string{"kind=concurrent,streams=1,2", "{bad", "kind=a,kind=b", "=x", ""} {
		if _, err := parseRegistry(bad); err == nil || err == errNotRegistry {
			t.Errorf("parseRegistry(%q): %v, want an error", bad, err)
		}
	}
}

// printed runs goodput run … --print-config and returns its output.
func printed(t *testing.T, args ...string) string {
	t.Helper()
	code, stdout, stderr := runGoodput(t, append(append([]string{"run"}, args...), "--print-config")...)
	if code != ExitOK {
		t.Fatalf("%q: exit %d: %s", args, code, stderr)
	}
	return stdout
}

// GuideLLM's built-in scenarios and a hand-written YAML scenario give the
// configuration of the equivalent command line; the printed configuration
// read back gives itself.
func TestScenariosMatchTheirFlags(t *testing.T) {
	dir := t.TempDir()
	target := []string{"--backend", "kind=openai_http,target=http://127.0.0.1:1"}
	synthetic := func(p, pd, pmin, pmax, o, od, omin, omax int) string {
		return "kind=synthetic_text," + strings.Join([]string{
			kv("prompt_tokens", p), kv("prompt_tokens_stdev", pd), kv("prompt_tokens_min", pmin), kv("prompt_tokens_max", pmax),
			kv("output_tokens", o), kv("output_tokens_stdev", od), kv("output_tokens_min", omin), kv("output_tokens_max", omax)}, ",")
	}
	yamlScenario := filepath.Join(dir, "scenario.yaml")
	if err := os.WriteFile(yamlScenario, []byte(`# a GuideLLM v0.7 scenario
metadata:
  labels:
    team: inference
spec:
  backend:
    kind: openai_http
    target: http://127.0.0.1:1
    model: llama
    request_format: /v1/completions
    extras:
      body: {temperature: 0}
  profile: {kind: concurrent, streams: [1, 4], rampup_duration: 2, warmup: 0.1}
  constraints:
    - {kind: max_duration, seconds: 30}
    - {kind: max_error_rate, rate: 0.05, window: 20, stopping_scope: all}
  data:
    - kind: synthetic_text
      prompt_tokens: 256
      output_tokens: 64
  data_loader: {kind: pytorch, samples: 500}
  seed: {kind: static, value: 7}
  outputs:
    - {kind: json, path: out/run.json}
    - {kind: yaml, path: out/run.yaml}
  metrics: {kind: generative, sample_size: 50, slo: {ttft_ms: 300, tpot_ms: 40}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name       string
		file, flag []string
	}{
		{"chat", append([]string{"--config", "chat"}, target...), append([]string{"--profile", "kind=sweep", "--data", synthetic(512, 128, 1, 1024, 256, 64, 1, 1024)}, target...)},
		{"rag.json", append([]string{"--scenario", "rag.json"}, target...), append([]string{"--profile", "kind=sweep", "--data", synthetic(4096, 512, 2048, 6144, 512, 128, 1, 1024)}, target...)},
		{"yaml", []string{"-c", yamlScenario}, []string{
			"--backend", `{"kind":"openai_http","target":"http://127.0.0.1:1","model":"llama","request_format":"/v1/completions","extras":{"body":{"temperature":0}}}`,
			"--profile", `{"kind":"concurrent","streams":[1,4],"rampup_duration":2,"warmup":0.1}`,
			"--constraint", "kind=max_duration,seconds=30", "--constraint", "kind=max_error_rate,rate=0.05,window=20,stopping_scope=all",
			"--data", "kind=synthetic_text,prompt_tokens=256,output_tokens=64", "--data-loader", "kind=pytorch,samples=500",
			"--seed", "kind=static,value=7", "--output", "kind=json,path=out/run.json", "--output", "kind=yaml,path=out/run.yaml",
			"--metrics", `{"kind":"generative","sample_size":50,"slo":{"ttft_ms":300,"tpot_ms":40}}`, "--label", "team=inference"}},
		// the pre-0.7 spelling of the same run
		{"yaml as goodput's flags", []string{"-c", yamlScenario}, []string{
			"--target", "http://127.0.0.1:1", "--model", "llama", "--request-type", "/v1/completions", "--extra-body", `{"temperature":0}`,
			"--rate-type", "concurrent", "--rate", "1,4", "--rampup", "2", "--warmup", "0.1",
			"--max-seconds", "30", "--max-error-rate", "0.05", "--error-rate-window", "20", "--stopping-scope", "all",
			"--data", `{"kind":"synthetic_text","output_tokens":64,"prompt_tokens":256}`, "--data-samples", "500", "--random-seed", "7",
			"--output", "kind=json,path=out/run.json", "--output", "kind=yaml,path=out/run.yaml",
			"--sample-requests", "50", "--slo", "itl=40ms,ttft=300ms", "--label", "team=inference"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fromFile, fromFlags := printed(t, c.file...), printed(t, c.flag...)
			if fromFile != fromFlags {
				t.Fatalf("--config gives\n%s\nthe flags give\n%s", fromFile, fromFlags)
			}
			again := filepath.Join(t.TempDir(), "printed.yaml")
			if err := os.WriteFile(again, []byte(fromFile), 0o644); err != nil {
				t.Fatal(err)
			}
			if back := printed(t, "--config", again); back != fromFile {
				t.Fatalf("the printed configuration read back gives\n%s\nwant\n%s", back, fromFile)
			}
		})
	}
	if out := printed(t, "-c", yamlScenario); !strings.Contains(out, "request-type: /v1/completions") || !strings.Contains(out, "rate: 1,4") || !strings.Contains(out, "slo: itl=40ms,ttft=300ms") {
		t.Errorf("the YAML scenario's configuration lacks its profile or SLO:\n%s", out)
	}
}

func kv(k string, v int) string { return k + "=" + strconv.Itoa(v) }

// The command line wins over the file, as in GuideLLM; the API key is
// never printed.
func TestConfigCommandLineWins(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "goodput.yaml")
	if err := os.WriteFile(cfg, []byte("target: http://127.0.0.1:1\nrate-type: constant\nrate: [2, 4]\nmax-seconds: 60\napi-key: sk-secret\nheader: {X-Team: a, Authorization: Bearer sk-secret}\ndata: prompt_tokens=8,output_tokens=4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := printed(t, "-c", cfg, "--profile", "kind=poisson,rate=3", "--constraint", "kind=max_duration,seconds=5")
	for _, want := range []string{"rate-type: poisson", "rate: \"3\"", "max-seconds: 5", "- 'X-Team: a'"} {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "sk-secret") || strings.Contains(out, "api-key") {
		t.Errorf("the API key was printed:\n%s", out)
	}
	out = printed(t, "-c", cfg, "--rate-type", "synchronous", "--rate", "")
	if !strings.Contains(out, "rate-type: synchronous") {
		t.Errorf("--rate-type on the command line lost to the file:\n%s", out)
	}
}

func TestV07BadInputOneLine(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	base := []string{"run", "--backend", "kind=openai_http,target=http://127.0.0.1:1", "--data", "prompt_tokens=8,output_tokens=4",
		"--constraint", "kind=max_requests,count=2", "--output-dir", dir}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--backend", "kind=vllm_python"}, "--backend kind=vllm_python: goodput drives servers over HTTP"},
		{[]string{"--backend", "kind=openai_http,target=http://x,nope=1"}, `--backend kind=openai_http: unknown key "nope" (keys: target, model`},
		{[]string{"--profile", "streams=4"}, "--profile: missing kind (want kind=synchronous|concurrent"},
		{[]string{"--profile", "kind=concurrent"}, "--profile kind=concurrent needs streams=…"},
		{[]string{"--profile", "kind=concurrent,streams=1,2,4"}, "a list needs JSON"},
		{[]string{"--profile", "kind=constant,rate=5", "--rate", "6"}, "--profile rate= and --rate both given"},
		{[]string{"--constraint", "kind=max_requests,count=3"}, "--constraint kind=max_requests given twice"},
		{[]string{"--constraint", "kind=over_saturation,mode=sometimes"}, "--constraint kind=over_saturation,mode=sometimes: over_saturation mode"},
		{[]string{"--constraint", "kind=over_saturation,confidence=2"}, "--constraint kind=over_saturation,confidence=2:"},
		{[]string{"--constraint", "kind=over_saturation,nope=1"}, `--constraint kind=over_saturation: unknown key "nope"`},
		{[]string{"--constraint", "kind=target_moe,metric=tpot"}, "--constraint kind=target_moe,metric=tpot: target_moe metric"},
		{[]string{"--constraint", "kind=target_moe,statistic=p42"}, "--constraint kind=target_moe,statistic=p42: target_moe statistic"},
		{[]string{"--constraint", "kind=over_saturation", "--over-saturation", "true"}, "--constraint kind=over_saturation and --over-saturation both given"},
		{[]string{"--backend", "kind=openai_http,target=http://x,request_format=/v1/videos"}, "--backend request_format=/v1/videos: not supported"},
		{[]string{"--data-loader", "kind=pytorch,num_workers=4"}, "--data-loader num_workers=4: not supported: goodput prepares the requests in its own process"},
		{[]string{"--constraint", `{"kind":"max_duration","seconds":[10,20]}`}, "one value per benchmark is not supported"},
		{[]string{"--output", "kind=plot"}, "--output kind=plot: give kind=html"},
		{[]string{"--data", "kind=huggingface,source=no-such-org/no-such-set"}, "never downloads"},
		{[]string{"--override", "profile.rate", "10,20"}, "--override: not supported"},
		{[]string{"--metrics", `{"kind":"generative","slo":{"tpot_ms":50,"itl_ms":40}}`}, "--metrics slo: itl is given twice"},
		{[]string{"--metrics", `{"kind":"generative","slo":{"e2el_ms":1e9}}`}, "--metrics slo: e2e: the threshold 1e+09 ms is out of range (1ns to 24h)"},
		{[]string{"--knee-detection", "enabled=true"}, "--knee-detection needs --rate-type concurrent"},
		{[]string{"-c", "nope"}, "--config nope:"},
		{[]string{"-c", write("bad-key.yaml", "max-secondz: 5\n")}, `bad-key.yaml: unknown key "max-secondz"`},
		{[]string{"-c", write("bad-spec.json", `{"spec":{"profil":{"kind":"sweep"}}}`)}, `bad-spec.json: unknown key "spec.profil"`},
		{[]string{"-c", write("bad-top.yaml", "spec: {}\nbenchmark: []\n")}, `bad-top.yaml: unknown key "benchmark"`},
		{[]string{"-c", write("bad-value.yaml", "max-seconds: soon\n")}, `bad-value.yaml: key "max-seconds"`},
		{[]string{"-c", write("two-data.yaml", "spec: {data: [{kind: synthetic_text, prompt_tokens: 8}, {kind: synthetic_text, prompt_tokens: 9}]}\n")}, "give one data source"},
		{[]string{"-c", write("overrides.yaml", "spec: {}\nbenchmarks: [{profile.rate: 10}]\n")}, "per-benchmark overrides are not supported"},
	}
	for _, c := range cases {
		args := append(append([]string{}, base...), c.args...)
		code, _, stderr := runGoodput(t, args...)
		line := strings.TrimSpace(stderr)
		if code != ExitUsage || strings.Contains(line, "\n") || !strings.Contains(line, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and one line with %q", c.args, code, stderr, c.want)
		}
	}
}

// The v0.7 values reach the run's configuration.
func TestV07ReachesRunConfig(t *testing.T) {
	var o benchOptions
	fs := NewFlagSet("benchmark", "", &strings.Builder{})
	benchFlags(&o, fs)
	args := []string{
		"--backend", `{"kind":"openai_http","target":"http://127.0.0.1:1/v1","model":"m","timeout":12,"timeout_connect":3,"http2":false,"verify":false,"extras":{"headers":{"X-A":"1"},"body":{"temperature":0}}}`,
		"--profile", `{"kind":"poisson","rate":[2,4],"max_concurrency":8,"rampup_duration":1.5,"cooldown":0.1}`,
		"--constraint", "kind=max_duration,seconds=9", "--constraint", "kind=max_errors,count=7,stopping_scope=all",
		"--constraint", "kind=max_error_rate,rate=0.2,window=12", "--constraint", "kind=max_global_error_rate,rate=0.1,minimum=50",
		"--data", "prompt_tokens=8,output_tokens=4", "--seed", "kind=static,value=5", "--data-loader", "kind=pytorch,samples=40",
		"--metrics", "kind=generative,sample_size=3", "--output", "kind=csv,path=" + filepath.Join(t.TempDir(), "s.csv"), "--output", "kind=console",
	}
	if err := ParseFlags(fs, args); err != nil {
		t.Fatal(err)
	}
	o.v07.cli = changedFlags(fs)
	if err := applyV07(&o, fs, o.v07, ""); err != nil {
		t.Fatal(err)
	}
	p, err := o.validateAll(fs)
	if err != nil {
		t.Fatal(err)
	}
	c := p.runConfig()
	cl := c.Client
	if cl.Model != "m" || cl.RequestTimeout.Seconds() != 12 || cl.ConnectTimeout.Seconds() != 3 || !cl.DisableHTTP2 || !cl.Insecure || cl.Headers["X-A"] != "1" || c.ExtraBody["temperature"] != float64(0) {
		t.Errorf("client: %+v, extra body %v", cl, c.ExtraBody)
	}
	k := c.Plan.Constraints
	if k.MaxDuration.Seconds() != 9 || k.MaxErrors != 7 || k.MaxErrorRate != 0.2 || k.ErrorRateWindow != 12 || k.MaxGlobalErrorRate != 0.1 || k.GlobalErrorMin != 50 {
		t.Errorf("constraints: %+v", k)
	}
	if c.Plan.Seed != 5 || c.Data.Options.Samples != 40 || c.Plan.SampleRequests != 3 {
		t.Errorf("seed %d, data options %+v, samples %d", c.Plan.Seed, c.Data.Options, c.Plan.SampleRequests)
	}
	if pr := c.Plan.Profile; pr.Kind != "poisson" || !reflect.DeepEqual(pr.Rate, []float64{2, 4}) || pr.MaxConcurrency != 8 || pr.RampupDuration != 1.5 || pr.Cooldown.IsZero() {
		t.Errorf("profile: %+v", pr)
	}
	if o.sweep.stoppingScope != "all" {
		t.Errorf("stopping scope %q, want all", o.sweep.stoppingScope)
	}
	if got := c.Outputs.Kinds; !got["csv"] || !got["console"] || got["json"] || c.Outputs.Files["csv"] == "" {
		t.Errorf("outputs %v, files %v", got, c.Outputs.Files)
	}
}

// --constraint kind=over_saturation and kind=target_moe reach the run's
// constraints through goodput's own parsers, and request_format the
// request type.
func TestV07ConstraintsAndRequestFormat(t *testing.T) {
	plan := func(args ...string) *draft {
		t.Helper()
		var o benchOptions
		fs := NewFlagSet("benchmark", "", &strings.Builder{})
		benchFlags(&o, fs)
		base := []string{"--backend", "kind=openai_http,target=http://127.0.0.1:1", "--data", "prompt_tokens=8,output_tokens=4",
			"--profile", "kind=concurrent,streams=2", "--constraint", "kind=max_duration,seconds=1"}
		if err := ParseFlags(fs, append(base, args...)); err != nil {
			t.Fatal(err)
		}
		o.v07.cli = changedFlags(fs)
		if err := applyV07(&o, fs, o.v07, ""); err != nil {
			t.Fatal(err)
		}
		p, err := o.validateAll(fs)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := plan("--constraint", "kind=over_saturation,mode=enforce,min_seconds=60,max_window_seconds=300,moe_threshold=1.5,stopping_scope=current")
	if o := p.Plan.Constraints.OverSaturation; o == nil || o.Monitor || o.MinSeconds != 60 || o.MaxWindowSeconds != 300 || o.MOEThreshold != 1.5 || o.ScopeAll {
		t.Errorf("over_saturation %+v", o)
	}
	p = plan("--constraint", `{"kind":"over_saturation","mode":"monitor","minimum_window_size":8,"confidence":0.9}`)
	if o := p.Plan.Constraints.OverSaturation; o == nil || !o.Monitor || o.MinWindowSize != 8 || o.Confidence != 0.9 {
		t.Errorf("over_saturation %+v", o)
	}
	if def := loadgen.DefaultOverSaturation(); *plan("--constraint", "kind=over_saturation").Plan.Constraints.OverSaturation != def {
		t.Errorf("kind=over_saturation alone: want GuideLLM's defaults %+v", def)
	}
	p = plan("--constraint", "kind=target_moe,metric=request_latency,statistic=p95,moe=0.1,confidence=0.9,min_samples=50,check_interval=5,stopping_scope=all")
	if m := p.Plan.TargetMOE; m == nil || m.Metric != "request_latency" || m.Statistic != "p95" || m.MOE != 0.1 || m.Confidence != 0.9 ||
		m.MinSamples != 50 || m.CheckInterval != 5 || !m.ScopeAll {
		t.Errorf("target_moe %+v", m)
	}
	for format, want := range map[string]loadgen.Endpoint{"/v1/embeddings": loadgen.EndpointEmbeddings, "/v1/audio/transcriptions": loadgen.EndpointTranscriptions,
		"/v1/responses": loadgen.EndpointResponses, "/v1/rerank": loadgen.EndpointRerank, "/score": loadgen.EndpointScore} {
		data := "prompt_tokens=8,output_tokens=4"
		if want == loadgen.EndpointTranscriptions {
			data = "prompt_tokens=8,audio_seconds=1"
		}
		if p := plan("--backend", "kind=openai_http,target=http://127.0.0.1:1,request_format="+format, "--data", data); p.Client.Endpoint != want {
			t.Errorf("request_format=%s: endpoint %s", format, p.Client.Endpoint)
		}
	}
	_ = plan("--data-loader", "kind=pytorch,num_workers=1")
}

// GuideLLM's newest goodput profile and SLO metrics become goodput's knee
// search under that SLO.
func TestV07GoodputProfile(t *testing.T) {
	var o benchOptions
	fs := NewFlagSet("benchmark", "", &strings.Builder{})
	benchFlags(&o, fs)
	if err := ParseFlags(fs, []string{"--backend", "kind=openai_http,target=http://127.0.0.1:1",
		"--profile", "kind=goodput,target_attainment=0.99,tolerance=0.1",
		"--metrics", `{"kind":"generative","slo":{"ttft_ms":200,"tpot_ms":50}}`,
		"--data", "prompt_tokens=8,output_tokens=4", "--constraint", "kind=max_duration,seconds=1"}); err != nil {
		t.Fatal(err)
	}
	o.v07.cli = changedFlags(fs)
	if err := applyV07(&o, fs, o.v07, ""); err != nil {
		t.Fatal(err)
	}
	p, err := o.validateAll(fs)
	if err != nil {
		t.Fatal(err)
	}
	if p.Plan.Search == nil || p.Plan.Search.Axis != "concurrency" || p.Plan.Search.Tolerance != 0.1 {
		t.Errorf("knee search %+v, want one on concurrency with tolerance 0.1", p.Plan.Search)
	}
	if floor, explicit := p.SLO.AttainmentFloor(); floor != 0.99 || !explicit {
		t.Errorf("attainment floor %v (explicit %v), want 0.99", floor, explicit)
	}
	if s := p.SLO.String(); !strings.Contains(s, "ttft") || !strings.Contains(s, "itl") {
		t.Errorf("SLO %s: want the ttft and itl thresholds", s)
	}
	// The SLO is the spec the options built, --slo its text.
	if spec, ok := o.sweep.given.of(o.sweep.slo); !ok || o.sweep.slo != "attainment=99%,itl=50ms,ttft=200ms" || spec.String() != p.SLO.String() {
		t.Errorf("--slo %q, typed %v (%v); want attainment=99%%,itl=50ms,ttft=200ms and the judged spec %v", o.sweep.slo, spec, ok, p.SLO)
	}
}

// A report's config runs again with --config (GuideLLM reads a report
// that way), and --output kind=yaml writes the JSON report's content as
// YAML.
func TestReportAsConfigAndYAMLOutput(t *testing.T) {
	url := clitest.Mock(t, nil)
	dir := t.TempDir()
	first := filepath.Join(dir, "first", "run.json")
	code, _, stderr := runGoodput(t, "run", "--backend", "kind=openai_http,target="+url, "--profile", "kind=concurrent,streams=2",
		"--constraint", "kind=max_requests,count=4", "--data", "kind=synthetic_text,prompt_tokens=16,output_tokens=4",
		"--output", "kind=json,path="+first, "--output", "kind=yaml,path="+filepath.Join(dir, "first", "report.yaml"),
		"--server-metrics", "off", "--disable-progress")
	if code != ExitOK {
		t.Fatalf("first run: exit %d: %s", code, stderr)
	}
	j, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	y, err := os.ReadFile(filepath.Join(dir, "first", "report.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var fromJSON, fromYAML any
	if err := yaml.Unmarshal(j, &fromJSON); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(y, &fromYAML); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromJSON, fromYAML) {
		t.Error("the YAML report does not hold the JSON report's content")
	}
	second := filepath.Join(dir, "second.json")
	code, _, stderr = runGoodput(t, "run", "-c", first, "--output", "kind=json,path="+second, "--server-metrics", "off", "--disable-progress")
	if code != ExitOK {
		t.Fatalf("run from the report's config: exit %d: %s", code, stderr)
	}
	a, err := report.Read(first)
	if err != nil {
		t.Fatal(err)
	}
	b, err := report.Read(second)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Benchmarks) != 1 || len(b.Benchmarks) != 1 || a.Benchmarks[0].Config.Strategy.Label() != b.Benchmarks[0].Config.Strategy.Label() {
		t.Errorf("the rerun's benchmarks differ from the first run's")
	}
}

// The options' plain pre-0.7 values keep their meaning.
func TestV07PlainForms(t *testing.T) {
	out := printed(t, "--target", "http://127.0.0.1:1", "--data", "prompt_tokens=8", "--profile", "synchronous",
		"--backend", "openai_http", "--tokenizer", "o200k_base", "--seed", "7", "--data-column-mapper", `{"text_column":"q"}`)
	for _, want := range []string{"rate-type: synchronous", "backend-type: openai_http", "processor: o200k_base", "random-seed: 7", `data-column-mapper: '{"text_column":"q"}'`} {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in\n%s", want, out)
		}
	}
}

// A scenario's option and the command line's of the same kind merge, the
// command line's keys winning (GuideLLM's deep update).
func TestConfigMergesOptions(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(cfg, []byte("spec:\n  backend: {kind: openai_http, target: http://127.0.0.1:1, model: llama, extras: {body: {temperature: 0, top_p: 1}}}\n  data: [{kind: synthetic_text, prompt_tokens: 8}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := printed(t, "-c", cfg, "--backend", `{"kind":"openai_http","target":"http://127.0.0.1:2","extras":{"body":{"top_p":0.5}}}`)
	for _, want := range []string{"target: http://127.0.0.1:2", "model: llama", `extra-body: '{"temperature":0,"top_p":0.5}'`} {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in\n%s", want, out)
		}
	}
}
