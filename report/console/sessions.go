package console

import (
	"fmt"

	"github.com/goodput-dev/goodput/internal/texttable"
	"github.com/goodput-dev/goodput/report"
)

// sessionTable builds the console's table of conversations: for each
// benchmark that ran sessions, one row per turn index (the session
// counts, session goodput and cache hit rate on its first row), so that
// TTFT by turn shows what the history and the prefix cache do. nil when
// no benchmark ran sessions.
func sessionTable(r *report.Report) *texttable.Table {
	has := false
	for _, bm := range r.Benchmarks {
		has = has || bm.Extras != nil && bm.Extras.Sessions != nil
	}
	if !has {
		return nil
	}
	t := &texttable.Table{
		Title: "Sessions by turn (successful turns in the window; sessions: completed/cut by errors/cut short; good: every turn met the SLO)",
		Groups: []texttable.Group{{Name: "", Span: 2}, {Name: "Sessions", Span: 3}, {Name: "", Span: 2},
			{Name: "TTFT ms", Span: 2}, {Name: "ITL ms", Span: 2}, {Name: "Latency s", Span: 1}, {Name: "Prompt", Span: 3}},
		Heads: []string{"#", "Strategy", "N", "Done/err/cut", "Good %", "Turn", "Req", "P50", "P99", "P50", "P99", "P50", "Tokens", "Hist msg", "Cached %"},
	}
	for i, bm := range r.Benchmarks {
		if bm.Extras == nil || bm.Extras.Sessions == nil {
			continue
		}
		s := bm.Extras.Sessions
		head := []string{fmt.Sprint(i), latencyLabel(bm), fmt.Sprint(s.Sessions),
			fmt.Sprintf("%d/%d/%d", s.Completed, s.CutByErrors, s.CutShort), num(s.GoodFraction, 100, 1)}
		if len(s.ByTurn) == 0 {
			t.Rows = append(t.Rows, append(head, "-", "0", "-", "-", "-", "-", "-", "-", "-", num(s.CacheHitRate, 100, 1)))
			continue
		}
		for k, tm := range s.ByTurn {
			row := head
			if k > 0 {
				row = []string{"", "", "", "", ""}
			}
			p := func(d report.DistributionSummary, q report.Float) string {
				if d.Count == 0 {
					return "-"
				}
				return fmt.Sprintf("%.1f", float64(q))
			}
			p50 := func(d report.DistributionSummary) report.Float {
				if d.Percentiles.P50 == nil {
					return d.Median
				}
				return *d.Percentiles.P50
			}
			lat := "-"
			if tm.RequestLatency.Count > 0 {
				lat = fmt.Sprintf("%.2f", float64(p50(tm.RequestLatency)))
			}
			row = append(row, fmt.Sprint(tm.Turn), fmt.Sprint(tm.Requests),
				p(tm.TimeToFirstTokenMs, p50(tm.TimeToFirstTokenMs)), p(tm.TimeToFirstTokenMs, tm.TimeToFirstTokenMs.Percentiles.P99),
				p(tm.InterTokenLatencyMs, p50(tm.InterTokenLatencyMs)), p(tm.InterTokenLatencyMs, tm.InterTokenLatencyMs.Percentiles.P99),
				lat, fmt.Sprintf("%.0f", float64(tm.PromptTokensMean)), fmt.Sprintf("%.1f", float64(tm.HistoryMessagesMean)), num(tm.CacheHitRate, 100, 1))
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}
