package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// WriteCSV writes the report in GuideLLM's CSV layout
// (benchmark/outputs/csv.py): three header rows (group, field or
// status+unit, statistic) and one row per benchmark. Every distribution
// contributes, for each status whose total_sum is not zero, its Mean,
// Median, Std Dev and a "Percentiles" cell holding
// "[min, p001, p01, p05, p10, p25, p75, p90, p95, p99, max]". Numbers are
// written as Python writes them. Columns are the union over the benchmarks
// (cells a benchmark lacks are empty). goodput's own columns come last,
// under groups starting with "Goodput", among them whether the client was
// saturated ("Client Saturated", True or False, and "Client Saturation
// Reason"; its latency figures are then unreliable) and, last of all when
// the benchmarks were judged, the SLO's verdict, goodput and objectives.
// Timestamps are UTC (GuideLLM uses the local time zone).
func WriteCSV(w io.Writer, r *Report) error {
	type col struct{ g, f, s string }
	var order []col
	pos := map[col]int{}
	var rows []map[col]string
	for _, b := range r.Benchmarks {
		c := &csvCols{}
		c.benchmark(r, b)
		row := map[col]string{}
		last := -1
		for i, h := range c.heads {
			k := col{h[0], h[1], h[2]}
			row[k] = c.vals[i]
			if p, ok := pos[k]; ok {
				last = p
				continue
			}
			// Insert after the previous column of this benchmark.
			at := last + 1
			order = append(order, col{})
			copy(order[at+1:], order[at:])
			order[at] = k
			for j := at; j < len(order); j++ {
				pos[order[j]] = j
			}
			last = at
		}
		rows = append(rows, row)
	}
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	for level := 0; level < 3; level++ {
		rec := make([]string, len(order))
		for i, k := range order {
			rec[i] = [3]string{k.g, k.f, k.s}[level]
		}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("writing CSV: %w", err)
		}
	}
	for _, row := range rows {
		rec := make([]string, len(order))
		for i, k := range order {
			rec[i] = row[k]
		}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("writing CSV: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("writing CSV: %w", err)
	}
	return nil
}

type csvCols struct {
	heads [][3]string
	vals  []string
}

func (c *csvCols) add(group, field, unit, value string) {
	c.heads = append(c.heads, [3]string{group, field, unit})
	c.vals = append(c.vals, value)
}

// pyJSON renders JSON the way Python's json.dumps does (", " and ": ").
func pyJSON(v any) string {
	b, err := MarshalCompact(v)
	if err != nil {
		return ""
	}
	return string(pySpace(b))
}

func pyOpt(f *Float) string {
	if f == nil {
		return ""
	}
	return pyFloat(float64(*f))
}

// csvTime formats a Unix-seconds timestamp like GuideLLM's
// safe_format_timestamp ("N/A" when unset or out of range), in UTC.
func csvTime(f *Float) string {
	if f == nil || *f < 0 || *f > 1<<31 {
		return "N/A"
	}
	sec := float64(*f)
	t := time.Unix(int64(sec), int64((sec-float64(int64(sec)))*1e9)).UTC()
	return t.Format("2006-01-02 15:04:05")
}

func (c *csvCols) benchmark(r *Report, b *Benchmark) {
	cfg := &b.Config
	c.add("Run Info", "Run ID", "", cfg.RunID)
	c.add("Run Info", "Run Index", "", strconv.FormatInt(int64(cfg.RunIndex), 10))
	c.add("Run Info", "Profile", "", rawPy(cfg.Profile))
	c.add("Run Info", "Requests", "", rawPy(cfg.Requests))
	c.add("Run Info", "Backend", "", rawPy(cfg.Backend))
	c.add("Run Info", "Environment", "", rawPy(cfg.Environment))
	c.add("Benchmark", "Type", "", b.Type)
	c.add("Benchmark", "ID", "", cfg.ID)
	c.add("Benchmark", "Strategy", "", strategyType(cfg.Strategy))
	c.add("Benchmark", "Constraints", "", pyJSON(cfg.Constraints))

	sm := b.SchedulerMetrics
	if sm == nil {
		sm = &SchedulerMetrics{}
	}
	for _, t := range []struct {
		n string
		v *Float
	}{
		{"Start Time", sm.StartTime}, {"Request Start Time", sm.RequestStartTime},
		{"Measure Start Time", sm.MeasureStartTime}, {"Measure End Time", sm.MeasureEndTime},
		{"Request End Time", sm.RequestEndTime}, {"End Time", sm.EndTime},
	} {
		c.add("Timings", t.n, "", csvTime(t.v))
	}
	c.add("Timings", "Duration", "Sec", pyOpt(b.Duration))
	c.add("Timings", "Warmup", "Sec", pyOpt(b.WarmupDuration))
	c.add("Timings", "Cooldown", "Sec", pyOpt(b.CooldownDuration))

	m := &b.Metrics
	if t := m.RequestTotals; t != nil {
		c.add("Request Counts", "Successful", "", strconv.FormatInt(int64(t.Successful), 10))
		c.add("Request Counts", "Incomplete", "", strconv.FormatInt(int64(t.Incomplete), 10))
		c.add("Request Counts", "Errored", "", strconv.FormatInt(int64(t.Errored), 10))
		c.add("Request Counts", "Total", "", strconv.FormatInt(int64(t.Total), 10))
	}
	c.stats(m.RequestLatency, "Request Latency", "Sec")
	c.stats(m.RequestStreamingIterationsCount, "Streaming Iterations", "Count")
	c.stats(m.TimeToFirstTokenMs, "Time to First Token", "ms")
	c.stats(m.TimeToFirstOutputTokenMs, "Time to First Output Token", "ms")
	c.stats(m.TimePerOutputTokenMs, "Time per Output Token", "ms")
	c.stats(m.InterTokenLatencyMs, "Inter Token Latency", "ms")
	c.stats(m.RequestsPerSecond, "Server Throughput", "Requests/Sec")
	c.stats(m.RequestConcurrency, "Server Throughput", "Concurrency")
	c.stats(m.PromptTokenCount, "Token Metrics", "Input Tokens")
	c.stats(m.OutputTokenCount, "Token Metrics", "Output Tokens")
	c.stats(m.TotalTokenCount, "Token Metrics", "Total Tokens")
	c.stats(m.PromptTokensPerSecond, "Token Throughput", "Input Tokens/Sec")
	c.stats(m.OutputTokensPerSecond, "Token Throughput", "Output Tokens/Sec")
	c.stats(m.TokensPerSecond, "Token Throughput", "Total Tokens/Sec")
	c.stats(m.OutputTokensPerIteration, "Token Streaming", "Output Tokens/Iter")
	c.stats(m.IterTokensPerIteration, "Token Streaming", "Iter Tokens/Iter")
	if t := m.Text; t != nil {
		c.modality("Text", []namedGMS{{"Tokens", t.Tokens}, {"Words", t.Words}, {"Characters", t.Characters}})
	}
	if t := m.Image; t != nil {
		c.modality("Image", []namedGMS{{"Tokens", t.Tokens}, {"Images", t.Images}, {"Pixels", t.Pixels}, {"Bytes", t.Bytes}})
	}
	if t := m.Video; t != nil {
		c.modality("Video", []namedGMS{{"Tokens", t.Tokens}, {"Frames", t.Frames}, {"Seconds", t.Seconds}, {"Bytes", t.Bytes}})
	}
	if t := m.Audio; t != nil {
		c.modality("Audio", []namedGMS{{"Tokens", t.Tokens}, {"Samples", t.Samples}, {"Seconds", t.Seconds}, {"Bytes", t.Bytes}})
	}
	if st := b.SchedulerState; st != nil {
		for _, f := range []struct {
			n string
			v Int
		}{
			{"Node ID", st.NodeID}, {"Num Processes", st.NumProcesses}, {"Created Requests", st.CreatedRequests},
			{"Processed Requests", st.ProcessedRequests}, {"Successful Requests", st.SuccessfulRequests},
			{"Errored Requests", st.ErroredRequests}, {"Cancelled Requests", st.CancelledRequests},
		} {
			c.add("Scheduler State", f.n, "", strconv.FormatInt(int64(f.v), 10))
		}
		if st.EndQueuingTime != nil && *st.EndQueuingTime != 0 {
			c.add("Scheduler State", "End Queuing Time", "", csvTime(st.EndQueuingTime))
			c.add("Scheduler State", "End Queuing Constraints", "", pyJSON(st.EndQueuingConstraints))
		}
		if st.EndProcessingTime != nil && *st.EndProcessingTime != 0 {
			c.add("Scheduler State", "End Processing Time", "", csvTime(st.EndProcessingTime))
			c.add("Scheduler State", "End Processing Constraints", "", pyJSON(st.EndProcessingConstraints))
		}
	}
	if rm := sm.RequestsMade; rm != nil {
		c.add("Scheduler Metrics", "Requests Made Successful", "", strconv.FormatInt(int64(rm.Successful), 10))
		c.add("Scheduler Metrics", "Requests Made Incomplete", "", strconv.FormatInt(int64(rm.Incomplete), 10))
		c.add("Scheduler Metrics", "Requests Made Errored", "", strconv.FormatInt(int64(rm.Errored), 10))
		c.add("Scheduler Metrics", "Requests Made Total", "", strconv.FormatInt(int64(rm.Total), 10))
	}
	for _, f := range []struct {
		n string
		v *Float
	}{
		{"Queued Time Avg", sm.QueuedTimeAvg}, {"Resolve Start Delay Avg", sm.ResolveStartDelayAvg},
		{"Resolve Targeted Start Delay Avg", sm.ResolveTargetedStartDelayAvg},
		{"Request Start Delay Avg", sm.RequestStartDelayAvg},
		{"Request Targeted Start Delay Avg", sm.RequestTargetedStartDelayAvg},
		{"Request Time Avg", sm.RequestTimeAvg}, {"Resolve End Delay Avg", sm.ResolveEndDelayAvg},
		{"Resolve Time Avg", sm.ResolveTimeAvg}, {"Finalized Delay Avg", sm.FinalizedDelayAvg},
		{"Processed Delay Avg", sm.ProcessedDelayAvg},
	} {
		if f.v != nil {
			c.add("Scheduler Metrics", f.n, "Sec", pyOpt(f.v))
		}
	}
	meta, _ := MarshalCompact(r.Metadata)
	c.add("Runtime Info", "Metadata", "", string(meta))
	args := "null"
	switch {
	case r.Config != nil:
		if b, err := MarshalCompact(r.Config); err == nil {
			args = string(b)
		}
	case len(r.Args) > 0:
		args = compactRaw(r.Args)
	}
	c.add("Runtime Info", "Arguments", "", args)
	c.goodput(b)
}

// goodput adds goodput's columns (nothing for GuideLLM reports).
func (c *csvCols) goodput(b *Benchmark) {
	g := b.Extras
	if g == nil {
		return
	}
	c.add("Goodput", "Exact", "", pyBool(g.Exact))
	c.add("Goodput", "Inexact Reasons", "", pyJSON(g.InexactReasons))
	c.add("Goodput", "Stop Reason", "", g.StopReason)
	c.add("Goodput", "Error Rate", "", pyFloat(float64(g.Errors.ErrorRate)))
	c.add("Goodput", "Errors By Class", "", pyJSON(g.Errors.ByClass))
	c.add("Goodput", "Errors By HTTP Status", "", pyJSON(g.Errors.ByHTTPStatus))
	c.add("Goodput", "Not Dispatched", "", strconv.FormatInt(int64(g.Requests.NotDispatched), 10))
	c.add("Goodput", "Outside Window", "", strconv.FormatInt(int64(g.Requests.OutsideWindow), 10))
	// Whether the client kept up: its latency figures are unreliable when
	// it did not (empty when the client's load was not measured).
	sat, reason := "", ""
	if cl := g.Client; cl != nil {
		sat, reason = pyBool(cl.Saturated), cl.Reason
	}
	c.add("Goodput", "Client Saturated", "", sat)
	c.add("Goodput", "Client Saturation Reason", "", reason)
	x := &g.Metrics
	c.stats(x.TimeToFirstTokenMs, "Goodput Time to First Token", "ms")
	c.stats(x.TimeToFirstOutputTokenMs, "Goodput Time to First Output Token", "ms")
	c.stats(x.TimeToSecondTokenMs, "Goodput Time to Second Token", "ms")
	c.stats(x.TimePerOutputTokenMs, "Goodput Time per Output Token", "ms")
	c.stats(x.InterTokenLatencyMs, "Goodput Inter Token Latency", "ms")
	c.stats(x.ITLPerGapMs, "Goodput ITL per Gap", "ms")
	c.stats(x.ITLPerTokenMs, "Goodput ITL per Token", "ms")
	c.stats(x.RequestLatency, "Goodput Request Latency", "Sec")
	c.stats(x.DispatchLatenessMs, "Goodput Dispatch Lateness", "ms")
	c.stats(x.ScheduledTimeToFirstTokenMs, "Goodput Scheduled Time to First Token", "ms")
	c.stats(x.ScheduledRequestLatency, "Goodput Scheduled Request Latency", "Sec")
	tm := &g.TokenMismatch
	c.add("Goodput Token Mismatch", "Compared", "", strconv.FormatInt(int64(tm.Compared), 10))
	c.add("Goodput Token Mismatch", "Equal", "", strconv.FormatInt(int64(tm.Equal), 10))
	c.add("Goodput Token Mismatch", "Server Higher", "", strconv.FormatInt(int64(tm.ServerHigher), 10))
	c.add("Goodput Token Mismatch", "Client Higher", "", strconv.FormatInt(int64(tm.ClientHigher), 10))
	c.censored(g)
	if in := g.Inputs; in != nil {
		c.add("Goodput Inputs", "Kind", "", in.Kind)
		c.add("Goodput Inputs", "Total", "", strconv.FormatInt(int64(in.Total), 10))
		c.add("Goodput Inputs", "Per Second", "", pyFloat(float64(in.PerSecond)))
	}
	c.groups("Model", g.ByModel)
	c.groups("Target", g.ByTarget)
	c.slo(g.SLO)
	c.sessions(g.Sessions)
}

// sessions adds the conversations' figures and TTFT and cache hit rate by
// turn (nothing when the benchmark ran no sessions).
func (c *csvCols) sessions(s *SessionExtras) {
	if s == nil {
		return
	}
	n := func(v Int) string { return strconv.FormatInt(int64(v), 10) }
	c.add("Goodput Sessions", "Sessions", "", n(s.Sessions))
	c.add("Goodput Sessions", "Completed", "", n(s.Completed))
	c.add("Goodput Sessions", "Cut By Errors", "", n(s.CutByErrors))
	c.add("Goodput Sessions", "Cut Short", "", n(s.CutShort))
	good := ""
	if s.Good != nil {
		good = n(*s.Good)
	}
	c.add("Goodput Sessions", "Good", "", good)
	c.add("Goodput Sessions", "Good Fraction", "", pyOpt(s.GoodFraction))
	c.add("Goodput Sessions", "Cache Hit Rate", "", pyOpt(s.CacheHitRate))
	c.add("Goodput Sessions", "Turns Per Session", "Mean", pyFloat(float64(s.TurnsPerSession.Mean)))
	c.add("Goodput Sessions", "Duration", "Mean Sec", pyFloat(float64(s.DurationSeconds.Mean)))
	for _, t := range s.ByTurn {
		field := "Turn " + n(t.Turn)
		d := t.TimeToFirstTokenMs
		p50 := d.Median
		if d.Percentiles.P50 != nil {
			p50 = *d.Percentiles.P50
		}
		c.add("Goodput Sessions By Turn", field, "Requests", n(t.Requests))
		c.add("Goodput Sessions By Turn", field, "TTFT P50 ms", pyFloat(float64(p50)))
		c.add("Goodput Sessions By Turn", field, "TTFT P99 ms", pyFloat(float64(d.Percentiles.P99)))
		c.add("Goodput Sessions By Turn", field, "Cache Hit Rate", pyOpt(t.CacheHitRate))
	}
}

// groups adds the columns of a breakdown by model or target: one group
// of columns per model ("Goodput Model <name>"), present only in
// reports that have the breakdown.
func (c *csvCols) groups(what string, gs []GroupFigures) {
	q := func(x *Quantiles, p func(*Quantiles) Float) string {
		if x == nil {
			return ""
		}
		return pyFloat(float64(p(x)))
	}
	p50 := func(x *Quantiles) Float { return x.P50 }
	p99 := func(x *Quantiles) Float { return x.P99 }
	for _, g := range gs {
		grp := "Goodput " + what + " " + g.Name
		c.add(grp, "Successful", "", strconv.FormatInt(int64(g.Requests.Successful), 10))
		c.add(grp, "Errored", "", strconv.FormatInt(int64(g.Requests.Errored), 10))
		c.add(grp, "Incomplete", "", strconv.FormatInt(int64(g.Requests.Incomplete), 10))
		c.add(grp, "Requests Per Second", "", pyFloat(float64(g.RequestsPerSecond)))
		c.add(grp, "Output Tokens Per Second", "", pyFloat(float64(g.OutputTokensPerSecond)))
		c.add(grp, "Request Latency", "P50 ms", q(g.RequestLatencyMs, p50))
		c.add(grp, "Request Latency", "P99 ms", q(g.RequestLatencyMs, p99))
		c.add(grp, "Time to First Token", "P50 ms", q(g.TTFTMs, p50))
		c.add(grp, "Time to First Token", "P99 ms", q(g.TTFTMs, p99))
	}
}

// slo adds the SLO verdict, goodput and objectives (nothing without an
// SLO).
func (c *csvCols) slo(s *SLOResult) {
	if s == nil {
		return
	}
	c.add("Goodput SLO", "Spec", "", s.Spec)
	c.add("Goodput SLO", "Default", "", pyBool(s.Default))
	c.add("Goodput SLO", "Pass", "", pyBool(s.Pass))
	c.add("Goodput SLO", "Attainment", "", pyFloat(float64(s.Attainment)))
	c.add("Goodput SLO", "Good Requests", "", strconv.FormatInt(int64(s.GoodRequests), 10))
	c.add("Goodput SLO", "Goodput", "Requests/Sec", pyFloat(float64(s.GoodputRPS)))
	c.add("Goodput SLO", "Goodput", "Output Tokens/Sec", pyFloat(float64(s.GoodputOutputTokS)))
	c.add("Goodput SLO", "Throughput", "Output Tokens/Sec", pyFloat(float64(s.ThroughputOutputTokS)))
	if s.Decision != "" {
		c.add("Goodput SLO", "Decision", "", s.Decision)
		c.add("Goodput SLO", "Decision Confidence", "", pyFloat(float64(s.Confidence)))
	}
	for _, o := range s.Objectives {
		field := o.Key + " " + o.Unit
		c.add("Goodput SLO Objective", field, "Threshold", pyFloat(float64(o.Threshold)))
		c.add("Goodput SLO Objective", field, "Measured", pyFloat(float64(o.Measured)))
		c.add("Goodput SLO Objective", field, "Missing", pyBool(o.Missing))
		c.add("Goodput SLO Objective", field, "Pass", pyBool(o.Pass))
	}
}

func pyBool(v bool) string {
	if v {
		return "True"
	}
	return "False"
}

func strategyType(s Strategy) string {
	if s.Type == StrategyReplay {
		return "trace"
	}
	return s.Type
}

// rawPy re-renders a JSON object with Python's spacing ("{}" if absent).
func rawPy(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	return string(pySpace([]byte(compactRaw(raw))))
}

func compactRaw(raw json.RawMessage) string {
	b, err := MarshalCompact(raw)
	if err != nil {
		return strings.TrimSpace(string(raw))
	}
	return string(b)
}

type namedGMS struct {
	name string
	gms  *MetricsSummary
}

func (c *csvCols) modality(mod string, metrics []namedGMS) {
	for _, nm := range metrics {
		if nm.gms == nil {
			continue
		}
		for _, io := range []struct {
			n string
			d *StatusDistributionSummary
		}{{"Input", nm.gms.Input}, {"Output", nm.gms.Output}, {"Total", nm.gms.Total}} {
			if io.d == nil || !hasData(io.d) {
				continue
			}
			c.stats(io.d, mod+" "+nm.name, io.n)
		}
	}
}

func hasData(d *StatusDistributionSummary) bool {
	for _, s := range []*DistributionSummary{d.Successful, d.Incomplete, d.Errored} {
		if s != nil && s.TotalSum > 0 {
			return true
		}
	}
	return false
}

// stats adds Mean, Median, Std Dev and Percentiles for each status with a
// non-zero total_sum.
func (c *csvCols) stats(d *StatusDistributionSummary, group, units string) {
	if d == nil {
		return
	}
	for _, st := range []struct {
		n string
		s *DistributionSummary
	}{{"Successful", d.Successful}, {"Incomplete", d.Incomplete}, {"Errored", d.Errored}} {
		s := st.s
		if s == nil || s.TotalSum == 0 {
			continue
		}
		field := st.n + " " + units
		c.add(group, field, "Mean", pyFloat(float64(s.Mean)))
		c.add(group, field, "Median", pyFloat(float64(s.Median)))
		c.add(group, field, "Std Dev", pyFloat(float64(s.StdDev)))
		p := s.Percentiles
		vals := []Float{s.Min, p.P001, p.P01, p.P05, p.P10, p.P25, p.P75, p.P90, p.P95, p.P99, s.Max}
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = pyFloat(float64(v))
		}
		c.add(group, field, "Percentiles", "["+strings.Join(parts, ", ")+"]")
		if strings.HasPrefix(group, "Goodput") && s.MeanCI != nil {
			c.add(group, field, "Mean CI", ciCell(s.MeanCI))
			if s.PercentileCIs != nil {
				c.add(group, field, "P50 CI", ciCell(s.PercentileCIs.P50))
				c.add(group, field, "P95 CI", ciCell(s.PercentileCIs.P95))
				c.add(group, field, "P99 CI", ciCell(s.PercentileCIs.P99))
			}
		}
	}
}

// ciCell writes an interval as "[lower, upper]", None for a bound the
// sample cannot give (empty without an interval).
func ciCell(ci *ConfidenceInterval) string {
	if ci == nil {
		return ""
	}
	b := func(f *Float) string {
		if f == nil {
			return "None"
		}
		return pyFloat(float64(*f))
	}
	return "[" + b(ci.Lower) + ", " + b(ci.Upper) + "]"
}

// censored adds the censoring-aware percentiles and the window-exact
// throughput (nothing without them).
func (c *csvCols) censored(g *Extras) {
	if x := g.Censored; x != nil {
		for _, m := range []struct {
			name, unit string
			d          *CensoredDistribution
		}{{"Time to First Token", "ms", x.TimeToFirstTokenMs}, {"Request Latency", "Sec", x.RequestLatency}} {
			if m.d == nil {
				continue
			}
			field := m.name + " " + m.unit
			c.add("Goodput Censoring-Aware", field, "Censored", strconv.FormatInt(int64(m.d.Censored), 10))
			for _, pct := range []float64{50, 95, 99} {
				v := "None"
				if f, ok := m.d.Percentile(pct); ok {
					v = pyFloat(f)
				}
				name := fmt.Sprintf("P%g", pct)
				c.add("Goodput Censoring-Aware", field, name, v)
				for i, p := range PercentileProbs {
					if p*100 == pct && m.d.PercentileCIs != nil {
						c.add("Goodput Censoring-Aware", field, name+" CI", ciCell(m.d.PercentileCIs.At(i)))
					}
				}
			}
		}
	}
	if w := g.WindowThroughput; w != nil {
		c.add("Goodput Window Throughput", "Output Tokens", "Per Sec", pyFloat(float64(w.OutputTokensPerSecond)))
		c.add("Goodput Window Throughput", "Requests", "Per Sec", pyFloat(float64(w.RequestsPerSecond)))
	}
}
