package console

import (
	"fmt"

	"github.com/goodput-dev/goodput/internal/texttable"
	"github.com/goodput-dev/goodput/metric"
	"github.com/goodput-dev/goodput/report"
)

// censoredTable compares, for the benchmarks that cut requests off at
// their end, GuideLLM's completed-only figures with the censoring-aware
// ones (Kaplan–Meier percentiles, window-exact throughput). nil when no
// benchmark cut a request off.
func censoredTable(r *report.Report) *texttable.Table {
	has := false
	for _, bm := range r.Benchmarks {
		if g := bm.Extras; g != nil && g.Censored != nil && g.Censored.RequestLatency != nil && g.Censored.RequestLatency.Censored > 0 {
			has = true
		}
	}
	if !has {
		return nil
	}
	t := &texttable.Table{
		Title: "Requests cut off at the end (censored): completed-only figures (GuideLLM's) beside censoring-aware ones\n" +
			"  KM: Kaplan–Meier, a cut-off request counts as still waiting at its elapsed time; ≥ x: the estimate never reaches the percentile;\n" +
			"  window: every output token that arrived in the window, requests = completed + share done of the cut-off ones",
		Groups: []texttable.Group{{Name: "", Span: 2}, {Name: "", Span: 1}, {Name: "TTFT P99 ms", Span: 2}, {Name: "Request latency P99 s", Span: 2}, {Name: "Req/s", Span: 2}, {Name: "Out tok/s", Span: 2}},
		Heads:  []string{"#", "Strategy", "Cut off", "completed", "KM", "completed", "KM", "completed", "window", "completed", "window"},
	}
	for i, bm := range r.Benchmarks {
		row := []string{fmt.Sprint(i), bm.Label()}
		g := bm.Extras
		if g == nil || g.Censored == nil {
			for len(row) < len(t.Heads) {
				row = append(row, "-")
			}
			t.Rows = append(t.Rows, row)
			continue
		}
		c := g.Censored
		cut := "-"
		if c.RequestLatency != nil {
			cut = fmt.Sprint(c.RequestLatency.Censored)
		}
		row = append(row, cut,
			ttftCell(bm), kmCell(c.TimeToFirstTokenMs, 99, 1),
			pctOnly(bm.Metrics.RequestLatency, 99, 2), kmCell(c.RequestLatency, 99, 2),
			meanOf(bm.Metrics.RequestsPerSecond, 2), windowCell(g.WindowThroughput, true),
			meanOf(bm.Metrics.OutputTokensPerSecond, 1), windowCell(g.WindowThroughput, false))
		t.Rows = append(t.Rows, row)
	}
	return t
}

// ttftCell is the completed-only TTFT P99, "-" when no request has one.
func ttftCell(bm *report.Benchmark) string {
	if absent(bm, metric.TTFT) {
		return "-"
	}
	return pctOnly(bm.Metrics.TimeToFirstTokenMs, 99, 1)
}

func pctOnly(d *report.StatusDistributionSummary, pct float64, prec int) string {
	if d == nil || d.Successful == nil || d.Successful.Count == 0 {
		return "-"
	}
	v, ok := d.Successful.Percentile(pct)
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.*f", prec, v)
}

func kmCell(d *report.CensoredDistribution, pct float64, prec int) string {
	if d == nil {
		return "-"
	}
	if v, ok := d.Percentile(pct); ok {
		return fmt.Sprintf("%.*f", prec, v)
	}
	return fmt.Sprintf("≥ %.*f", prec, float64(d.MaxObserved))
}

func windowCell(w *report.WindowThroughput, requests bool) string {
	if w == nil {
		return "-"
	}
	if requests {
		return fmt.Sprintf("%.2f", float64(w.RequestsPerSecond))
	}
	return fmt.Sprintf("%.1f", float64(w.OutputTokensPerSecond))
}
