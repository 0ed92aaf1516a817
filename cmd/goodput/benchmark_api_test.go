package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/clitest"

	"github.com/goodput-dev/goodput/cli"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/report"
)

// --request-type responses and messages run end to end against the mock
// (TTFT 20 ms, 2 ms per token): the report's TTFT, ITL and request latency
// are the mock's, its request_format names the API, and the API key (sent
// as x-api-key to Messages) is written nowhere.
func TestBenchmarkResponsesAndMessages(t *testing.T) {
	url := clitest.Mock(t, func(c *mock.Config) { c.TTFT, c.ITL = 20*time.Millisecond, 2*time.Millisecond })
	dir := t.TempDir()
	for _, rt := range []string{"responses", "messages"} {
		var stdout, stderr string
		// The timing bounds hold on an idle machine; a starved client bunches
		// chunks (ITL near 0), so an attempt out of them is run once more.
		for attempt := 1; ; attempt++ {
			var code int
			code, stdout, stderr = runGoodput(t, "benchmark", "--target", url, "--request-type", rt, "--rate-type", "concurrent", "--rate", "2",
				"--data", "prompt_tokens=16,output_tokens=8", "--max-requests", "8", "--output-dir", dir, "--run-id", rt,
				"--outputs", "json,jsonl,console", "--api-key", "sk-SENTINEL-key", "--force")
			if code != cli.ExitOK {
				t.Fatalf("%s: exit %d: %s", rt, code, stderr)
			}
			m := clitest.ReadReport(t, filepath.Join(dir, rt, "benchmarks.json")).Benchmarks[0].Metrics
			ttft, itl, e2e := *m.TimeToFirstTokenMs.Successful.Percentiles.P50, *m.InterTokenLatencyMs.Successful.Percentiles.P50, *m.RequestLatency.Successful.Percentiles.P50
			if m.RequestTotals.Successful != 8 || report.Int(m.OutputTokenCount.Successful.TotalSum) != 64 {
				t.Fatalf("%s: successful %v, output tokens %v", rt, m.RequestTotals.Successful, m.OutputTokenCount.Successful.TotalSum)
			}
			if ttft >= 20 && ttft <= 100 && itl >= 1.5 && itl <= 5 && e2e >= 0.034 && e2e <= 0.2 {
				break
			}
			msg := fmt.Sprintf("%s: TTFT %v ms, ITL %v ms, latency %v s; the mock's are 20 ms, 2 ms, 34 ms", rt, ttft, itl, e2e)
			if attempt == 2 {
				t.Fatal(msg)
			}
			t.Logf("%s (attempt %d, retried)", msg, attempt)
		}
		raw, err := os.ReadFile(filepath.Join(dir, rt, "benchmarks.json"))
		if err != nil {
			t.Fatal(err)
		}
		if flat := strings.ReplaceAll(string(raw), " ", ""); !strings.Contains(flat, `"request_format":"/v1/`+rt+`"`) && !strings.Contains(flat, `":"/v1/`+rt+`"`) {
			t.Fatalf("%s: report names neither request_format /v1/%s nor a route to it in api_routes", rt, rt)
		}
		guideLLMLoads(t, filepath.Join(dir, rt, "benchmarks.json"))
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

// Messages takes its key from $ANTHROPIC_API_KEY before $OPENAI_API_KEY,
// and sends it as x-api-key with anthropic-version, never as Bearer.
func TestMessagesAPIKeyFromEnvironment(t *testing.T) {
	srv, err := mock.New(mock.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	keys := make(chan string, 16)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/messages" {
			keys <- r.Header.Get("X-Api-Key") + "|" + r.Header.Get("Authorization") + "|" + r.Header.Get("Anthropic-Version")
		}
		srv.Handler().ServeHTTP(w, r)
	}))
	defer ts.Close()
	vars := map[string]string{"ANTHROPIC_API_KEY": "sk-ant", "OPENAI_API_KEY": "sk-openai"}
	var out, errb bytes.Buffer
	code := realMain([]string{"benchmark", "--target", ts.URL, "--request-type", "messages", "--rate-type", "synchronous",
		"--data", "prompt_tokens=8,output_tokens=2", "--max-requests", "1", "--outputs", "console", "--disable-progress"},
		&cli.Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(""), Getenv: func(k string) string { return vars[k] }})
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if got := <-keys; got != "sk-ant||2023-06-01" {
		t.Fatalf("x-api-key|authorization|anthropic-version = %q", got)
	}
}

// goodput profile takes AIPerf's --endpoint-type responses and messages,
// and its export names the endpoint type.
func TestProfileResponsesAndMessages(t *testing.T) {
	url := clitest.Mock(t, nil)
	for _, typ := range []string{"responses", "messages"} {
		dir := filepath.Join(t.TempDir(), "art")
		code, _, stderr := runGoodput(t, "profile", "-u", url, "-m", "goodput-mock", "--endpoint-type", typ, "--streaming",
			"--concurrency", "1", "--request-count", "3", "--isl", "16", "--osl", "4", "--artifact-dir", dir, "--ui-type", "none")
		if code != cli.ExitOK {
			t.Fatalf("%s: exit %d: %s", typ, code, stderr)
		}
		x := clitest.ReadAIPerf(t, filepath.Join(dir, "profile_export_aiperf.json"))
		if n := clitest.MetricAvg(t, x, "request_count"); n != 3 {
			t.Errorf("%s: request_count %v", typ, n)
		}
		if m := x.Metric("time_to_first_token"); m == nil || *m.Count != 3 {
			t.Errorf("%s: time_to_first_token %+v", typ, m)
		}
		var ic struct {
			Endpoint struct {
				Type string   `json:"type"`
				URLs []string `json:"urls"`
			} `json:"endpoint"`
		}
		if err := json.Unmarshal(x.InputConfig, &ic); err != nil {
			t.Fatal(err)
		}
		if ic.Endpoint.Type != typ || len(ic.Endpoint.URLs) != 1 || !strings.HasSuffix(ic.Endpoint.URLs[0], "/v1/"+typ) {
			t.Errorf("%s: endpoint %+v", typ, ic.Endpoint)
		}
	}
}

// guideLLMLoads runs GuideLLM v0.7.3's loader rules
// (report/testdata/guidellm_v2_check.py) on a report; skipped without
// python3.
func guideLLMLoads(t *testing.T, path string) {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found: cannot run the GuideLLM v2 checker")
	}
	out, err := exec.Command(py, filepath.Join("..", "..", "report", "testdata", "guidellm_v2_check.py"), path).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "OK" {
		t.Errorf("GuideLLM v0.7.3 would not load %s: %v\n%s", path, err, out)
	}
}
