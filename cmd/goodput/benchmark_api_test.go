package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/report"
)

// --request-type responses and messages run end to end against the mock
// (TTFT 20 ms, 2 ms per token): the report's TTFT, ITL and request latency
// are the mock's, its request_format names the API, and the API key (sent
// as x-api-key to Messages) is written nowhere.
func TestBenchmarkResponsesAndMessages(t *testing.T) {
	url := startTestMock(t, func(c *mock.Config) { c.TTFT, c.ITL = 20*time.Millisecond, 2*time.Millisecond })
	dir := t.TempDir()
	for _, rt := range []string{"responses", "messages"} {
		code, stdout, stderr := runGoodput(t, "benchmark", "--target", url, "--request-type", rt, "--rate-type", "concurrent", "--rate", "2",
			"--data", "prompt_tokens=16,output_tokens=8", "--max-requests", "8", "--output-dir", dir, "--run-id", rt,
			"--outputs", "json,jsonl,console", "--api-key", "sk-SENTINEL-key")
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", rt, code, stderr)
		}
		b := readReport(t, filepath.Join(dir, rt, "benchmarks.json")).Benchmarks[0]
		m := b.Metrics
		ttft, itl, e2e := *m.TimeToFirstTokenMs.Successful.Percentiles.P50, *m.InterTokenLatencyMs.Successful.Percentiles.P50, *m.RequestLatency.Successful.Percentiles.P50
		if m.RequestTotals.Successful != 8 || report.Int(m.OutputTokenCount.Successful.TotalSum) != 64 ||
			ttft < 20 || ttft > 100 || itl < 1.5 || itl > 5 || e2e < 0.034 || e2e > 0.2 {
			t.Fatalf("%s: successful %v, output tokens %v, TTFT %v ms, ITL %v ms, latency %v s", rt, m.RequestTotals.Successful,
				m.OutputTokenCount.Successful.TotalSum, ttft, itl, e2e)
		}
		raw, err := os.ReadFile(filepath.Join(dir, rt, "benchmarks.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(raw, []byte(`"request_format": "/v1/`+rt+`"`)) && !bytes.Contains(raw, []byte(`"request_format":"/v1/`+rt+`"`)) {
			t.Fatalf("%s: report does not name request_format /v1/%s", rt, rt)
		}
		for _, name := range []string{"benchmarks.json", "requests.jsonl"} {
			if b, _ := os.ReadFile(filepath.Join(dir, rt, name)); bytes.Contains(b, []byte("sk-SENTINEL")) {
				t.Fatalf("%s/%s contains the API key", rt, name)
			}
		}
		if strings.Contains(stdout+stderr, "sk-SENTINEL") {
			t.Fatalf("%s: console output contains the API key", rt)
		}
	}
}
