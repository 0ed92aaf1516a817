package console

import (
	"fmt"
	"strings"

	"github.com/goodput-dev/goodput/internal/texttable"
	"github.com/goodput-dev/goodput/report"
)

// extrasTable builds the console's table of goodput's own figures, one
// row per benchmark: scheduled TTFT (from the intended send time, so
// coordinated omission cannot hide queueing in the client), dispatch
// lateness, the inter-chunk gaps, the time to the second token and the
// share of requests whose server and client token counts differ. nil when
// no benchmark has goodput's extras (a GuideLLM report).
func extrasTable(r *report.Report) *texttable.Table {
	has := false
	for _, bm := range r.Benchmarks {
		if bm.Extras != nil {
			has = true
			break
		}
	}
	if !has {
		return nil
	}
	// The prompt mismatch column appears when some benchmark compared
	// prompt counts (a report without them prints as before).
	prompt := false
	for _, bm := range r.Benchmarks {
		if bm.Extras != nil && bm.Extras.PromptTokenMismatch != nil {
			prompt = true
			break
		}
	}
	t := &texttable.Table{
		Title: "Schedule and streaming, successful requests (ms; lateness over all requests)\n" +
			"  Sched. TTFT counts from the intended send time (no coordinated omission); lateness = sent − intended;\n" +
			"  ITL per gap: every inter-chunk gap; TTST: time to second token; token mismatch: server ≠ client count",
		Groups: []texttable.Group{{Name: "", Span: 2}, {Name: "Sched. TTFT", Span: 2}, {Name: "Lateness", Span: 2}, {Name: "ITL per gap", Span: 2}, {Name: "TTST", Span: 1}, {Name: "Tokens", Span: 1}},
		Heads:  []string{"#", "Strategy", "P50", "P99", "P99", "Max", "P50", "P99", "P50", "Mismatch %"},
	}
	if prompt {
		t.Title += "\n  Prompt %: requests whose server prompt count ≠ the client's (its raw prompt plus any --chat-template-overhead)"
		t.Groups[len(t.Groups)-1].Span = 2
		t.Heads = append(t.Heads, "Prompt %")
	}
	for i, bm := range r.Benchmarks {
		row := []string{fmt.Sprint(i), latencyLabel(bm)}
		g := bm.Extras
		if g == nil {
			for len(row) < len(t.Heads) {
				row = append(row, "-")
			}
			t.Rows = append(t.Rows, row)
			continue
		}
		x := &g.Metrics
		succ := func(d *report.StatusDistributionSummary) *report.DistributionSummary {
			if d == nil {
				return nil
			}
			return d.Successful
		}
		var late *report.DistributionSummary
		if x.DispatchLatenessMs != nil {
			late = x.DispatchLatenessMs.Total
		}
		sched, gap := succ(x.ScheduledTimeToFirstTokenMs), succ(x.ITLPerGapMs)
		row = append(row,
			msCell(sched, func(s *report.DistributionSummary) report.Float { return s.Median }),
			msCell(sched, func(s *report.DistributionSummary) report.Float { return s.Percentiles.P99 }),
			msCell(late, func(s *report.DistributionSummary) report.Float { return s.Percentiles.P99 }),
			msCell(late, func(s *report.DistributionSummary) report.Float { return s.Max }),
			msCell(gap, func(s *report.DistributionSummary) report.Float { return s.Median }),
			msCell(gap, func(s *report.DistributionSummary) report.Float { return s.Percentiles.P99 }),
			msCell(succ(x.TimeToSecondTokenMs), func(s *report.DistributionSummary) report.Float { return s.Median }),
			mismatchCell(g.TokenMismatch))
		if prompt {
			var pm report.TokenMismatch
			if g.PromptTokenMismatch != nil {
				pm = *g.PromptTokenMismatch
			}
			row = append(row, mismatchCell(pm))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// msCell formats one statistic of a distribution with one decimal; "-"
// when the distribution is absent or has no samples.
func msCell(s *report.DistributionSummary, stat func(*report.DistributionSummary) report.Float) string {
	if s == nil || s.Count == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", float64(stat(s)))
}

// mismatchCell is the percentage of compared requests whose server and
// client token counts differ ("-" when none were compared: unknown, not 0).
func mismatchCell(tm report.TokenMismatch) string {
	if tm.Compared <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", 100*float64(tm.ServerHigher+tm.ClientHigher)/float64(tm.Compared))
}

// clientSaturated reports whether goodput's client could not keep up
// during the benchmark (its latency figures are then unreliable).
func clientSaturated(b *report.Benchmark) bool {
	return b.Extras != nil && b.Extras.Client != nil && b.Extras.Client.Saturated
}

// saturationMark follows the strategy label of a benchmark whose client
// was saturated, in the tables of latency figures.
const saturationMark = "*"

// latencyLabel is the strategy label of a row of latency figures: marked
// when the client was saturated, or when the round started on a busy
// server.
func latencyLabel(b *report.Benchmark) string {
	l := b.Label()
	if clientSaturated(b) {
		l += saturationMark
	}
	if startedBusy(b) {
		l += busyMark
	}
	return l
}

// saturationNotes are the footnotes for the marked rows, one per
// saturated benchmark.
func saturationNotes(r *report.Report) []string {
	var notes []string
	for i, bm := range r.Benchmarks {
		if !clientSaturated(bm) {
			continue
		}
		n := fmt.Sprintf("%s benchmark %d (%s): client saturated: latency figures unreliable", saturationMark, i, bm.Label())
		if reason := strings.TrimSpace(report.OneLine(bm.Extras.Client.Reason)); reason != "" {
			n += ": " + reason
		}
		notes = append(notes, n)
	}
	return notes
}
