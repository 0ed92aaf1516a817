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
	bm.Extras.Censored.TimeToFirstTokenMs.Censored = 0
	if censoredTable(&report.Report{Benchmarks: []*report.Benchmark{&bm}}) != nil {
		t.Error("a table although no request was cut off")
	}
}
