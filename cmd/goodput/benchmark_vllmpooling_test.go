package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/cli"
	"github.com/goodput-dev/goodput/internal/clitest"

	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/record"
)

// GuideLLM v0.6's geospatial guide (docs/guides/geospatial.md) runs as
// printed against the mock: each record's "prompt" object is one /pooling
// request (the mock takes TTFT + mock.PoolingDataTime), counted as one
// input, no first token, judged by the request-latency default SLO, and
// the report's backend says /pooling without a stream. A prompt goes to
// /pooling as its one input; a data object sent to embeddings is refused
// before the run.
func TestBenchmarkVLLMPooling(t *testing.T) {
	const model = "ibm-nasa-geospatial/Prithvi-EO-2.0-300M-TL-Sen1Floods11"
	url := clitest.Mock(t, func(c *mock.Config) { c.TTFT, c.Model = 10*time.Millisecond, model })
	dir := t.TempDir()
	flood := filepath.Join(dir, "flood_detection_dataset.jsonl")
	row := `{"prompt":{"data": {"data": "https://huggingface.co/ibm-nasa-geospatial/Prithvi-EO-2.0-300M-TL-Sen1Floods11/resolve/main/examples/India_900498_S2Hand.tif","data_format": "url","out_data_format": "b64_json","indices": [1, 2, 3, 8, 11, 12]},"priority": 0}}`
	if err := os.WriteFile(flood, []byte(strings.Repeat(row+"\n", 10)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runGoodput(t, "benchmark", "--target", url, "--model", model, "--backend", "openai_http", "--data", flood,
		"--request-format", "/pooling", "--data-column-mapper", "pooling_column_mapper", "--max-requests", "10", "--rate-type", "synchronous",
		"--output-path", filepath.Join(dir, "results.json"), "--outputs", "json,jsonl", "--server-metrics", "off")
	if code != cli.ExitOK {
		t.Fatalf("geospatial: exit %d: %s", code, stderr)
	}
	path := filepath.Join(dir, "results.json")
	b := clitest.ReadReport(t, path).Benchmarks[0]
	if in := b.Extras.Inputs; b.Metrics.RequestTotals.Successful != 10 || in == nil || in.Kind != "inputs" || in.Total != 10 || in.PerRequest != 1 {
		t.Fatalf("geospatial: %v successful, inputs %+v", b.Metrics.RequestTotals.Successful, in)
	}
	if s := b.Extras.SLO; s == nil || s.Spec != "e2e_p99=1000ms,error_rate=0.5%" || !s.Default || !s.Pass {
		t.Fatalf("geospatial: SLO %+v", s)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if flat := strings.ReplaceAll(string(raw), " ", ""); !strings.Contains(flat, `"request_format":"/pooling","api_key":null,"api_routes":{}`) || !strings.Contains(flat, `"stream":false`) {
		t.Fatal("geospatial: the report's backend is not /pooling without a stream")
	}
	guideLLMLoads(t, path)
	checkPoolingRecords(t, filepath.Join(dir, "results.jsonl"), 10, 10*time.Millisecond+mock.PoolingDataTime)

	code, _, stderr = runGoodput(t, "benchmark", "--target", url, "--request-type", "pooling", "--rate-type", "synchronous", "--data", "prompt_tokens=32,output_tokens=1",
		"--max-requests", "3", "--output-dir", dir, "--run-id", "text", "--outputs", "json,jsonl")
	if code != cli.ExitOK {
		t.Fatalf("prompt: exit %d: %s", code, stderr)
	}
	if b := clitest.ReadReport(t, filepath.Join(dir, "text", "benchmarks.json")).Benchmarks[0]; b.Metrics.RequestTotals.Successful != 3 || b.Extras.Inputs == nil || b.Extras.Inputs.Tokens < 3*32 {
		t.Fatalf("prompt: %v successful, inputs %+v", b.Metrics.RequestTotals.Successful, b.Extras.Inputs)
	}
	checkPoolingRecords(t, filepath.Join(dir, "text", "requests.jsonl"), 3, 10*time.Millisecond+32*mock.PoolingTokenTime)

	code, _, stderr = runGoodput(t, "benchmark", "--target", url, "--request-type", "embeddings", "--data", flood,
		"--data-column-mapper", "pooling_column_mapper", "--max-requests", "1", "--outputs", "console")
	if line := strings.TrimSpace(stderr); code != cli.ExitUsage || strings.Contains(line, "\n") || !strings.Contains(line, "use --request-type pooling") {
		t.Fatalf("data objects to embeddings: exit %d: %s", code, stderr)
	}
}

// checkPoolingRecords checks a run's records: n successful /pooling
// requests of one input each, no token, answered after at least min.
func checkPoolingRecords(t *testing.T, path string, n int, min time.Duration) {
	t.Helper()
	recs := clitest.ReadRecords(t, path)
	for _, r := range recs {
		lat := time.Duration(r.End - r.Dispatched)
		if r.Status != record.StatusSuccessful || r.Inputs != 1 || r.FirstToken != 0 || r.OutputTokens != 0 || lat < min || lat > min+500*time.Millisecond {
			t.Fatalf("record %+v: latency %v, want ≥ %v", r, lat, min)
		}
	}
	if len(recs) != n {
		t.Fatalf("%d records, want %d", len(recs), n)
	}
}

// audio_translations (GuideLLM's --request-type, v0.7's request_format)
// runs end to end on synthetic audio as transcriptions do: streamed, its
// TTFT the mock's, the extras counting the audio seconds, and the report's
// backend naming /v1/audio/translations.
func TestBenchmarkTranslations(t *testing.T) {
	url := clitest.Mock(t, func(c *mock.Config) { c.TTFT = 10 * time.Millisecond })
	dir := t.TempDir()
	for name, args := range map[string][]string{
		"request-type":   {"--target", url, "--request-type", "audio_translations", "--extra-body", `{"language":"fr"}`},
		"request_format": {"--backend", `{"kind":"openai_http","target":"` + url + `","request_format":"/v1/audio/translations","extras":{"body":{"language":"fr"}}}`},
	} {
		code, _, stderr := runGoodput(t, append(append([]string{"benchmark"}, args...), "--rate-type", "synchronous", "--data", "prompt_tokens=8,audio_seconds=2", "--max-requests", "3",
			"--output-dir", dir, "--run-id", name, "--outputs", "json")...)
		if code != cli.ExitOK {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		path := filepath.Join(dir, name, "benchmarks.json")
		b := clitest.ReadReport(t, path).Benchmarks[0]
		in := b.Extras.Inputs
		if ttft := *b.Metrics.TimeToFirstTokenMs.Successful.Percentiles.P50; b.Metrics.RequestTotals.Successful != 3 || ttft < 10 || ttft > 100 ||
			in == nil || in.Kind != "audio_seconds" || in.Seconds != 6 {
			t.Fatalf("%s: successful %v, TTFT %v, inputs %+v", name, b.Metrics.RequestTotals.Successful, ttft, in)
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.ReplaceAll(string(raw), " ", ""), `"request_format":"/v1/audio/translations"`) {
			t.Fatalf("%s: the report's backend is not /v1/audio/translations", name)
		}
	}
}
