package cli

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/internal/clitest"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/report/aiperf"
)

// profileExport runs goodput profile against url and reads the AIPerf
// export; it returns the export and the run's stdout.
func profileExport(t *testing.T, url string, args ...string) (*aiperf.Export, string) {
	t.Helper()
	dir := t.TempDir()
	code, stdout, stderr := runGoodput(t, append([]string{"profile", "--url", url, "--model", "goodput-mock", "--artifact-dir", dir,
		"--ui-type", "none", "--streaming", "--isl", "16", "--osl", "16", "--request-count", "6", "--concurrency", "2"}, args...)...)
	if code != ExitOK {
		t.Fatalf("%q: exit %d: %s", args, code, stderr)
	}
	return clitest.ReadAIPerf(t, filepath.Join(dir, "profile_export_aiperf.json")), stdout
}

func near6(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }

// --export-http-trace adds the HTTP phases of every successful request;
// each request's phases add up to its duration, so their means do too.
func TestProfileExportHTTPTrace(t *testing.T) {
	url := clitest.Mock(t, nil)
	plain, _ := profileExport(t, url)
	if plain.Metric("http_req_duration") != nil {
		t.Fatal("http_req_duration without --export-http-trace")
	}
	x, stdout := profileExport(t, url, "--export-http-trace")
	if strings.Contains(stdout, aiperf.TraceTitle) {
		t.Error("the trace table printed without --show-trace-timing")
	}
	sum := 0.0
	for _, tag := range []string{"http_req_sending", "http_req_waiting", "http_req_receiving"} {
		m := x.Metric(tag)
		if m == nil || *m.Count != 6 || *m.Min < 0 {
			t.Fatalf("%s: %+v, want 6 values ≥ 0", tag, m)
		}
		sum += *m.Avg
	}
	if d := clitest.MetricAvg(t, x, "http_req_duration"); !near6(sum, d) || d < clitest.MetricAvg(t, x, "request_latency") {
		t.Errorf("phases sum to %v ms, duration %v ms (request latency %v)", sum, d, clitest.MetricAvg(t, x, "request_latency"))
	}
	// 6 requests over 2 kept-alive streams: later requests reuse a connection.
	reused := x.Metric("http_req_connection_reused")
	if reused == nil || *reused.Count != 6 || *reused.Max != 1 || *reused.Min < 0 {
		t.Errorf("http_req_connection_reused: %+v, want 6 values of 0 or 1, some 1", reused)
	}
	if c := x.Metric("http_req_connecting"); c == nil || *c.Count != 6 || *c.Min != 0 {
		t.Errorf("http_req_connecting: %+v, want 6 values, 0 on a reused connection", c)
	}
	for _, tag := range []string{"http_req_blocked", "http_req_dns_lookup", "http_req_connection_overhead", "http_req_total", "http_req_data_sent"} {
		if x.Metric(tag) != nil {
			t.Errorf("%s written: goodput does not measure it", tag)
		}
	}
}

// --show-trace-timing prints AIPerf's table after the run, and the export
// has its metrics.
func TestProfileShowTraceTiming(t *testing.T) {
	x, stdout := profileExport(t, clitest.Mock(t, nil), "--show-trace-timing")
	i := strings.Index(stdout, aiperf.TraceTitle+"\n")
	if i < 0 {
		t.Fatalf("no trace table in stdout:\n%s", stdout)
	}
	table := stdout[i:]
	for _, row := range []string{"HTTP Connecting (ms)", "HTTP Sending (ms)", "HTTP Waiting (TTFB) (ms)", "HTTP Receiving (ms)",
		"HTTP Connection Reused (ratio)", "HTTP Duration (excl. conn) (ms)"} {
		if !strings.Contains(table, " concurrency_2  "+row+" ") {
			t.Errorf("no %q row:\n%s", row, table)
		}
	}
	if x.Metric("http_req_waiting") == nil {
		t.Error("http_req_waiting missing from the export")
	}
}

// --per-chunk-usage: every request's 16 tokens come 4 per chunk, so ITL
// is the decode time over 16 − 4 = 12 tokens instead of 15; the decode
// time's mean is the mean request latency less the mean TTFT.
func TestProfilePerChunkUsage(t *testing.T) {
	url := clitest.Mock(t, func(c *mock.Config) { c.TokensPerChunk = 4 })
	for _, c := range []struct {
		args []string
		div  float64
	}{
		{[]string{"--use-server-token-count", "--extra-inputs", "ignore_eos:true"}, 15},
		{[]string{"--use-server-token-count", "--extra-inputs", "ignore_eos:true", "--per-chunk-usage"}, 12},
	} {
		x, _ := profileExport(t, url, c.args...)
		if osl := x.Metric("output_sequence_length"); *osl.Min != 16 || *osl.Max != 16 {
			t.Fatalf("%q: OSL %v..%v, want 16", c.args, *osl.Min, *osl.Max)
		}
		decode := clitest.MetricAvg(t, x, "request_latency") - clitest.MetricAvg(t, x, "time_to_first_token")
		if got := clitest.MetricAvg(t, x, "inter_token_latency"); !near6(got, decode/c.div) {
			t.Errorf("%q: ITL %v ms, want %v / %v = %v", c.args, got, decode, c.div, decode/c.div)
		}
		if x.Goodput.PerChunkUsageFallback != 0 {
			t.Errorf("%q: %d fallbacks", c.args, x.Goodput.PerChunkUsageFallback)
		}
	}
}

// --per-chunk-usage's conditions are AIPerf's, each a one-line usage error.
func TestProfilePerChunkUsageNeeds(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--per-chunk-usage", "--streaming"}, "--per-chunk-usage needs --use-server-token-count"},
		{[]string{"--per-chunk-usage", "--streaming", "--use-server-token-count", "--endpoint-type", "completions"}, "--per-chunk-usage: only for --endpoint-type chat, not completions"},
		{[]string{"--per-chunk-usage", "--use-server-token-count"}, "--per-chunk-usage needs --streaming"},
	} {
		code, _, stderr := runGoodput(t, append([]string{"profile", "--url", "127.0.0.1:1", "--model", "m", "--ui-type", "none", "--artifact-dir", t.TempDir()}, c.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and %q", c.args, code, stderr, ExitUsage, c.want)
		}
	}
}

// AIPerf's YAML config sets both with artifacts.trace and
// artifacts.show_trace_timing (showTraceTiming in camelCase); a flag
// given on the command line wins.
func TestProfileTraceConfigKeys(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, "c.yaml", `schemaVersion: "2.0"
benchmark:
  model: m
  endpoint: {url: "http://127.0.0.1:1"}
  artifacts: {dir: `+dir+`, trace: true, showTraceTiming: true}
`)
	s, err := setupProfile(t, "-f", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !s.po.exportHTTPTrace || !s.po.showTraceTiming {
		t.Errorf("trace %v, show %v; want both", s.po.exportHTTPTrace, s.po.showTraceTiming)
	}
	if s, err := setupProfile(t, "-f", cfg, "--show-trace-timing=false"); err != nil || s.po.showTraceTiming {
		t.Errorf("--show-trace-timing=false over the file: %v", err)
	}
}
