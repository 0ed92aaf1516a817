package console

import (
	"bytes"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/report"
)

// TestConsoleSessionTable: a benchmark with sessions gets one row per turn
// (the session counts on its first), and a report without sessions has
// no such table.
func TestConsoleSessionTable(t *testing.T) {
	dist := func(p50, p99 report.Float) report.DistributionSummary {
		d := report.DistributionSummary{Median: p50, Count: 4}
		d.Percentiles.P50, d.Percentiles.P99 = &p50, p99
		return d
	}
	s := &report.SessionExtras{Sessions: 4, Completed: 2, CutByErrors: 1, CutShort: 1, GoodFraction: report.FloatPtr(0.25), CacheHitRate: report.FloatPtr(0.4),
		ByTurn: []report.TurnMetrics{
			{Turn: 0, Requests: 4, TimeToFirstTokenMs: dist(120, 180), InterTokenLatencyMs: dist(20, 25), RequestLatency: dist(1.5, 2), PromptTokensMean: 300, HistoryMessagesMean: 1},
			{Turn: 1, Requests: 3, TimeToFirstTokenMs: dist(45.5, 60), InterTokenLatencyMs: dist(20, 24), RequestLatency: dist(1.25, 2), PromptTokensMean: 640, HistoryMessagesMean: 3, CacheHitRate: report.FloatPtr(0.8)},
		}}
	r := &report.Report{Layout: report.LayoutGoodput, Benchmarks: []*report.Benchmark{
		{Config: report.BenchmarkConfig{Strategy: report.Strategy{Type: report.StrategyConcurrent, Streams: 4}}, Extras: &report.Extras{Sessions: s}},
	}}
	var b bytes.Buffer
	if err := WriteWidth(&b, r, 0); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Sessions by turn",
		"| 4         2/1/1    25.0 |    0    4 | 120.0  180.0 | 20.0  25.0 |      1.50 |    300       1.0         -",
		"|    1    3 |  45.5   60.0 | 20.0  24.0 |      1.25 |    640       3.0      80.0",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("console lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	if err := WriteWidth(&b, serverReport(), 0); err != nil || strings.Contains(b.String(), "Sessions by turn") {
		t.Errorf("a report without sessions printed the table (err %v)", err)
	}
}
