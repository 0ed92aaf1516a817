package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/internal/clitest"

	"github.com/goodput-dev/goodput/report"
)

// v06Config parses a GuideLLM v0.6 command line (after `guidellm
// benchmark`) as goodput benchmark does, without running it.
func v06Config(t *testing.T, args ...string) (*draft, error) {
	t.Helper()
	var o benchOptions
	fs := NewFlagSet("benchmark", "", &strings.Builder{})
	benchFlags(&o, fs)
	if err := ParseFlags(fs, v06Args(args)); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		t.Fatalf("%q: arguments left %q", args, fs.Args())
	}
	o.v07.cli = changedFlags(fs) // as runBenchmark does
	if err := applyV07(&o, fs, o.v07, ""); err != nil {
		return nil, err
	}
	return o.validateAll(fs)
}

// GuideLLM v0.6's forms reach the run's configuration with GuideLLM's
// meaning: the run subcommand, space-separated --outputs,
// --detect-saturation, a JSON --over-saturation, --output-extras,
// --request-formatter-kwargs and --data-args.
func TestGuideLLMV06Forms(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data.jsonl")
	if err := os.WriteFile(data, []byte(`{"prompt":"Name three primes.","output_tokens_count":8}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"run", "--target", "http://127.0.0.1:1", "--model", "m", "--data", "prompt_tokens=8,output_tokens=4", "--max-requests", "4", "--rate-type", "synchronous"}
	with := func(args ...string) []string { return append(slices.Clone(base), args...) }

	p, err := v06Config(t, with("--outputs", "json", "csv", "--disable-progress")...)
	if err != nil || !p.Outputs.Kinds["json"] || !p.Outputs.Kinds["csv"] || len(p.Outputs.Kinds) != 2 {
		t.Errorf("--outputs json csv: outputs %v, %v", p.Outputs.Kinds, err)
	}
	p, err = v06Config(t, with("--outputs=json", "html")...)
	if err != nil || !p.Outputs.Kinds["json"] || !p.Outputs.Kinds["html"] || len(p.Outputs.Kinds) != 2 {
		t.Errorf("--outputs=json html: outputs %v, %v", p.Outputs.Kinds, err)
	}

	p, err = v06Config(t, with("--detect-saturation")...)
	if err != nil || p.Plan.Constraints.OverSaturation == nil || p.Plan.Constraints.OverSaturation.MinSeconds != 30 || p.Plan.Constraints.OverSaturation.Monitor {
		t.Errorf("--detect-saturation: %+v, %v; want GuideLLM's defaults (enforce, min_seconds 30)", p.Plan.Constraints.OverSaturation, err)
	}
	p, err = v06Config(t, with("--over-saturation", `{"enabled": true, "min_seconds": 10, "mode": "monitor"}`)...)
	if err != nil || p.Plan.Constraints.OverSaturation == nil || p.Plan.Constraints.OverSaturation.MinSeconds != 10 || !p.Plan.Constraints.OverSaturation.Monitor {
		t.Errorf("--over-saturation JSON: %+v, %v", p.Plan.Constraints.OverSaturation, err)
	}
	p, err = v06Config(t, with("--over-saturation", `{"enabled": false}`)...)
	if err != nil || p.Plan.Constraints.OverSaturation != nil {
		t.Errorf(`--over-saturation {"enabled": false}: %+v, %v; want off`, p.Plan.Constraints.OverSaturation, err)
	}

	p, err = v06Config(t, with("--output-extras", `{"team":"inference","gpus":8}`)...)
	if err != nil || p.Metadata.ScenarioLabels["team"] != "inference" || p.Metadata.ScenarioLabels["gpus"] != "8" {
		t.Errorf("--output-extras: labels %v, %v", p.Metadata.ScenarioLabels, err)
	}

	p, err = v06Config(t, with("--request-formatter-kwargs", `{"extras": {"body": {"temperature": 0}, "headers": {"X-Auth-Token": "t"}}, "stream": false}`)...)
	if err != nil {
		t.Fatal(err)
	}
	if c := p.runConfig(); c.ExtraBody["temperature"] != float64(0) || c.Client.Headers["X-Auth-Token"] != "t" || !c.Client.NoStream {
		t.Errorf("--request-formatter-kwargs: extra body %v, headers %v, no stream %v", c.ExtraBody, c.Client.Headers, c.Client.NoStream)
	}

	p, err = v06Config(t, "--target", "http://127.0.0.1:1", "--model", "m", "--data", data, "--data-args", `{"split": "train"}`, "--rate-type", "synchronous")
	if err != nil || p.Data.Opened == nil || p.Data.Opened.Description.Requests != 1 {
		t.Errorf("--data-args on a local file: %+v, %v", p, err)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{with("--request-formatter-kwargs", `{"encode_kwargs": {}}`), `--request-formatter-kwargs: json: unknown field "encode_kwargs"`},
		{with("--output-extras", `[1]`), "--output-extras: want a JSON object"},
		{with("--over-saturation", `{"enabled": true, "min_seconds": [1]}`), "--over-saturation"},
		{with("--data-args", `{"streaming": true}`), `--data-args: key "streaming" not supported`},
		{with("--data-args", `{"split": "test"}`), "--data-args applies to a data file, a dataset directory or a hub id"},
	} {
		if _, err := v06Config(t, c.args...); err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v; want one line with %q", c.args[len(base):], err, c.want)
		}
	}
}

// GuideLLM's outputs guide runs its commands one after another into the
// same results/benchmark.json: the GuideLLM dialect overwrites the file
// its --output names and says so once on stderr and in the report;
// goodput's own --output-path keeps refusing.
func TestGuideLLMOutputOverwritesNamedFile(t *testing.T) {
	url := clitest.Mock(t, nil)
	t.Chdir(t.TempDir())
	cmd := []string{"run", "--backend", "kind=openai_http,target=" + url, "--profile", "kind=synchronous",
		"--constraint", "kind=max_requests,count=2", "--data", "kind=synthetic_text,prompt_tokens=16,output_tokens=4",
		"--output", "kind=json,path=results/benchmark.json", "--server-metrics", "off", "--disable-progress"}
	if code, _, stderr := runGoodput(t, cmd...); code != ExitOK {
		t.Fatalf("first run: exit %d: %s", code, stderr)
	}
	code, _, stderr := runGoodput(t, cmd...)
	if code != ExitOK {
		t.Fatalf("second run: exit %d: %s", code, stderr)
	}
	const note = "overwriting results/benchmark.json, as GuideLLM overwrites the files its --output names"
	if n := strings.Count(stderr, note); n != 1 {
		t.Errorf("stderr says %d times %q:\n%s", n, note, stderr)
	}
	rep, err := report.Read("results/benchmark.json")
	if err != nil {
		t.Fatal(err)
	}
	// (The rerun is cache-warm on the same mock, so the cache note may join.)
	if rep.Run == nil || countPrefixed(rep.Run.Notes, note) != 1 {
		t.Errorf("report notes %+v", rep.Run)
	}
	own := []string{"benchmark", "--target", url, "--rate-type", "synchronous", "--max-requests", "2", "--data", "prompt_tokens=16,output_tokens=4",
		"--output-path", "results/benchmark.json", "--server-metrics", "off", "--disable-progress"}
	if code, _, stderr := runGoodput(t, own...); code != ExitUsage || !strings.Contains(stderr, "a run never overwrites another") {
		t.Errorf("goodput's --output-path: exit %d, %s; want the refusal", code, stderr)
	}
}

func TestV06Args(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"run --target x --outputs json csv --rate 1", "--target x --outputs=json,csv --rate 1"},
		{"--outputs json,csv html --data d", "--outputs=json,csv,html --data d"},
		{"--outputs=json csv", "--outputs=json,csv"},
		{"--data run --outputs json extra.txt", "--data run --outputs=json extra.txt"},
	} {
		if got := strings.Join(v06Args(strings.Fields(c.in)), " "); got != c.want {
			t.Errorf("%q: %q, want %q", c.in, got, c.want)
		}
	}
}

// GuideLLM v0.6 writes a file named in --outputs as the kind of its
// extension; --backend-kwargs takes v0.6's extras object; the in-process
// vllm_python backend is refused with the HTTP form.
func TestGuideLLMV06OutputFilesAndExtras(t *testing.T) {
	base := []string{"--target", "http://127.0.0.1:1", "--model", "m", "--data", "prompt_tokens=8,output_tokens=4", "--max-requests", "4", "--rate-type", "synchronous"}
	with := func(args ...string) []string { return append(slices.Clone(base), args...) }

	p, err := v06Config(t, with("--outputs", "results/benchmarks.json", "results/summary.csv")...)
	if err != nil || p.Outputs.Path != "results/benchmarks.json" || p.Outputs.Files["csv"] != "results/summary.csv" || !p.Outputs.Kinds["json"] || !p.Outputs.Kinds["csv"] {
		t.Errorf("--outputs FILE.json FILE.csv: path %q, files %v, outputs %v, %v", p.Outputs.Path, p.Outputs.Files, p.Outputs.Kinds, err)
	}
	p, err = v06Config(t, with("--backend-kwargs", `{"api_key": "sk-x", "extras": {"body": {"temperature": 0.8}, "headers": {"X-Team": "a"}}}`)...)
	if err != nil || p.Client.ExtraBody != `{"temperature":0.8}` || p.Client.Headers["X-Team"] != "a" || p.Client.APIKey != "sk-x" {
		t.Errorf("--backend-kwargs extras: body %q, headers %v, %v", p.Client.ExtraBody, p.Client.Headers, err)
	}
	if _, err := v06Config(t, with("--backend-kwargs", `{"extras": {"params": {"a": 1}}}`)...); err == nil || !strings.Contains(err.Error(), "extras.params") {
		t.Errorf("extras.params: %v; want it named", err)
	}
	if _, err := v06Config(t, "--backend", "vllm_python", "--model", "Qwen/Qwen3-0.6B", "--data", "prompt_tokens=8"); err == nil || !strings.Contains(err.Error(), "vllm serve") {
		t.Errorf("--backend vllm_python: %v; want the HTTP form named", err)
	}
}

// countPrefixed counts the notes that start with prefix.
func countPrefixed(notes []string, prefix string) int {
	n := 0
	for _, s := range notes {
		if strings.HasPrefix(s, prefix) {
			n++
		}
	}
	return n
}
