package htmlreport

import (
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/report"
)

// TestRenderServerTime: a round with server timings gets the Server-side
// time table; a report without them has no such section.
func TestRenderServerTime(t *testing.T) {
	rep := handReport([]float64{1}, []float64{1}, []float64{1}, []float64{1}, []float64{1}, -1)
	if out := render(t, []*report.Report{rep}, Options{}); strings.Contains(out, "Server-side time") {
		t.Error("a report without timings has a server-time section")
	}
	q := func(mean, p50, p90, p99 report.Float) *report.Quantiles {
		return &report.Quantiles{Count: 3, Mean: mean, P50: p50, P90: p90, P99: p99, Max: p99}
	}
	rep.Benchmarks[0].Extras.ServerTime = &report.ServerTime{Source: "timings", Requests: 3, PrefillMs: q(42.33, 40, 60, 61),
		TTFTOutsidePrefillMs: q(11, 10, 20, 21), PrefillShareOfTTFT: report.FloatPtr(0.75)}
	out := render(t, []*report.Report{rep}, Options{})
	checkHTML(t, out)
	for _, want := range []string{">Server-side time</h3>", "Prefill P50", "42.33", "61.00", "21.00", "no queue time"} {
		if !strings.Contains(out, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}
