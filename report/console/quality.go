package console

import (
	"fmt"

	"github.com/goodput-dev/goodput/internal/texttable"
	"github.com/goodput-dev/goodput/metric"
	"github.com/goodput-dev/goodput/report"
)

// percentileTable gives each latency metric at the run's percentile list
// (--percentiles, the extras' "percentiles"); nil when no benchmark has
// one.
func percentileTable(r *report.Report) *texttable.Table {
	var ps []report.Float
	for _, bm := range r.Benchmarks {
		if bm.Extras != nil && bm.Extras.Percentiles != nil {
			ps = bm.Extras.Percentiles.Percentiles
			break
		}
	}
	if len(ps) == 0 {
		return nil
	}
	t := &texttable.Table{
		Title:  "Latency percentiles, successful requests (ms; from the HDR histograms)",
		Groups: []texttable.Group{{Name: "", Span: 2}},
		Heads:  []string{"#", "Strategy"},
	}
	for _, l := range metric.Latencies {
		t.Groups = append(t.Groups, texttable.Group{Name: l.Label, Span: len(ps)})
		for _, p := range ps {
			t.Heads = append(t.Heads, "P"+report.PercentileKey(float64(p))[1:])
		}
	}
	for i, bm := range r.Benchmarks {
		row := []string{fmt.Sprint(i), latencyLabel(bm)}
		var tab *report.PercentileTable
		if bm.Extras != nil {
			tab = bm.Extras.Percentiles
		}
		for _, l := range metric.Latencies {
			for _, p := range ps {
				cell := "-"
				if tab != nil {
					if v, ok := tab.Metrics[l.Field][report.PercentileKey(float64(p))]; ok {
						cell = fmt.Sprintf("%.1f", float64(v)*l.ToMs())
					}
				}
				row = append(row, cell)
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// streamingTable gives the streams' quality (the extras' "streaming"):
// the longest stall's P50, P99 and max, and with token deadlines the mean
// fluidity index, its P1, the mean deadline misses and the share above
// the SLO's floor; nil when no benchmark has it.
func streamingTable(r *report.Report) *texttable.Table {
	var deadlines bool
	var first *report.StreamingQuality
	for _, bm := range r.Benchmarks {
		if bm.Extras != nil && bm.Extras.Streaming != nil {
			q := bm.Extras.Streaming
			if first == nil {
				first = q
			}
			deadlines = deadlines || q.FluidityIndex != nil
		}
	}
	if first == nil {
		return nil
	}
	t := &texttable.Table{
		Title:  "Streaming quality, successful requests",
		Groups: []texttable.Group{{Name: "", Span: 2}, {Name: "Longest stall (ms)", Span: 3}},
		Heads:  []string{"#", "Strategy", "P50", "P99", "Max"},
	}
	if deadlines {
		ttft := "first token not judged"
		if first.TTFTDeadlineMs > 0 {
			ttft = fmt.Sprintf("TTFT %g ms", float64(first.TTFTDeadlineMs))
		}
		t.Title = fmt.Sprintf("Streaming quality, successful requests (Etalon's token deadlines: %s, TBT %g ms)", ttft, float64(first.TBTDeadlineMs))
		t.Groups = append(t.Groups, texttable.Group{Name: "Fluidity index", Span: 3}, texttable.Group{Name: "Misses", Span: 1})
		t.Heads = append(t.Heads, "Mean", "P1", "≥ floor %", "Mean")
	}
	for i, bm := range r.Benchmarks {
		row := []string{fmt.Sprint(i), latencyLabel(bm)}
		var q *report.StreamingQuality
		if bm.Extras != nil {
			q = bm.Extras.Streaming
		}
		if q == nil {
			q = &report.StreamingQuality{}
		}
		row = append(row, distCells(q.LongestStallMs, "%.1f", 1)...)
		if deadlines {
			fl := distCells(q.FluidityIndex, "%.3f", 2)
			floor := "-"
			if q.FluidityFloor > 0 && q.FluidityIndex != nil && q.FluidityIndex.Count > 0 {
				floor = fmt.Sprintf("%.1f", float64(q.AboveFloor)*100)
			}
			misses := "-"
			if d := q.DeadlineMisses; d != nil && d.Count > 0 {
				misses = fmt.Sprintf("%.2f", float64(d.Mean))
			}
			row = append(row, fl[0], fl[1], floor, misses)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// distCells formats a distribution's P50, P99 and max (kind 1) or mean
// and P1 (kind 2); "-" without values.
func distCells(d *report.DistributionSummary, format string, kind int) []string {
	n := 3
	if kind == 2 {
		n = 2
	}
	out := make([]string, n)
	for i := range out {
		out[i] = "-"
	}
	if d == nil || d.Count <= 0 {
		return out
	}
	f := func(v report.Float) string { return fmt.Sprintf(format, float64(v)) }
	if kind == 2 {
		return []string{f(d.Mean), f(d.Percentiles.P01)}
	}
	p50 := report.Float(0)
	if d.Percentiles.P50 != nil {
		p50 = *d.Percentiles.P50
	}
	return []string{f(p50), f(d.Percentiles.P99), f(d.Max)}
}

// throughputKneeSummary is a line on GuideLLM's knee detection (the run
// extras' throughput_knee): where output tok/s saturates, or why no knee
// was fitted; "" without it.
func throughputKneeSummary(t *report.ThroughputKnee) string {
	if t == nil || t.Final == nil {
		return ""
	}
	f := t.Final
	refined := ""
	if len(t.AdaptivePlan) > 0 {
		refined = fmt.Sprintf(", refined with %d more concurrency levels", len(t.AdaptivePlan))
	}
	if !f.Found {
		return fmt.Sprintf("Throughput knee (GuideLLM's knee detection%s): none: %s.\n", refined, f.Reason)
	}
	return fmt.Sprintf("Throughput knee (GuideLLM's knee detection%s): output tok/s saturates at concurrency %g (knee %.1f, breakpoint %g at %.0f tok/s, peak %.0f tok/s).\n",
		refined, float64(*f.SaturationConcurrency), float64(*f.KneeConcurrency), float64(*f.BreakpointConcurrency),
		float64(f.BreakpointOutputTokS), float64(f.PeakOutputTokS))
}

// trialsTable gives the spread across repeated runs (--num-runs): per
// load, a few key figures as mean ± the interval's half-width and the
// coefficient of variation, "!" marking one above the threshold; nil for
// a single run.
func trialsTable(t *report.Trials) *texttable.Table {
	if t == nil || len(t.Points) == 0 {
		return nil
	}
	figs := []struct{ key, label string }{
		{"output_tokens_per_second_mean", "Out tok/s"},
		{"time_to_first_token_ms_p99", "TTFT P99 ms"},
		{"inter_token_latency_ms_mean", "ITL mean ms"},
		{"request_latency_p99", "Latency P99 s"},
	}
	tab := &texttable.Table{
		Title: fmt.Sprintf("Run-to-run variation over %d runs (mean ± %g%% interval half-width, coefficient of variation; ! above %g%%)",
			int(t.Runs), 100*float64(t.Confidence), 100*float64(t.VariationThreshold)),
		Groups: []texttable.Group{{Name: "", Span: 2}},
		Heads:  []string{"Strategy", "Runs"},
	}
	for _, f := range figs {
		tab.Groups = append(tab.Groups, texttable.Group{Name: f.label, Span: 2})
		tab.Heads = append(tab.Heads, "Mean ± CI", "CV %")
	}
	for _, p := range t.Points {
		row := []string{p.Strategy, fmt.Sprint(len(p.Benchmarks))}
		for _, f := range figs {
			cell, cv := "-", "-"
			for _, m := range p.Metrics {
				if m.Metric != f.key {
					continue
				}
				cell = fmt.Sprintf("%.4g", float64(m.Mean))
				if m.CIHigh != nil {
					cell += fmt.Sprintf(" ± %.2g", float64(*m.CIHigh)-float64(m.Mean))
				}
				cv = fmt.Sprintf("%.1f", 100*float64(m.CV))
				if m.Exceeds {
					cv += "!"
				}
			}
			row = append(row, cell, cv)
		}
		tab.Rows = append(tab.Rows, row)
	}
	return tab
}
