package console

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/internal/texttable"
	"github.com/goodput-dev/goodput/metric"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/slo"
)

// Write writes a summary of every benchmark as aligned text
// tables, like GuideLLM's console output: requests and throughput, then
// latency percentiles of the successful requests (TTFT, ITL and TPOT as
// GuideLLM defines them, and end-to-end latency, all in ms; pooling
// benchmarks first get their input tokens and inputs per second), then the
// failed requests by error class with each class's most common message
// (goodput reports with failures only). A goodput report adds a table of goodput's own figures (scheduled TTFT, dispatch
// lateness, ITL per gap, time to second token, token count mismatches),
// and, when asked for, the latencies at a percentile list and the
// streams' quality (longest stall, Etalon's fluidity index).
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
//
// Write fits every line to Columns; WriteWidth fits them to another
// width, or with 0 writes every table whole (--wide).
func Write(w io.Writer, r *report.Report) error { return WriteWidth(w, r, Columns) }

// Columns is the width of Write's lines: a table wider is cut into parts
// that repeat each row's key, and a longer line of text is wrapped.
const Columns = texttable.Columns

// WriteWidth is Write with lines of at most cols columns (0: no limit).
func WriteWidth(w io.Writer, r *report.Report, cols int) error {
	var b strings.Builder
	t1 := &texttable.Table{
		Title:  "Requests and throughput (request counts in the measurement window; rates are means)",
		Groups: []texttable.Group{{Name: "", Span: 2}, {Name: "Requests", Span: 4}, {Name: "Throughput", Span: 4}, {Name: "", Span: 1}},
		Heads:  []string{"#", "Strategy", "Succ", "Err", "Inc", "Err %", "Req/s", "Out tok/s", "Tot tok/s", "Concur.", "Duration s"},
	}
	t2 := &texttable.Table{
		Title:  latencyTitle(r),
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
		strat := bm.Label()
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
			if absent(bm, l) {
				lat = append(lat, "-", "-", "-")
				continue
			}
			lat = append(lat, pcts(l.Of(m), l.ToMs())...)
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
		t1.RenderWidth(&b, cols)
		if tp := poolingTable(r); tp != nil {
			b.WriteString("\n")
			tp.RenderWidth(&b, cols)
		}
		b.WriteString("\n")
		t2.RenderWidth(&b, cols)
		if es := errorsSection(r, cols); es != "" {
			b.WriteString("\n" + es)
		}
		if tx := extrasTable(r); tx != nil {
			b.WriteString("\n")
			tx.RenderWidth(&b, cols)
		}
		if tc := censoredTable(r); tc != nil {
			b.WriteString("\n")
			tc.RenderWidth(&b, cols)
		}
		for _, tq := range []*texttable.Table{
			percentileTable(r), streamingTable(r),
			groupTable(r, "Model", func(e *report.Extras) []report.GroupFigures { return e.ByModel }),
			groupTable(r, "Target", func(e *report.Extras) []report.GroupFigures { return e.ByTarget }),
			serverTimeTable(r),
		} {
			if tq != nil {
				b.WriteString("\n")
				tq.RenderWidth(&b, cols)
			}
		}
		if ts := serverTable(r); ts != nil {
			b.WriteString("\n")
			ts.RenderWidth(&b, cols)
		}
		if ts := sessionTable(r); ts != nil {
			b.WriteString("\n")
			ts.RenderWidth(&b, cols)
		}
		if t3 := slo.Table(r); t3 != nil {
			b.WriteString("\n")
			t3.RenderWidth(&b, cols)
		}
		for _, n := range saturationNotes(r) {
			b.WriteString(n + "\n")
		}
		for _, n := range busyNotes(r) {
			b.WriteString(n + "\n")
		}
		for _, n := range shortfallNotes(r) {
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
			return r.Benchmarks[i].Label()
		}))
	}
	if r.Run != nil {
		if line := throughputKneeSummary(r.Run.ThroughputKnee); line != "" {
			b.WriteString("\n" + line)
		}
		if t := trialsTable(r.Run.Trials); t != nil {
			b.WriteString("\n")
			t.RenderWidth(&b, cols)
		}
	}
	out := b.String()
	if cols > 0 {
		out = texttable.Wrap(out, cols)
	}
	_, err := io.WriteString(w, out)
	if err != nil {
		return fmt.Errorf("writing console summary: %w", err)
	}
	return nil
}

// latencyTitle says what the latency table's brackets are when the
// report has intervals.
func latencyTitle(r *report.Report) string {
	for _, bm := range r.Benchmarks {
		if d := bm.Metrics.TimeToFirstTokenMs; d != nil && d.Successful != nil && d.Successful.PercentileCIs != nil {
			if ci := d.Successful.PercentileCIs.P50; ci != nil {
				return fmt.Sprintf("Latency, successful requests (ms; [%s%% confidence interval]; ≥ x: too few requests to bound it from above)",
					strconv.FormatFloat(float64(ci.Confidence)*100, 'g', 4, 64))
			}
		}
	}
	return "Latency, successful requests (ms)"
}

func meanOf(d *report.StatusDistributionSummary, prec int) string {
	if d == nil || d.Successful == nil {
		return "-"
	}
	return fmt.Sprintf("%.*f", prec, float64(d.Successful.Mean))
}

// absent reports whether no successful request of bm has latency l:
// GuideLLM's fields count a request without the value as 0 (a pooling
// request's TTFT), goodput's own leave it out, and no value is no latency.
func absent(bm *report.Benchmark, l *metric.Latency) bool {
	if bm.Extras == nil {
		return false
	}
	d := l.OfExtra(&bm.Extras.Metrics)
	return d != nil && d.Successful != nil && d.Successful.Count == 0
}

// pcts returns P50 (the median), P95 and P99 of the successful requests,
// times scale, each with its confidence interval when the report has one
// (pctCell); "-" when there is none (a round without a successful
// request has no latency, not a latency of 0).
func pcts(d *report.StatusDistributionSummary, scale float64) []string {
	if d == nil || d.Successful == nil || d.Successful.Count == 0 {
		return []string{"-", "-", "-"}
	}
	s := d.Successful
	return []string{pctCell(s, 50, scale), pctCell(s, 95, scale), pctCell(s, 99, scale)}
}

// pctCell is percentile pct of s times scale with its interval,
// "455.0 [388.1, 612.4]". A percentile the sample cannot bound on one side
// is not printed as a number: "≥ 388.1" gives the bound it has. Without an interval (an older report) it is the value.
func pctCell(s *report.DistributionSummary, pct, scale float64) string {
	v, ok := s.Percentile(pct)
	if !ok {
		return "-"
	}
	ci := s.PercentileCI(pct)
	if ci == nil {
		return fmt.Sprintf("%.1f", v*scale)
	}
	return CIText(v*scale, ci, scale, 1)
}

// CIText writes a value with its interval (bounds times scale, prec
// decimals): "455.0 [388.1, 612.4]"; with only one bound known,
// "≥ 388.1" or "≤ 12.0", and with neither "too few".
func CIText(v float64, ci *report.ConfidenceInterval, scale float64, prec int) string {
	switch {
	case ci.Bounded():
		return fmt.Sprintf("%.*f [%.*f, %.*f]", prec, v, prec, float64(*ci.Lower)*scale, prec, float64(*ci.Upper)*scale)
	case ci.Lower != nil:
		return fmt.Sprintf("≥ %.*f", prec, float64(*ci.Lower)*scale)
	case ci.Upper != nil:
		return fmt.Sprintf("≤ %.*f", prec, float64(*ci.Upper)*scale)
	}
	return "too few"
}
