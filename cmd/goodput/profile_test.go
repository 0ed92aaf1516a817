package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/internal/clitest"

	"github.com/goodput-dev/goodput/cli"
	"github.com/goodput-dev/goodput/report"
)

// TestProfileArticleCommand runs the article's AIPerf command line, scaled
// down, with only the binary name changed: one benchmark per concurrency,
// non-streaming (AIPerf's default), --output naming the JSON export.
func TestProfileArticleCommand(t *testing.T) {
	url := clitest.Mock(t, nil)
	dir := t.TempDir()
	out := filepath.Join(dir, "results", "aiperf.json")
	code, stdout, stderr := runGoodput(t, "profile", "--url", url+"/v1", "--model", "goodput-mock", "--concurrency", "2,4",
		"--input-tokens", "32", "--output-tokens", "8", "--num-requests", "12", "--output", out)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "concurrent 2") || !strings.Contains(stdout, "concurrent 4") {
		t.Errorf("console summary lacks the rounds:\n%s", stdout)
	}
	res := filepath.Join(dir, "results")
	for _, f := range []string{"aiperf.goodput.json", "aiperf.goodput.csv", "aiperf.goodput.jsonl",
		"concurrency_2/aiperf.json", "concurrency_2/aiperf.csv", "concurrency_4/aiperf.json", "concurrency_4/aiperf.csv"} {
		if _, err := os.Stat(filepath.Join(res, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("with several benchmarks the exports go to one directory per benchmark, not to --output itself")
	}
	rep, err := report.Read(filepath.Join(res, "aiperf.goodput.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Benchmarks) != 2 {
		t.Fatalf("%d benchmarks in goodput's report", len(rep.Benchmarks))
	}
	for i, c := range []int{2, 4} {
		x := clitest.ReadAIPerf(t, filepath.Join(res, "concurrency_"+strconv.Itoa(c), "aiperf.json"))
		if g := x.Goodput; g == nil || g.Source != "records" || !g.Exact || g.BenchmarkIndex != i {
			t.Fatalf("provenance %+v", x.Goodput)
		}
		// Every request the benchmark sent counts (12; a starved test
		// machine may fail or cancel one), successful or not.
		rq := rep.Benchmarks[i].Extras.Requests
		ok, errs := clitest.MetricAvg(t, x, "request_count"), clitest.MetricAvg(t, x, "error_request_count")
		if ok+errs != float64(rq.Recorded-rq.Invalid-rq.NotDispatched) || ok < 10 || ok+errs > 12 {
			t.Errorf("concurrency %d: request_count %v + error_request_count %v, report recorded %+v", c, ok, errs, rq)
		}
		if m := x.Metric("request_latency"); m == nil || float64(*m.Count) != ok || *m.Min <= 0 {
			t.Errorf("request_latency %+v", m)
		}
		if x.Metric("time_to_first_token") != nil || x.Metric("inter_token_latency") != nil {
			t.Error("a non-streaming run has no TTFT or ITL (AIPerf's default is not to stream)")
		}
		if osl := clitest.MetricAvg(t, x, "output_sequence_length"); osl != 8 {
			t.Errorf("output_sequence_length %v, want 8", osl)
		}
		var ic struct {
			Endpoint struct {
				Streaming bool     `json:"streaming"`
				Type      string   `json:"type"`
				URLs      []string `json:"urls"`
			} `json:"endpoint"`
			Phases []struct {
				Name        string `json:"name"`
				Requests    int    `json:"requests"`
				Concurrency int    `json:"concurrency"`
			} `json:"phases"`
		}
		if err := json.Unmarshal(x.InputConfig, &ic); err != nil {
			t.Fatal(err)
		}
		if ic.Endpoint.Streaming || ic.Endpoint.Type != "chat" || len(ic.Endpoint.URLs) != 1 || !strings.HasSuffix(ic.Endpoint.URLs[0], "/v1/chat/completions") {
			t.Errorf("endpoint %+v", ic.Endpoint)
		}
		if len(ic.Phases) != 1 || ic.Phases[0].Requests != 12 || ic.Phases[0].Concurrency != c {
			t.Errorf("phases %+v", ic.Phases)
		}
		if x.RunInfo == nil || x.RunInfo.VariationLabel != "concurrency_"+strconv.Itoa(c) || x.RunInfo.CLICommand == nil ||
			!strings.HasPrefix(*x.RunInfo.CLICommand, "goodput profile --url ") {
			t.Errorf("run_info %+v", x.RunInfo)
		}
		csv, err := os.ReadFile(filepath.Join(res, "concurrency_"+strconv.Itoa(c), "aiperf.csv"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(csv, []byte("Metric,avg,sum,min,max,p1,p5,p10,p25,p50,p75,p90,p95,p99,std\r\nE2E Output Token Throughput")) ||
			!bytes.Contains(csv, []byte("\r\n\r\nMetric,Value\r\n")) || !bytes.Contains(csv, []byte("Request Count,12.00\r\n")) {
			t.Errorf("CSV:\n%s", csv)
		}
	}
}

// TestProfileStreamingWarmupGoodput: one benchmark (exports straight in
// the artifact dir), warmup excluded, --goodput computed per request,
// extra inputs and headers sent, secrets never written.
func TestProfileStreamingWarmupGoodput(t *testing.T) {
	url := clitest.Mock(t, nil)
	dir := filepath.Join(t.TempDir(), "art")
	code, _, stderr := runGoodput(t, "profile", "-u", url, "-m", "goodput-mock", "--endpoint-type", "chat", "--streaming",
		"--concurrency", "1", "--request-count", "5", "--warmup-request-count", "2", "--isl", "24", "--osl", "6",
		"--goodput", "time_to_first_token:10000 inter_token_latency:10000", "--extra-inputs", "ignore_eos:true",
		"--extra-inputs", `{"temperature":0}`, "-H", "X-Team:alpha", "--api-key", "sk-SENTINEL-key",
		"--tokenizer", "builtin", "--random-seed", "7", "--artifact-dir", dir, "--ui-type", "none")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	x := clitest.ReadAIPerf(t, filepath.Join(dir, "profile_export_aiperf.json"))
	if n := clitest.MetricAvg(t, x, "request_count"); n != 5 {
		t.Errorf("request_count %v, want 5 (the 2 warmup requests excluded)", n)
	}
	if x.Goodput.OutsideWindow != 2 || x.Goodput.InWindow != 5 || !x.Goodput.Exact {
		t.Errorf("window: %+v", x.Goodput)
	}
	for _, tag := range []string{"time_to_first_token", "inter_token_latency", "time_to_second_token"} {
		if m := x.Metric(tag); m == nil || *m.Count != 5 {
			t.Errorf("%s: %+v", tag, m)
		}
	}
	// Chunks read together share a timestamp: a request whose chunks all
	// came in one read has an ITL of 0 and no 1/ITL (as in AIPerf).
	for _, tag := range []string{"inter_chunk_latency", "output_token_throughput_per_user"} {
		if m := x.Metric(tag); m == nil || *m.Count < 1 {
			t.Errorf("%s: %+v", tag, m)
		}
	}
	// With a tokenizer the synthetic prompts have exactly --isl tokens, and
	// ISL is that client-side count (AIPerf's), not the server's (which
	// includes the chat template).
	if m := x.Metric("input_sequence_length"); m == nil || *m.Min != 24 || *m.Max != 24 {
		t.Errorf("input_sequence_length %+v", m)
	}
	if n := clitest.MetricAvg(t, x, "good_request_count"); n != 5 {
		t.Errorf("good_request_count %v, want 5", n)
	}
	if clitest.MetricAvg(t, x, "goodput") <= 0 {
		t.Error("goodput must be > 0")
	}
	var ic struct {
		Endpoint struct {
			Streaming bool              `json:"streaming"`
			Headers   map[string]string `json:"headers"`
			Extra     map[string]any    `json:"extra"`
		} `json:"endpoint"`
		Phases []struct {
			Name     string `json:"name"`
			Requests int    `json:"requests"`
		} `json:"phases"`
		Tokenizer struct{ Name string } `json:"tokenizer"`
	}
	if err := json.Unmarshal(x.InputConfig, &ic); err != nil {
		t.Fatal(err)
	}
	if !ic.Endpoint.Streaming || ic.Endpoint.Headers["X-Team"] != "**********" || ic.Endpoint.Extra["ignore_eos"] != true ||
		ic.Endpoint.Extra["temperature"] != 0.0 || ic.Tokenizer.Name != "builtin" {
		t.Errorf("input_config %s", x.InputConfig)
	}
	if len(ic.Phases) != 2 || ic.Phases[0].Name != "warmup" || ic.Phases[0].Requests != 2 || ic.Phases[1].Requests != 5 {
		t.Errorf("phases %+v", ic.Phases)
	}
	if x.RunInfo.RandomSeed == nil || *x.RunInfo.RandomSeed != 7 || !strings.Contains(*x.RunInfo.CLICommand, "--api-key '***'") ||
		!strings.Contains(*x.RunInfo.CLICommand, "-H 'X-Team:***'") {
		t.Errorf("run_info %+v %s", x.RunInfo, *x.RunInfo.CLICommand)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("SENTINEL")) || bytes.Contains(b, []byte("alpha")) {
			t.Errorf("%s contains a secret", e.Name())
		}
	}
	if strings.Join(names, ",") != "goodput.csv,goodput.json,goodput.jsonl,profile_export_aiperf.csv,profile_export_aiperf.json" {
		t.Errorf("files %v", names)
	}
	if strings.Contains(stderr, "SENTINEL") {
		t.Error("stderr shows the API key")
	}
}

// TestProfileRequestRate: --request-rate runs open-loop benchmarks named
// request_rate_R, --concurrency capping the in-flight requests.
func TestProfileRequestRate(t *testing.T) {
	url := clitest.Mock(t, nil)
	dir := t.TempDir()
	code, _, stderr := runGoodput(t, "profile", "--url", url, "--model", "goodput-mock", "--request-rate", "200,400",
		"--request-rate-mode", "constant", "--concurrency", "8", "--request-count", "6", "--osl", "4", "--isl", "16",
		"--artifact-dir", dir, "--ui", "none", "--use-server-token-count")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, l := range []string{"request_rate_200", "request_rate_400"} {
		x := clitest.ReadAIPerf(t, filepath.Join(dir, l, "profile_export_aiperf.json"))
		if n := clitest.MetricAvg(t, x, "request_count"); n < 1 || n > 6 {
			t.Errorf("%s: request_count %v", l, n)
		}
		var ic bytes.Buffer
		if err := json.Compact(&ic, x.InputConfig); err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(ic.Bytes(), []byte(`"type":"request_rate"`)) || !bytes.Contains(ic.Bytes(), []byte(`"arrival_pattern":"constant"`)) ||
			!bytes.Contains(ic.Bytes(), []byte(`"concurrency":8`)) || !bytes.Contains(ic.Bytes(), []byte(`"use_server_token_count":true`)) {
			t.Errorf("%s: input_config %s", l, x.InputConfig)
		}
	}
}

func TestProfileBadFlagsExitTwo(t *testing.T) {
	base := []string{"profile", "--url", "http://127.0.0.1:1", "--model", "m"}
	with := func(extra ...string) []string { return append(append([]string{}, base...), extra...) }
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", with("--bogus-flag", "1"), "unknown flag: --bogus-flag"},
		{"unsupported AIPerf flag", with("--download-video-content", "4"), "--download-video-content: an AIPerf flag goodput profile does not support: video generation endpoints: not supported"},
		{"user-centric rate without users", with("--user-centric-rate", "2"), "--user-centric-rate 2 --num-users 0"},
		{"user-centric rate with a request rate", with("--user-centric-rate", "2", "--num-users", "4", "--request-rate", "3"), "--user-centric-rate: give no --request-rate"},
		{"user-centric rate with a concurrency list", with("--user-centric-rate", "2", "--num-users", "4", "--concurrency", "4,8"), "caps the users mid-session, one value"},
		{"user-centric rate with a prefill cap over its cap", with("--streaming", "--user-centric-rate", "2", "--num-users", "4", "--concurrency", "2", "--prefill-concurrency", "3"), "--prefill-concurrency 3 is more than --concurrency 2"},
		{"batch size on chat", with("-b", "4"), "--batch-size 4: applies to --endpoint-type embeddings"},
		{"unsupported AIPerf flag with =", with("--wait-for-model-timeout=4"), "--wait-for-model-timeout"},
		{"missing model", []string{"profile", "--url", "http://x"}, "--model is required"},
		{"model list", with("--model", "a,a"), "listed twice"},
		{"endpoint type", with("--endpoint-type", "video_generation"), "--endpoint-type"},
		{"bad concurrency", with("--concurrency", "4,x"), "--concurrency"},
		{"zero concurrency", with("--concurrency", "0"), "--concurrency"},
		{"duplicate concurrency", with("--concurrency", "4,8,4"), "listed twice"},
		{"bad rate", with("--request-rate", "fast"), "--request-rate"},
		{"rate mode", with("--request-rate", "2", "--request-rate-mode", "bursty"), "--request-rate-mode"},
		{"smoothness without gamma", with("--request-rate", "2", "--arrival-smoothness", "0.5"), "--arrival-smoothness 0.5: needs --arrival-pattern gamma"},
		{"rate ramp without rate", with("--request-rate-ramp-duration", "10"), "--request-rate-ramp-duration needs --request-rate"},
		{"ramping no prefill cap", with("--prefill-concurrency-ramp-duration", "10"), "--prefill-concurrency-ramp-duration needs --prefill-concurrency"},
		{"series and rate", with("--request-rate", "2", "--request-rate-series", "x.json"), "mutually exclusive"},
		{"series file", with("--request-rate-series", "/nonexistent/series.json"), "--request-rate-series"},
		{"rate with concurrency list", with("--request-rate", "2", "--concurrency", "4,8"), "in-flight cap"},
		{"bad goodput tag", with("--goodput", "ttft:500"), `unknown metric "ttft"`},
		{"bad goodput form", with("--goodput", "time_to_first_token=500"), "metric:value"},
		{"output not json", with("--output", "/tmp/x.csv"), "--output"},
		{"output and artifact dir", with("--output", "/tmp/x.json", "--artifact-dir", "/tmp/y"), "give one of them"},
		{"warmup grace without duration", with("--warmup-request-count", "3", "--warmup-grace-period", "5"), "--warmup-grace-period needs --warmup-duration"},
		{"negative duration", with("--benchmark-duration", "-1"), "--benchmark-duration"},
		{"bad isl", with("--isl", "0"), "--isl"},
		{"osl stddev without osl", with("--osl-stddev", "3"), "--osl-stddev needs --osl"},
		{"bad ui", with("--ui-type", "tui"), "--ui-type"},
		{"bad header", with("-H", "NoColon"), "--header"},
		{"bad extra inputs", with("--extra-inputs", "novalue"), "--extra-inputs"},
		{"bad extra inputs json", with("--extra-inputs", "{bad"), "--extra-inputs"},
		{"bad timeout", with("--request-timeout-seconds", "0"), "--request-timeout-seconds"},
		{"bad tokenizer", with("--tokenizer", "/nonexistent/tokenizer.json"), "--tokenizer"},
		{"stray argument", with("extra"), `unexpected argument "extra"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runGoodput(t, c.args...)
			if code != cli.ExitUsage {
				t.Fatalf("exit %d, want %d; stderr %q", code, cli.ExitUsage, stderr)
			}
			if strings.Count(strings.TrimRight(stderr, "\n"), "\n") != 0 || !strings.Contains(stderr, c.want) {
				t.Fatalf("stderr %q: want one line containing %q", stderr, c.want)
			}
		})
	}
}
