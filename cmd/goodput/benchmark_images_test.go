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
)

// Image generation runs end to end against the mock, each of its three
// spellings (GuideLLM's --request-type, v0.7's request_format, AIPerf's
// --endpoint-type): --batch-size images per request (the mock takes
// TTFT + n × mock.ImageTime), counted in the extras' inputs (kind images),
// no first token, judged by the request-latency default SLO.
func TestBenchmarkImageGeneration(t *testing.T) {
	url := clitest.Mock(t, func(c *mock.Config) { c.TTFT = 10 * time.Millisecond })
	dir := t.TempDir()
	common := []string{"--data", "prompt_tokens=16,output_tokens=1", "--output-dir", dir, "--outputs", "json,jsonl"}
	for name, args := range map[string][]string{
		"request-type": {"--target", url, "--request-type", "image_generation", "--rate-type", "concurrent", "--rate", "2",
			"--batch-size", "3", "--max-requests", "4"},
		"request_format": {"--backend", "kind=openai_http,target=" + url + ",request_format=/v1/images/generations",
			"--profile", "kind=concurrent,streams=2", "--constraint", "kind=max_requests,count=4", "--batch-size", "3"},
	} {
		code, _, stderr := runGoodput(t, append(append([]string{"benchmark", "--run-id", name}, args...), common...)...)
		if code != cli.ExitOK {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		path := filepath.Join(dir, name, "benchmarks.json")
		rep := clitest.ReadReport(t, path)
		b := rep.Benchmarks[0]
		if b.Metrics.RequestTotals.Successful != 4 {
			t.Fatalf("%s: %v successful requests, want 4: %s", name, b.Metrics.RequestTotals.Successful, stderr)
		}
		if in := b.Extras.Inputs; in == nil || in.Kind != "images" || in.Total != 12 || in.PerRequest != 3 || in.PerSecond <= 0 {
			t.Fatalf("%s: extras inputs %+v", name, in)
		}
		if s := b.Extras.SLO; s == nil || s.Spec != "e2e_p99=1000ms,error_rate=0.5%" || !s.Default || !s.Pass {
			t.Fatalf("%s: SLO %+v", name, s)
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if flat := strings.ReplaceAll(string(raw), " ", ""); !strings.Contains(flat, `"/pooling":"/v1/images/generations"`) || !strings.Contains(flat, `"stream":false`) {
			t.Fatalf("%s: the report's backend names no route to /v1/images/generations, or streams", name)
		}
		guideLLMLoads(t, path)
		checkImageRecords(t, filepath.Join(dir, name, "requests.jsonl"), 4, 3)
	}

	adir := t.TempDir()
	code, _, stderr := runGoodput(t, "profile", "--url", url, "--model", "goodput-mock", "--artifact-dir", adir, "--ui-type", "none",
		"--endpoint-type", "image_generation", "-b", "2", "--isl", "16", "--request-count", "4", "--concurrency", "2")
	if code != cli.ExitOK {
		t.Fatalf("profile: exit %d: %s", code, stderr)
	}
	rep, err := report.Read(filepath.Join(adir, "goodput.json"))
	if err != nil {
		t.Fatal(err)
	}
	if in := rep.Benchmarks[0].Extras.Inputs; in == nil || in.Kind != "images" || in.Total != 8 {
		t.Fatalf("profile: extras inputs %+v", in)
	}
	raw, err := os.ReadFile(filepath.Join(adir, "profile_export_aiperf.json"))
	if err != nil {
		t.Fatal(err)
	}
	if flat := strings.ReplaceAll(string(raw), " ", ""); !strings.Contains(flat, `"type":"image_generation"`) || strings.Contains(flat, `"output_token_throughput"`) {
		t.Fatalf("profile: the AIPerf export names no image_generation endpoint, or gives output tokens")
	}
}

// checkImageRecords checks a run's records: n requests of images images
// each, answered after at least the mock's time for them, with no token.
func checkImageRecords(t *testing.T, path string, n, images int) {
	t.Helper()
	recs := clitest.ReadRecords(t, path)
	for _, r := range recs {
		lat := time.Duration(r.End - r.Dispatched)
		min := 10*time.Millisecond + time.Duration(images)*mock.ImageTime
		if r.Status != record.StatusSuccessful || r.Inputs != images || r.FirstToken != 0 || r.OutputTokens != 0 ||
			r.ServerPromptTokens <= 0 || r.PromptTokens != r.ServerPromptTokens || lat < min || lat > min+500*time.Millisecond {
			t.Fatalf("record %+v: latency %v, want ≥ %v", r, lat, min)
		}
	}
	if len(recs) != n {
		t.Fatalf("%d records, want %d", len(recs), n)
	}
}
