package htmlreport

import (
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/report"
)

// TestRenderSessions: a round with sessions gets the Sessions table and
// the TTFT-by-turn chart with one point per turn; a report without
// sessions has no such section.
func TestRenderSessions(t *testing.T) {
	rep := handReport([]float64{1}, []float64{1}, []float64{1}, []float64{1}, []float64{1}, -1)
	if out := render(t, []*report.Report{rep}, Options{}); strings.Contains(out, "TTFT P50 by turn") {
		t.Error("a report without sessions has a sessions section")
	}
	p50 := func(v report.Float) report.DistributionSummary {
		d := report.DistributionSummary{Count: 3, Median: v}
		d.Percentiles.P50 = &v
		return d
	}
	rep.Benchmarks[0].Extras.Sessions = &report.SessionExtras{Sessions: 3, Completed: 2, CutByErrors: 1, GoodFraction: report.FloatPtr(0.5), CacheHitRate: report.FloatPtr(0.25),
		TurnsPerSession: report.DistributionSummary{Mean: 2.5},
		ByTurn:          []report.TurnMetrics{{Turn: 0, Requests: 3, TimeToFirstTokenMs: p50(180)}, {Turn: 1, Requests: 2, TimeToFirstTokenMs: p50(60), CacheHitRate: report.FloatPtr(0.75)}}}
	out := render(t, []*report.Report{rep}, Options{})
	checkHTML(t, out)
	for _, want := range []string{">Sessions</h3>", "TTFT P50 by turn", "turn 0: 180.0 ms", "turn 1: 60.0 ms, cache hit 75", "2.50"} {
		if !strings.Contains(out, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}
