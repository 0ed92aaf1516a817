package console

import (
	"fmt"
	"io"
	"strings"

	"github.com/goodput-dev/goodput/internal/texttable"
	"github.com/goodput-dev/goodput/metric"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/slo"
)

// Write writes a summary of every benchmark as aligned text
// tables, like GuideLLM's console output: requests and throughput, then
// latency percentiles of the successful requests (TTFT, ITL and TPOT as
// GuideLLM defines them, and end-to-end latency, all in ms). A goodput
// report adds a table of goodput's own figures (scheduled TTFT, dispatch
// lateness, ITL per gap, time to second token, token count mismatches).
// When the benchmarks were judged against an SLO, a table gives each
// verdict, the objectives' measured values, the attainment and the
// goodput; when the run has a knee (the run extras), a summary of it
// follows. A benchmark whose client was saturated has its label marked
// with "*" in the tables of latency figures, one that started on a busy
// server with "!", and a footnote gives the reason. A table of the wait
// before each round, the server's own metrics and the client's backoffs
// follows when the report has them. Missing figures (older GuideLLM
// reports, a round without a successful request) are shown as "-". The
// output depends only on the report.
func Write(w io.Writer, r *report.Report) error {
	var b strings.Builder
	t1 := &texttable.Table{
		Title:  "Requests and throughput (request counts in the measurement window; rates are means)",
		Groups: []texttable.Group{{Name: "", Span: 2}, {Name: "Requests", Span: 4}, {Name: "Throughput", Span: 4}, {Name: "", Span: 1}},
		Heads:  []string{"#", "Strategy", "Succ", "Err", "Inc", "Err %", "Req/s", "Out tok/s", "Tot tok/s", "Concur.", "Duration s"},
	}
	t2 := &texttable.Table{
		Title:  "Latency, successful requests (ms)",
		Groups: []texttable.Group{{Name: "", Span: 2}},
		Heads:  []string{"#", "Strategy"},
	}
	for _, l := range metric.Latencies {
		t2.Groups = append(t2.Groups, texttable.Group{Name: l.Label, Span: 3})
		t2.Heads = append(t2.Heads, "P50", "P95", "P99")
	}
	var notes []string
	for i, bm := range r.Benchmarks {
		idx := fmt.Sprint(i)
		strat := bm.Config.Strategy.Label()
		m := &bm.Metrics
		row := []string{idx, strat}
		if t := m.RequestTotals; t != nil {
			errPct := "-"
			if t.Total > 0 {
				errPct = fmt.Sprintf("%.1f", 100*float64(t.Errored)/float64(t.Total))
			}
			row = append(row, fmt.Sprint(t.Successful), fmt.Sprint(t.Errored), fmt.Sprint(t.Incomplete), errPct)
		} else {
			row = append(row, "-", "-", "-", "-")
		}
		row = append(row,
			meanOf(m.RequestsPerSecond, 2), meanOf(m.OutputTokensPerSecond, 1),
			meanOf(m.TokensPerSecond, 1), meanOf(m.RequestConcurrency, 2))
		if bm.Duration != nil {
			row = append(row, fmt.Sprintf("%.1f", float64(*bm.Duration)))
		} else {
			row = append(row, "-")
		}
		t1.Rows = append(t1.Rows, row)

		lat := []string{idx, latencyLabel(bm)}
		for _, l := range metric.Latencies {
			lat = append(lat, pcts(m.Latency(l), l.ToMs())...)
		}
		t2.Rows = append(t2.Rows, lat)
		if g := bm.Extras; g != nil && !g.Exact {
			for _, reason := range g.InexactReasons {
				notes = append(notes, fmt.Sprintf("benchmark %d: %s", i, reason))
			}
		}
	}
	if len(r.Benchmarks) == 0 {
		b.WriteString("No benchmarks.\n")
	} else {
		t1.Render(&b)
		b.WriteString("\n")
		t2.Render(&b)
		if tx := extrasTable(r); tx != nil {
			b.WriteString("\n")
			tx.Render(&b)
		}
		for _, tg := range []*texttable.Table{
			groupTable(r, "Model", func(e *report.Extras) []report.GroupFigures { return e.ByModel }),
			groupTable(r, "Target", func(e *report.Extras) []report.GroupFigures { return e.ByTarget }),
		} {
			if tg != nil {
				b.WriteString("\n")
				tg.Render(&b)
			}
		}
		if ts := serverTable(r); ts != nil {
			b.WriteString("\n")
			ts.Render(&b)
		}
		if t3 := slo.Table(r); t3 != nil {
			b.WriteString("\n")
			t3.Render(&b)
		}
		for _, n := range saturationNotes(r) {
			b.WriteString(n + "\n")
		}
		for _, n := range busyNotes(r) {
			b.WriteString(n + "\n")
		}
		for _, n := range notes {
			b.WriteString("Approximate: " + n + "\n")
		}
	}
	if r.Run != nil && r.Run.Knee != nil {
		b.WriteString("\n" + slo.KneeSummary(r.Run.Knee, func(i int) string {
			if i < 0 || i >= len(r.Benchmarks) {
				return ""
			}
			return r.Benchmarks[i].Config.Strategy.Label()
		}))
	}
	_, err := io.WriteString(w, b.String())
	if err != nil {
		return fmt.Errorf("writing console summary: %w", err)
	}
	return nil
}

func meanOf(d *report.StatusDistributionSummary, prec int) string {
	if d == nil || d.Successful == nil {
		return "-"
	}
	return fmt.Sprintf("%.*f", prec, float64(d.Successful.Mean))
}

// pcts returns P50 (the median), P95 and P99 of the successful requests,
// times scale; "-" when there is none (a round without a successful
// request has no latency, not a latency of 0).
func pcts(d *report.StatusDistributionSummary, scale float64) []string {
	if d == nil || d.Successful == nil || d.Successful.Count == 0 {
		return []string{"-", "-", "-"}
	}
	s := d.Successful
	f := func(v report.Float) string { return fmt.Sprintf("%.1f", float64(v)*scale) }
	return []string{f(s.Median), f(s.Percentiles.P95), f(s.Percentiles.P99)}
}
