package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/clitest"

	"github.com/goodput-dev/goodput/cli"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/record"
)

// The pooling request types run end to end against the mock, whose
// latency is TTFT + tokens × mock.PoolingTokenTime: the report's request
// latency is at least the mock's, every request carries --batch-size
// inputs, the prompt tokens are the server's usage, and no request has
// a first token.
func TestBenchmarkPoolingTypes(t *testing.T) {
	url := clitest.Mock(t, func(c *mock.Config) { c.TTFT = 10 * time.Millisecond })
	dir := t.TempDir()
	for _, tc := range []struct {
		rt     string
		format string
	}{
		{"embeddings", "/v1/embeddings"}, {"rerank", "/v1/rerank"}, {"tei_rerank", "/rerank"}, {"nim_rankings", "/v1/ranking"}, {"score", "/score"},
	} {
		code, stdout, stderr := runGoodput(t, "benchmark", "--target", url, "--request-type", tc.rt, "--rate-type", "concurrent", "--rate", "2",
			"--data", "prompt_tokens=64,output_tokens=1", "--batch-size", "4", "--max-requests", "6", "--output-dir", dir, "--run-id", tc.rt,
			"--outputs", "json,jsonl,console")
		if code != cli.ExitOK {
			t.Fatalf("%s: exit %d: %s", tc.rt, code, stderr)
		}
		rep := clitest.ReadReport(t, filepath.Join(dir, tc.rt, "benchmarks.json"))
		m := rep.Benchmarks[0].Metrics
		if m.RequestTotals.Successful != 6 {
			t.Fatalf("%s: %v successful requests, want 6: %s", tc.rt, m.RequestTotals.Successful, stderr)
		}
		kind := map[bool]string{true: "inputs", false: "documents"}[tc.rt == "embeddings"]
		// Input tokens per second from the server's usage; TEI's rerank
		// and NIM's ranking return none, and without a tokenizer the rate
		// is unknown.
		noUsage := tc.rt == "tei_rerank" || tc.rt == "nim_rankings"
		tokens := !noUsage
		if in := rep.Benchmarks[0].Extras.Inputs; in == nil || in.Kind != kind || in.Total != 24 || in.PerRequest != 4 || in.PerSecond <= 0 ||
			(in.Tokens > 0) != tokens || (in.TokensPerSecond > 0) != tokens {
			t.Fatalf("%s: extras inputs %+v", tc.rt, in)
		}
		if !strings.Contains(stdout, "Pooling throughput") {
			t.Fatalf("%s: the console has no pooling throughput:\n%s", tc.rt, stdout)
		}
		raw, err := os.ReadFile(filepath.Join(dir, tc.rt, "benchmarks.json"))
		if err != nil {
			t.Fatal(err)
		}
		if flat := strings.ReplaceAll(string(raw), " ", ""); !strings.Contains(flat, `"request_format":"`+tc.format+`"`) && !strings.Contains(flat, `"/pooling":"`+tc.format+`"`) {
			t.Fatalf("%s: report names neither request_format %s nor a route to it in api_routes", tc.rt, tc.format)
		}
		guideLLMLoads(t, filepath.Join(dir, tc.rt, "benchmarks.json"))
		f, err := os.Open(filepath.Join(dir, tc.rt, "requests.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		n := 0
		for sc.Scan() {
			var r record.Record
			if err := record.UnmarshalLine(sc.Bytes(), &r); err != nil {
				t.Fatal(err)
			}
			n++
			lat := time.Duration(r.End - r.Dispatched)
			min := 10*time.Millisecond + time.Duration(max(r.ServerPromptTokens, 0))*mock.PoolingTokenTime
			// TEI's rerank answers no usage: the tokens are the client's
			// count, unknown without a tokenizer.
			usage := noUsage || r.ServerPromptTokens > 0 && r.PromptTokens == r.ServerPromptTokens
			if r.Status != record.StatusSuccessful || r.Inputs != 4 || r.FirstToken != 0 || !usage ||
				r.RequestedPromptTokens != 4*64*(1+oneIf(tc.rt != "embeddings")) || lat < min || lat > min+500*time.Millisecond {
				t.Fatalf("%s: record %s: latency %v, want ≥ %v", tc.rt, sc.Text(), lat, min)
			}
		}
		f.Close()
		if n != 6 {
			t.Fatalf("%s: %d records, want 6", tc.rt, n)
		}
	}
}

// An unknown model is refused before any load, and --batch-size is for
// the pooling types only.
func TestBenchmarkPoolingBadInput(t *testing.T) {
	url := clitest.Mock(t, nil)
	code, _, stderr := runGoodput(t, "benchmark", "--target", url, "--request-type", "chat_completions", "--batch-size", "4",
		"--data", "prompt_tokens=8,output_tokens=1", "--max-requests", "1", "--outputs", "console")
	if code != cli.ExitUsage || !strings.Contains(stderr, "--batch-size 4") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

func oneIf(b bool) int {
	if b {
		return 1
	}
	return 0
}

// audio_transcriptions runs end to end on synthetic audio: streamed, its
// TTFT is the mock's, and the extras count the audio seconds transcribed.
func TestBenchmarkTranscriptions(t *testing.T) {
	url := clitest.Mock(t, func(c *mock.Config) { c.TTFT = 10 * time.Millisecond })
	dir := t.TempDir()
	code, _, stderr := runGoodput(t, "benchmark", "--target", url, "--request-type", "audio_transcriptions", "--rate-type", "concurrent", "--rate", "2",
		"--data", "prompt_tokens=8,audio_seconds=3", "--max-requests", "4", "--output-dir", dir, "--run-id", "tr", "--outputs", "json")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b := clitest.ReadReport(t, filepath.Join(dir, "tr", "benchmarks.json")).Benchmarks[0]
	in := b.Extras.Inputs
	if ttft := *b.Metrics.TimeToFirstTokenMs.Successful.Percentiles.P50; b.Metrics.RequestTotals.Successful != 4 || ttft < 10 || ttft > 100 ||
		in == nil || in.Kind != "audio_seconds" || in.Seconds != 12 || in.PerSecond <= 0 {
		t.Fatalf("successful %v, TTFT %v, inputs %+v", b.Metrics.RequestTotals.Successful, ttft, in)
	}
	code, _, stderr = runGoodput(t, "benchmark", "--target", url, "--request-type", "audio_transcriptions",
		"--data", "prompt_tokens=8", "--max-requests", "1", "--outputs", "console")
	if code != cli.ExitUsage || !strings.Contains(stderr, "needs audio") {
		t.Fatalf("no audio: exit %d: %s", code, stderr)
	}
}
