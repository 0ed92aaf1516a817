package console

import (
	"fmt"
	"io"
	"strings"

	"github.com/goodput-dev/goodput/report"
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
// with "*" in the tables of latency figures, and a footnote gives the
// reason. Missing figures (older GuideLLM reports) are shown as "-". The
// output depends only on the report.
func Write(w io.Writer, r *report.Report) error {
	var b strings.Builder
	t1 := &textTable{
		title:  "Requests and throughput (request counts in the measurement window; rates are means)",
		groups: []tgroup{{"", 2}, {"Requests", 4}, {"Throughput", 4}, {"", 1}},
		heads:  []string{"#", "Strategy", "Succ", "Err", "Inc", "Err %", "Req/s", "Out tok/s", "Tot tok/s", "Concur.", "Duration s"},
	}
	t2 := &textTable{
		title:  "Latency, successful requests (ms)",
		groups: []tgroup{{"", 2}, {"TTFT", 3}, {"ITL", 3}, {"TPOT", 3}, {"Request latency", 3}},
		heads:  []string{"#", "Strategy", "P50", "P95", "P99", "P50", "P95", "P99", "P50", "P95", "P99", "P50", "P95", "P99"},
	}
	var notes []string
	for i, bm := range r.Benchmarks {
		idx := fmt.Sprint(i)
		strat := StrategyLabel(bm)
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
		t1.rows = append(t1.rows, row)

		lat := []string{idx, latencyLabel(bm)}
		lat = append(lat, pcts(m.TimeToFirstTokenMs, 1)...)
		lat = append(lat, pcts(m.InterTokenLatencyMs, 1)...)
		lat = append(lat, pcts(m.TimePerOutputTokenMs, 1)...)
		lat = append(lat, pcts(m.RequestLatency, 1000)...)
		t2.rows = append(t2.rows, lat)
		if g := bm.Goodput; g != nil && !g.Exact {
			for _, reason := range g.InexactReasons {
				notes = append(notes, fmt.Sprintf("benchmark %d: %s", i, reason))
			}
		}
	}
	if len(r.Benchmarks) == 0 {
		b.WriteString("No benchmarks.\n")
	} else {
		t1.render(&b)
		b.WriteString("\n")
		t2.render(&b)
		if tx := extrasTable(r); tx != nil {
			b.WriteString("\n")
			tx.render(&b)
		}
		if t3 := sloTable(r); t3 != nil {
			b.WriteString("\n")
			t3.render(&b)
		}
		for _, n := range saturationNotes(r) {
			b.WriteString(n + "\n")
		}
		for _, n := range notes {
			b.WriteString("Approximate: " + n + "\n")
		}
	}
	if r.Goodput != nil && r.Goodput.Knee != nil {
		b.WriteString("\n" + KneeSummary(r.Goodput.Knee, func(i int) string {
			if i < 0 || i >= len(r.Benchmarks) {
				return ""
			}
			return StrategyLabel(r.Benchmarks[i])
		}))
	}
	_, err := io.WriteString(w, b.String())
	if err != nil {
		return fmt.Errorf("writing console summary: %w", err)
	}
	return nil
}

// strategyLabel names a benchmark's strategy with its rate or streams.
func StrategyLabel(b *report.Benchmark) string {
	s := b.Config.Strategy
	switch s.Type {
	case report.StrategyConstant, report.StrategyPoisson:
		return fmt.Sprintf("%s %.2f/s", s.Type, s.Rate)
	case report.StrategyConcurrent:
		return fmt.Sprintf("concurrent %d", s.Streams)
	case report.StrategyThroughput:
		if s.MaxConcurrency > 0 {
			return fmt.Sprintf("throughput max %d", s.MaxConcurrency)
		}
		return "throughput"
	case report.StrategyReplay:
		ts := s.TimeScale
		if ts == 0 {
			ts = 1
		}
		return fmt.Sprintf("replay x%.2f", ts)
	case "":
		return "-"
	}
	return s.Type
}

func meanOf(d *report.StatusDistributionSummary, prec int) string {
	if d == nil || d.Successful == nil {
		return "-"
	}
	return fmt.Sprintf("%.*f", prec, float64(d.Successful.Mean))
}

// pcts returns P50 (the median), P95 and P99 of the successful requests,
// times scale.
func pcts(d *report.StatusDistributionSummary, scale float64) []string {
	if d == nil || d.Successful == nil {
		return []string{"-", "-", "-"}
	}
	s := d.Successful
	f := func(v report.Float) string { return fmt.Sprintf("%.1f", float64(v)*scale) }
	return []string{f(s.Median), f(s.Percentiles.P95), f(s.Percentiles.P99)}
}

type tgroup struct {
	name string
	span int
}

// textTable renders right-aligned columns (the first two left-aligned)
// under a row of group names.
type textTable struct {
	title  string
	groups []tgroup
	heads  []string
	rows   [][]string
}

func (t *textTable) render(b *strings.Builder) {
	n := len(t.heads)
	width := make([]int, n)
	for i, h := range t.heads {
		width[i] = len(h)
	}
	for _, r := range t.rows {
		for i, c := range r {
			width[i] = max(width[i], len(c))
		}
	}
	// Widen the last column of a group whose name is wider than its columns.
	col := 0
	for _, g := range t.groups {
		w := 0
		for i := col; i < col+g.span; i++ {
			w += width[i]
		}
		w += 2 * (g.span - 1)
		if len(g.name) > w {
			width[col+g.span-1] += len(g.name) - w
		}
		col += g.span
	}
	b.WriteString(t.title + "\n")
	var line strings.Builder
	col = 0
	for gi, g := range t.groups {
		w := 0
		for i := col; i < col+g.span; i++ {
			w += width[i]
		}
		w += 2 * (g.span - 1)
		if gi > 0 {
			line.WriteString(" |")
		}
		line.WriteString(fmt.Sprintf(" %-*s", w, g.name))
		col += g.span
	}
	b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	writeRow := func(cells []string) {
		line.Reset()
		col := 0
		for gi, g := range t.groups {
			if gi > 0 {
				line.WriteString(" |")
			}
			for i := col; i < col+g.span; i++ {
				if i > col {
					line.WriteString("  ")
				} else {
					line.WriteString(" ")
				}
				if i < 2 {
					line.WriteString(fmt.Sprintf("%-*s", width[i], cells[i]))
				} else {
					line.WriteString(fmt.Sprintf("%*s", width[i], cells[i]))
				}
			}
			col += g.span
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	writeRow(t.heads)
	sep := make([]string, n)
	for i := range sep {
		sep[i] = strings.Repeat("-", width[i])
	}
	writeRow(sep)
	for _, r := range t.rows {
		writeRow(r)
	}
}
