package console

import (
	"bytes"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/report"
)

// serverReport builds, by hand, three goodput benchmarks: one that waited
// 0.5 s by the server's gauges and has the server's metrics, one that
// started on a busy server (the wait ran out), had no successful request
// and backed off, and one that waited by latency.
func serverReport() *report.Report {
	f := report.FloatPtr
	sum := func(median, p95, p99 report.Float, count report.Int) *report.StatusDistributionSummary {
		d := &report.DistributionSummary{Median: median, Count: count}
		d.Percentiles.P95, d.Percentiles.P99 = p95, p99
		return &report.StatusDistributionSummary{Successful: d, Total: d}
	}
	b0 := &report.Benchmark{Config: report.BenchmarkConfig{Strategy: report.Strategy{Type: report.StrategyConcurrent, Streams: 8}},
		Metrics: report.Metrics{TimeToFirstTokenMs: sum(110, 150, 180, 40)},
		Extras: &report.Extras{
			Drain: &report.DrainWait{WaitedS: 0.5, Method: report.DrainGauges, Running: f(0), Waiting: f(0)},
			Telemetry: &report.BenchmarkTelemetry{Server: &report.ServerTelemetry{
				RequestsWaitingMean: f(0.25), RequestsWaitingMax: f(3), RequestsRunningMean: f(7.5), RequestsRunningMax: f(8),
				KVCacheUsageMean: f(0.123), KVCacheUsageMax: f(0.5),
				TTFT: &report.ServerLatency{ServerP50Ms: f(101.2), ClientP50Ms: f(110)},
				ITL:  &report.ServerLatency{ServerP50Ms: f(20.04), ClientP50Ms: f(20.5)},
			}},
		}}
	b1 := &report.Benchmark{Config: report.BenchmarkConfig{Strategy: report.Strategy{Type: report.StrategyConstant, Rate: 2}},
		Metrics: report.Metrics{TimeToFirstTokenMs: sum(0, 0, 0, 0)},
		Extras: &report.Extras{
			Drain:  &report.DrainWait{WaitedS: 1, Method: report.DrainGauges, Running: f(8), Waiting: f(480), Busy: true},
			Client: &report.ClientLoad{Backoffs: 64, BackoffS: 2.5},
		}}
	b2 := &report.Benchmark{Config: report.BenchmarkConfig{Strategy: report.Strategy{Type: report.StrategyConstant, Rate: 1}},
		Extras: &report.Extras{Drain: &report.DrainWait{WaitedS: 0.25, Method: report.DrainLatency}}}
	return &report.Report{Benchmarks: []*report.Benchmark{b0, b1, b2}, Layout: report.LayoutGoodput}
}

// TestConsoleServerTable: the wait before each round, the server's own
// metrics and the backoffs are printed where the report has them ("-"
// elsewhere); a round that started busy is marked "!" with the warning as
// its footnote; a round without a successful request prints "-" for its
// latencies, never 0.0.
func TestConsoleServerTable(t *testing.T) {
	var b bytes.Buffer
	if err := WriteWidth(&b, serverReport(), 0); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	want := `Server and load (wait: before the round, for the server to drain what earlier rounds left; server: its /metrics over the window)
                     | Wait                    | Queue     | Running   | KV cache % | TTFT P50 ms    | ITL P50 ms     | Backoffs
 #  Strategy         |    s       By  Run/wait | Mean  Max | Mean  Max | Mean   Max | Server  Client | Server  Client |  N     s
 -  ---------------- | ----  -------  -------- | ----  --- | ----  --- | ----  ---- | ------  ------ | ------  ------ | --  ----
 0  concurrent 8     | 0.50   gauges       0/0 |  0.2    3 |  7.5    8 | 12.3  50.0 |  101.2   110.0 |   20.0    20.5 |  -     -
 1  constant 2.00/s! | 1.00   gauges     8/480 |    -    - |    -    - |    -     - |      -       - |      -       - | 64  2.50
 2  constant 1.00/s  | 0.25  latency         - |    -    - |    -    - |    -     - |      -       - |      -       - |  -     -
`
	if !strings.Contains(out, want) {
		t.Errorf("server table: got\n%s\nwant it to contain\n%s", out, want)
	}
	if !strings.Contains(out, " 1  constant 2.00/s! |     -      -      - |") {
		t.Errorf("the busy round without a successful request: want its label marked and its latencies \"-\":\n%s", out)
	}
	note := "! benchmark 1 (constant 2.00/s) started on a busy server: after waiting 1.0 s for earlier rounds to drain, the server still had 8 requests running and 480 waiting"
	if !strings.Contains(out, note) {
		t.Errorf("want the footnote %q in:\n%s", note, out)
	}
}

// TestConsoleServerTableSteps: a server that says how many sequences its
// steps carried (llama.cpp) gets a Step column, "-" for a round without.
func TestConsoleServerTableSteps(t *testing.T) {
	r := serverReport()
	r.Benchmarks[0].Extras.Telemetry.Server.BusySlotsPerStep = report.FloatPtr(3.456)
	var b bytes.Buffer
	if err := WriteWidth(&b, r, 0); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"| Queue     | Running   | Step | KV cache % |",
		"| Mean  Max | Mean  Max | Seqs | Mean   Max |",
		"|  0.2    3 |  7.5    8 | 3.46 | 12.3  50.0 |",
		"|    -    - |    -    - |    - |    -     - |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in:\n%s", want, out)
		}
	}
}

// TestConsoleServerTableLlamaCpp: a server without KV cache usage and
// latency histograms (llama.cpp upstream) gets no columns of "-" for them.
func TestConsoleServerTableLlamaCpp(t *testing.T) {
	f := report.FloatPtr
	b := &report.Benchmark{Config: report.BenchmarkConfig{Strategy: report.Strategy{Type: report.StrategyConcurrent, Streams: 5}},
		Extras: &report.Extras{
			Drain: &report.DrainWait{WaitedS: 0.26, Method: report.DrainGauges, Running: f(0), Waiting: f(0)},
			Telemetry: &report.BenchmarkTelemetry{Server: &report.ServerTelemetry{
				RequestsWaitingMean: f(0.7), RequestsWaitingMax: f(1), RequestsRunningMean: f(3.9), RequestsRunningMax: f(4),
				BusySlotsPerStep: f(3.99),
			}},
		}}
	var buf bytes.Buffer
	if err := WriteWidth(&buf, &report.Report{Benchmarks: []*report.Benchmark{b}, Layout: report.LayoutGoodput}, 0); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	want := ` #  Strategy     |    s      By  Run/wait | Mean  Max | Mean  Max | Seqs
 -  ------------ | ----  ------  -------- | ----  --- | ----  --- | ----
 0  concurrent 5 | 0.26  gauges       0/0 |  0.7    1 |  3.9    4 | 3.99
`
	if !strings.Contains(out, want) || strings.Contains(out, "KV cache") || strings.Contains(out, "TTFT P50 ms") {
		t.Errorf("server table: got\n%s\nwant it to contain\n%s\nand no KV cache nor server latency columns", out, want)
	}
}
