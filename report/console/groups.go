package console

import (
	"fmt"

	"github.com/goodput-dev/goodput/internal/texttable"
	"github.com/goodput-dev/goodput/report"
)

// groupTable is the breakdown of each benchmark by model or by target
// (what names it: "Model", "Target"); nil when no benchmark has one.
func groupTable(r *report.Report, what string, of func(*report.Extras) []report.GroupFigures) *texttable.Table {
	t := &texttable.Table{
		Title:  "By " + what + " (requests in the measurement window; latencies of the successful ones, ms)",
		Groups: []texttable.Group{{Name: "", Span: 3}, {Name: "Requests", Span: 3}, {Name: "Throughput", Span: 2}, {Name: "Request latency", Span: 2}, {Name: "TTFT", Span: 2}, {Name: "ITL", Span: 1}, {Name: "SLO", Span: 1}},
		Heads:  []string{"#", "Strategy", what, "Succ", "Err", "Inc", "Req/s", "Out tok/s", "P50", "P99", "P50", "P99", "P50", "Attain %"},
	}
	q := func(x *report.Quantiles, p func(*report.Quantiles) report.Float) string {
		if x == nil {
			return "-"
		}
		return fmt.Sprintf("%.1f", float64(p(x)))
	}
	p50 := func(x *report.Quantiles) report.Float { return x.P50 }
	p99 := func(x *report.Quantiles) report.Float { return x.P99 }
	for i, bm := range r.Benchmarks {
		if bm.Extras == nil {
			continue
		}
		for _, g := range of(bm.Extras) {
			t.Rows = append(t.Rows, []string{fmt.Sprint(i), bm.Label(), g.Name,
				fmt.Sprint(g.Requests.Successful), fmt.Sprint(g.Requests.Errored), fmt.Sprint(g.Requests.Incomplete),
				fmt.Sprintf("%.2f", float64(g.RequestsPerSecond)), fmt.Sprintf("%.1f", float64(g.OutputTokensPerSecond)),
				q(g.RequestLatencyMs, p50), q(g.RequestLatencyMs, p99), q(g.TTFTMs, p50), q(g.TTFTMs, p99), q(g.ITLMs, p50), attain(g.Attainment)})
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return t
}

// attain is an attainment as a percentage, "-" when not judged.
func attain(a *report.Float) string {
	if a == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f", 100*float64(*a))
}
