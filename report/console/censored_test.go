package console

import (
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/report"
)

func TestCensoredTable(t *testing.T) {
	f := func(v float64) *report.Float { x := report.Float(v); return &x }
	bm := report.Benchmark{}
	bm.Config.Strategy = report.Strategy{Type: report.StrategyConcurrent, Streams: 64}
	bm.Metrics.TimeToFirstTokenMs = &report.StatusDistributionSummary{Successful: &report.DistributionSummary{Count: 50, Percentiles: report.Percentiles{P99: 1764.6}}}
	bm.Extras = &report.Extras{
		Censored: &report.Censored{Confidence: 0.95,
			TimeToFirstTokenMs: &report.CensoredDistribution{Events: 80, Censored: 40, Percentiles: map[string]*report.Float{"p99": f(2041.4)}},
			RequestLatency:     &report.CensoredDistribution{Events: 50, Censored: 64, MaxObserved: 2.3, Percentiles: map[string]*report.Float{"p99": nil}}},
		WindowThroughput: &report.WindowThroughput{RequestsPerSecond: 21.2, OutputTokensPerSecond: 678.4},
	}
	tb := censoredTable(&report.Report{Benchmarks: []*report.Benchmark{&bm}})
	if tb == nil {
		t.Fatal("no table for a benchmark that cut requests off")
	}
	var b strings.Builder
	tb.Render(&b)
	for _, want := range []string{"1764.6", "2041.4", "≥ 2.30", "21.20", "678.4", " 64 "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	bm.Extras.Censored.TimeToFirstTokenMs.Censored, bm.Extras.Censored.RequestLatency.Censored = 0, 0
	if censoredTable(&report.Report{Benchmarks: []*report.Benchmark{&bm}}) != nil {
		t.Error("a table although no request was cut off")
	}
}

// A pooling benchmark's requests succeed without a first token: GuideLLM's
// TTFT field counts them as 0 ms, goodput's own leaves them out, and the
// console prints no TTFT rather than 0 or "too few".
func TestNoTTFTPrintsDash(t *testing.T) {
	f := func(v float64) *report.Float { x := report.Float(v); return &x }
	zero := &report.DistributionSummary{Count: 72}
	bm := report.Benchmark{}
	bm.Config.Strategy = report.Strategy{Type: report.StrategyConcurrent, Streams: 4}
	bm.Metrics.TimeToFirstTokenMs = &report.StatusDistributionSummary{Successful: zero}
	bm.Metrics.RequestLatency = &report.StatusDistributionSummary{Successful: &report.DistributionSummary{Count: 72, Percentiles: report.Percentiles{P50: f(0.1086), P95: 0.1096, P99: 0.1134}}}
	bm.Extras = &report.Extras{
		Censored: &report.Censored{Confidence: 0.95,
			RequestLatency: &report.CensoredDistribution{Events: 72, Censored: 4, MaxObserved: 0.11}},
	}
	bm.Extras.Metrics.TimeToFirstTokenMs = &report.StatusDistributionSummary{Successful: &report.DistributionSummary{}}
	r := &report.Report{Benchmarks: []*report.Benchmark{&bm}}
	var b strings.Builder
	if err := Write(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "too few") || strings.Contains(out, " 0.0 ") {
		t.Errorf("a TTFT printed for requests without one:\n%s", out)
	}
	tb := censoredTable(r)
	if tb == nil {
		t.Fatal("no censored table for a benchmark that cut 4 requests off")
	}
	var c strings.Builder
	tb.Render(&c)
	if !strings.Contains(c.String(), "|       4 |         -   - |") {
		t.Errorf("censored table: want no TTFT cells, got\n%s", c.String())
	}
}
