package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzV07Option: any value of a GuideLLM v0.7 option (kind=…,key=…, JSON
// or YAML) is applied or refused with an error, never a panic.
func FuzzV07Option(f *testing.F) {
	for _, s := range []string{
		"kind=constant,rate=10", `{"kind":"constant","rate":[16,32]}`, "kind: poisson\nrate: 2.5",
		"kind=openai_http,target=http://127.0.0.1:1/v1,http2=false,request_format=/v1/embeddings",
		"kind=over_saturation,min_seconds=5,mode=stop", "kind=target_moe,metric=ttft,statistic=p99,moe=0.05",
		"kind=max_duration,seconds=[1,2]", `{"kind":"generative","slo":{"ttft_ms":{"p99":500}}}`,
		"kind=json,path=x.json", "kind=static,value=7", "kind=pytorch,num_workers=1",
	} {
		for i := range v07Opts {
			f.Add(uint8(i), s)
		}
	}
	f.Fuzz(func(t *testing.T, opt uint8, val string) {
		var o benchOptions
		fs := NewFlagSet("benchmark", "", &strings.Builder{})
		benchFlags(&o, fs)
		if err := ParseFlags(fs, []string{"--" + v07Opts[int(opt)%len(v07Opts)], val}); err != nil {
			return
		}
		o.v07.cli = changedFlags(fs)
		_ = applyV07(&o, fs, o.v07, "")
	})
}

// FuzzConfigFile: any --config file (a GuideLLM scenario or goodput's own
// YAML/JSON) is read or refused with an error, never a panic.
func FuzzConfigFile(f *testing.F) {
	f.Add([]byte("rate-type: concurrent\nrate: [1, 2]\ndata: prompt_tokens=8,output_tokens=4\n"))
	f.Add([]byte(`{"target":"http://127.0.0.1:1","data":{"prompt_tokens":8},"profile":"concurrent","rate":4}`))
	f.Add([]byte("spec:\n  backend: {kind: openai_http, target: 'http://127.0.0.1:1'}\n  profile: {kind: sweep, sweep_size: 3}\n  constraints: [{kind: max_duration, seconds: 5}]\n"))
	f.Add([]byte("backend_kwargs: {}\nrate_type: sweep\nmax_seconds: 30\n"))
	path := filepath.Join(f.TempDir(), "c.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		var o benchOptions
		fs := NewFlagSet("benchmark", "", &strings.Builder{})
		benchFlags(&o, fs)
		o.configFile = path
		o.v07.cli = changedFlags(fs)
		if err := applyConfig(&o, fs); err != nil {
			return
		}
		_ = applyV07(&o, fs, o.v07, path)
	})
}

// FuzzAIPerfConfig: any AIPerf YAML config is read into goodput profile's
// options or refused with an error, never a panic.
func FuzzAIPerfConfig(f *testing.F) {
	f.Add([]byte("schemaVersion: \"2.0\"\nbenchmark:\n  models: [m]\n  endpoint: {url: 'http://127.0.0.1:1'}\n"))
	f.Add([]byte("schemaVersion: \"2.0\"\nbenchmark:\n  model: ${MODEL:m}\n  phases:\n    - {type: concurrency, concurrency: 4, requests: 10}\n"))
	path := filepath.Join(f.TempDir(), "aiperf.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		var po profileOptions
		fs := NewFlagSet("profile", "", &strings.Builder{})
		profileFlags(&po, fs)
		_ = po.readAIPerfConfig(fs, path, func(string) string { return "" })
	})
}
