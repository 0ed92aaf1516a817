package console

import (
	"bytes"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/report"
)

// TestConsoleServerTimeTable: a benchmark with server timings gets a row;
// a report without them has no such table.
func TestConsoleServerTimeTable(t *testing.T) {
	q := func(mean, p50, p90, p99 report.Float) *report.Quantiles {
		return &report.Quantiles{Count: 3, Mean: mean, P50: p50, P90: p90, P99: p99, Max: p99}
	}
	st := &report.ServerTime{Source: "timings", Requests: 3, PrefillMs: q(42.33, 40, 60, 60), DecodePerTokenMs: q(8, 6, 10, 10),
		TTFTOutsidePrefillMs: q(11, 10, 20, 20), PrefillShareOfTTFT: report.FloatPtr(0.79375)}
	r := &report.Report{Layout: report.LayoutGoodput, Benchmarks: []*report.Benchmark{
		{Config: report.BenchmarkConfig{Strategy: report.Strategy{Type: report.StrategyConcurrent, Streams: 4}}, Extras: &report.Extras{ServerTime: st}},
	}}
	var b bytes.Buffer
	if err := Write(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"Server-side time", "42.33", "40.00", "60.00", "8.00", "6.00", "11.00", "20.00", "79.4"} {
		if !strings.Contains(out, want) {
			t.Errorf("console lacks %q:\n%s", want, out)
		}
	}
	r.Benchmarks[0].Extras.ServerTime = nil
	b.Reset()
	if err := Write(&b, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "Server-side time") {
		t.Errorf("server time table without timings:\n%s", b.String())
	}
}
