package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/clitest"

	"github.com/goodput-dev/goodput/cli"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/tokenize"
)

// Against a mock whose chat template adds 5 prompt tokens: the prompt
// mismatch is reported and warned about; --chat-template-overhead auto
// makes every request bill the requested 128 prompt tokens.
func TestBenchmarkChatTemplateOverhead(t *testing.T) {
	tok, err := tokenize.Builtin("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	url := clitest.Mock(t, func(c *mock.Config) { c.ChatTemplateTokens, c.PromptTokenCounter = 5, tok.Count })
	dir := t.TempDir()
	bench := func(id string, extra ...string) (*report.Benchmark, []*record.Record, string) {
		args := append([]string{"benchmark", "--target", url, "--rate-type", "concurrent", "--rate", "2", "--processor", "o200k_base",
			"--data", "prompt_tokens=128,output_tokens=8", "--max-requests", "8", "--output-dir", dir, "--run-id", id,
			"--outputs", "json,jsonl"}, extra...)
		code, _, stderr := runGoodput(t, args...)
		if code != cli.ExitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		rep, err := report.Read(filepath.Join(dir, id, "benchmarks.json"))
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(filepath.Join(dir, id, "requests.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var recs []*record.Record
		dec := record.NewDecoder(f, "requests.jsonl")
		for r := record.New(); dec.Decode(r) == nil; r = record.New() {
			recs = append(recs, r)
		}
		return rep.Benchmarks[0], recs, stderr
	}

	b, recs, stderr := bench("plain")
	pm := b.Extras.PromptTokenMismatch
	if pm == nil || pm.Compared != 8 || pm.ServerHigher != 8 || pm.Difference.Mean != 5 {
		t.Fatalf("prompt mismatch %+v", pm)
	}
	if ov := b.Extras.PromptOverhead["chat_completions"]; ov == nil || ov.Tokens.Mean != 5 {
		t.Fatalf("overhead %+v", b.Extras.PromptOverhead)
	}
	if !strings.Contains(stderr, "WARNING: benchmark 0 (concurrent 2): prompt tokens:") || !strings.Contains(stderr, "tokenizer o200k_base") ||
		!strings.Contains(stderr, "5 more prompt tokens on every request: likely the chat template") {
		t.Errorf("stderr lacks the prompt warning:\n%s", stderr)
	}
	for _, r := range recs {
		if r.ServerPromptTokens != 133 || r.ClientPromptTokens != 128 || r.RequestedPromptTokens != 128 {
			t.Fatalf("record: server %d client %d requested %d prompt tokens", r.ServerPromptTokens, r.ClientPromptTokens, r.RequestedPromptTokens)
		}
	}

	b, recs, stderr = bench("auto", "--chat-template-overhead", "auto")
	if pm := b.Extras.PromptTokenMismatch; pm == nil || pm.Equal != 8 || b.Extras.PromptOverhead["chat_completions"].Applied != 5 {
		t.Fatalf("auto: prompt mismatch %+v overhead %+v", pm, b.Extras.PromptOverhead)
	}
	// Only the token warnings count: a loaded CI machine may add the
	// client-saturation one.
	if strings.Contains(stderr, "tokens: the server's usage") {
		t.Errorf("auto: stderr warns:\n%s", stderr)
	}
	for _, r := range recs {
		if r.ServerPromptTokens != 128 || r.ClientPromptTokens != 123 || r.RequestedPromptTokens != 128 {
			t.Fatalf("auto: record: server %d client %d requested %d prompt tokens", r.ServerPromptTokens, r.ClientPromptTokens, r.RequestedPromptTokens)
		}
	}

	// A file's prompts are not built to a length: the overhead is refused.
	data := filepath.Join(dir, "prompts.jsonl")
	if err := os.WriteFile(data, []byte(`{"prompt":"hello"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runGoodput(t, "benchmark", "--target", url, "--data", data, "--chat-template-overhead", "3", "--max-requests", "1")
	if code != cli.ExitUsage || !strings.Contains(stderr, "--chat-template-overhead: applies to synthetic data") {
		t.Errorf("file data: exit %d: %s", code, stderr)
	}
}

// --no-stream without a tokenizer: the client's output count is unknown,
// so the mismatch column prints "-", not 100 %, and nothing warns.
func TestBenchmarkNoStreamUnknownMismatch(t *testing.T) {
	url := clitest.Mock(t, nil)
	dir := t.TempDir()
	code, stdout, stderr := runGoodput(t, "benchmark", "--target", url, "--rate-type", "concurrent", "--rate", "2", "--no-stream",
		"--data", "prompt_tokens=16,output_tokens=8", "--max-requests", "6", "--output-dir", dir, "--run-id", "ns", "--outputs", "json,jsonl,console")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rep, err := report.Read(filepath.Join(dir, "ns", "benchmarks.json"))
	if err != nil {
		t.Fatal(err)
	}
	if g := rep.Benchmarks[0].Extras; g.TokenMismatch.Compared != 0 || len(g.TokenWarnings) != 0 {
		t.Errorf("token mismatch %+v, warnings %+v", g.TokenMismatch, g.TokenWarnings)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "ns", "requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(raw), `"client_output_tokens":-1`) != 6 {
		t.Errorf("records do not say the client count is unknown:\n%s", raw)
	}
	header := false
	for _, l := range strings.Split(stdout, "\n") {
		if strings.Contains(l, "Mismatch %") {
			header = true
		} else if header && strings.HasPrefix(strings.TrimSpace(l), "0 ") {
			if !strings.HasSuffix(l, " -") {
				t.Errorf("mismatch row %q, want -", l)
			}
			return
		}
	}
	t.Errorf("no mismatch row in:\n%s", stdout)
}

// --processor server: exact prompts built with the server's own /tokenize
// (llama-server's form), every request billed the requested 128 tokens;
// output tokens come from the server's usage, not from more requests to it.
func TestBenchmarkProcessorServer(t *testing.T) {
	tok, err := tokenize.Builtin("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	url := clitest.Mock(t, func(c *mock.Config) {
		c.Personality = mock.PersonalityLlamaCpp
		c.PromptTokenIDs, c.PromptTokenDecoder = tok.Encode, tok.Decode
	})
	dir := t.TempDir()
	code, _, stderr := runGoodput(t, "benchmark", "--target", url, "--rate-type", "concurrent", "--rate", "2", "--processor", "server",
		"--data", "prompt_tokens=128,output_tokens=8", "--max-requests", "8", "--output-dir", dir, "--run-id", "srv", "--outputs", "json,jsonl")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rep, err := report.Read(filepath.Join(dir, "srv", "benchmarks.json"))
	if err != nil {
		t.Fatal(err)
	}
	if pm := rep.Benchmarks[0].Extras.PromptTokenMismatch; pm == nil || pm.Compared != 8 || pm.Equal != 8 {
		t.Fatalf("prompt mismatch %+v", pm)
	}
	f, err := os.Open(filepath.Join(dir, "srv", "requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := record.NewDecoder(f, "requests.jsonl")
	n := 0
	for r := record.New(); dec.Decode(r) == nil; r = record.New() {
		n++
		if r.ServerPromptTokens != 128 || r.ClientPromptTokens != 128 || r.OutputSource != record.TokensUsage {
			t.Fatalf("record: server %d client %d prompt tokens, output from %q", r.ServerPromptTokens, r.ClientPromptTokens, r.OutputSource)
		}
	}
	if n != 8 {
		t.Fatalf("%d records, want 8", n)
	}

	// Ollama has no /tokenize: a usage error before any load.
	ollama := clitest.Mock(t, func(c *mock.Config) { c.Personality = mock.PersonalityOllama })
	code, _, stderr = runGoodput(t, "benchmark", "--target", ollama, "--processor", "server", "--data", "prompt_tokens=16,output_tokens=8", "--max-requests", "1")
	if code != cli.ExitUsage || !strings.Contains(stderr, "--processor server: server tokenizer: ") || !strings.Contains(stderr, "answers neither llama.cpp's nor vLLM's form") {
		t.Errorf("Ollama: exit %d: %s", code, stderr)
	}
}

// Against the mock's ollama personality (its template wraps text
// completions too; prompts past num_ctx are cut, not refused): the text
// completions' constant surplus is named a template surplus with the
// flag that compensates it, and prompts cut to the context are the
// context limit, with the limit.
func TestBenchmarkOllamaPromptDiagnoses(t *testing.T) {
	tok, err := tokenize.Builtin("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	url := clitest.Mock(t, func(c *mock.Config) {
		c.Personality, c.ChatTemplateTokens, c.MaxModelLen, c.PromptTokenCounter = mock.PersonalityOllama, 10, 200, tok.Count
	})
	dir := t.TempDir()
	bench := func(id, data string, extra ...string) string {
		t.Helper()
		args := append([]string{"benchmark", "--target", url, "--rate-type", "concurrent", "--rate", "2", "--processor", "o200k_base",
			"--data", data, "--max-requests", "4", "--output-dir", dir, "--run-id", id, "--outputs", "json"}, extra...)
		code, _, stderr := runGoodput(t, args...)
		if code != cli.ExitOK {
			t.Fatalf("%s: exit %d: %s", id, code, stderr)
		}
		return stderr
	}
	stderr := bench("text", "prompt_tokens=64,output_tokens=8", "--request-type", "text_completions")
	for _, want := range []string{"the server counts 10 more prompt tokens on every request: likely a template surplus", "--chat-template-overhead auto"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("text completions: stderr lacks %q:\n%s", want, stderr)
		}
	}
	stderr = bench("cut", "prompt_tokens=400,output_tokens=8")
	if want := "the server billed 200 prompt tokens on every request, fewer than each sent: its context limit cut the prompts to 200 tokens"; !strings.Contains(stderr, want) {
		t.Errorf("prompts past the context: stderr lacks %q:\n%s", want, stderr)
	}
}

// A throughput round none of whose streams completes (a small server, as
// Ollama under the default sweep's 512 streams) is warned about, with the
// flag that caps its streams.
func TestBenchmarkThroughputRoundCompletesNothing(t *testing.T) {
	url := clitest.Mock(t, func(c *mock.Config) { c.TTFT, c.TTFTStdev = 5*time.Second, 0 })
	code, _, stderr := runGoodput(t, "benchmark", "--target", url, "--rate-type", "throughput", "--rate", "3",
		"--data", "prompt_tokens=16,output_tokens=4", "--max-seconds", "0.3", "--output-dir", t.TempDir(), "--outputs", "json")
	want := "WARNING: benchmark 0 (throughput@3): no request of its 3 streams completed within the round: the server cannot serve that many at once"
	if !strings.Contains(stderr, want) || !strings.Contains(stderr, "--max-concurrency N caps a sweep's throughput round (--rate, --rate-type throughput's)") {
		t.Errorf("exit %d; stderr lacks %q:\n%s", code, want, stderr)
	}
}
