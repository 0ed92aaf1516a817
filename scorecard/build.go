package scorecard

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/slo"
)

// Build makes the scorecard of a report: one row per benchmark (round) and
// the run's row, which is the knee round when the run has a knee
// (goodput.knee), else the passing round with the highest goodput, else the
// round with the highest goodput (none passes), else, when no SLO was
// judged, the round with the highest throughput; Metadata.Row and RowReason
// say which. Energy, cost and carbon come from each benchmark's
// goodput.telemetry; an axis without data is null with its reason in
// metadata.missing_axes.
//
// The cost per million tokens is recomputed from the cost per hour and the
// row's goodput, so that it always divides by performance.goodput_tok_s:
// CPM = cost/h × 10^6 / (goodput tok/s × 3600).
func Build(rep *report.Report) (*File, error) {
	if rep == nil || len(rep.Benchmarks) == 0 {
		return nil, fmt.Errorf("scorecard: the report has no benchmark")
	}
	runID := ""
	var run *report.RunExtras
	if rep.Run != nil {
		run = rep.Run
		runID = run.RunID
	}
	if runID == "" {
		runID = rep.Benchmarks[0].Config.RunID
	}
	base := runMetadata(rep)
	f := &File{}
	for i, b := range rep.Benchmarks {
		if b == nil {
			return nil, fmt.Errorf("scorecard: benchmark %d is null", i)
		}
		row := roundRow(b, base)
		row.RunID = runID
		row.Metadata.Row = "round"
		row.Metadata.RoundIndex = N(float64(roundIndex(b, i)))
		f.Rounds = append(f.Rounds, row)
	}
	pick, kind, reason := pickRunRow(rep, f.Rounds)
	f.Row = cloneRow(f.Rounds[pick])
	f.Row.Metadata.Row, f.Row.Metadata.RowReason = kind, reason
	f.Row.Metadata.Rounds = N(float64(len(f.Rounds)))
	if f.Row.Performance != nil {
		p := *f.Row.Performance
		peak := math.NaN()
		for _, r := range f.Rounds {
			if r.Performance != nil && r.Performance.ThroughputTokS.Valid {
				peak = math.Max(nanMax(peak), r.Performance.ThroughputTokS.V)
			}
		}
		p.ThroughputPeakTokS = N(peak)
		p.ElbowConcurrency = Num{}
		if k := kneeOf(run); k != nil && kind == "knee" {
			if k.Streams > 0 {
				p.ElbowConcurrency = N(float64(k.Streams))
			} else if k.Concurrency > 0 {
				p.ElbowConcurrency = N(float64(k.Concurrency))
			}
		}
		f.Row.Performance = &p
	}
	if f.Row.Cost != nil {
		c := *f.Row.Cost
		if span, ok := runSpan(rep); ok && c.GPUCostEURH.Valid {
			c.CostRunEUR = N(c.GPUCostEURH.V * span / 3600)
		}
		f.Row.Cost = &c
	}
	return f, nil
}

// runSpan is the run's length in seconds: from the earliest benchmark
// start to the latest end.
func runSpan(rep *report.Report) (float64, bool) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, b := range rep.Benchmarks {
		if b.StartTime != nil && b.EndTime != nil {
			lo = math.Min(lo, float64(*b.StartTime))
			hi = math.Max(hi, float64(*b.EndTime))
		}
	}
	return hi - lo, hi > lo
}

func nanMax(v float64) float64 {
	if math.IsNaN(v) {
		return math.Inf(-1)
	}
	return v
}

func kneeOf(run *report.RunExtras) *report.Knee {
	if run == nil {
		return nil
	}
	return run.Knee
}

// roundIndex is the benchmark's run index when set, else its position.
func roundIndex(b *report.Benchmark, pos int) int {
	if int(b.Config.RunIndex) != 0 || pos == 0 {
		return int(b.Config.RunIndex)
	}
	return pos
}

// pickRunRow chooses the round that stands for the run.
func pickRunRow(rep *report.Report, rounds []Row) (int, string, string) {
	if k := kneeOf(rep.Run); k != nil && k.Found {
		for i, b := range rep.Benchmarks {
			if int(b.Config.RunIndex) == int(k.Index) {
				reason := fmt.Sprintf("the knee found by the %s search (round %d)", cmp.Or(k.Mode, "sweep"), k.Index)
				if k.Reason != "" {
					reason += ": " + k.Reason
				}
				return i, "knee", reason
			}
		}
	}
	best := func(pass func(*Performance) bool, val func(*Performance) Num) int {
		idx, bestV := -1, math.Inf(-1)
		for i, r := range rounds {
			p := r.Performance
			if p == nil || !pass(p) {
				continue
			}
			if v := val(p); v.Valid && v.V > bestV {
				idx, bestV = i, v.V
			}
		}
		return idx
	}
	goodput, what := func(p *Performance) Num { return p.GoodputTokS }, "goodput"
	if pooledRun(rounds) {
		// No output tokens: rounds are ranked by what they processed.
		goodput, what = pooled, "pooling throughput"
	}
	judged := false
	for _, r := range rounds {
		if r.Performance != nil && r.Performance.SLOPass != nil {
			judged = true
		}
	}
	noKnee := "the run has no knee"
	if k := kneeOf(rep.Run); k != nil && k.Reason != "" {
		noKnee += " (" + k.Reason + ")"
	}
	if judged {
		if i := best(func(p *Performance) bool { return p.SLOPass != nil && *p.SLOPass }, goodput); i >= 0 {
			return i, "best passing round", noKnee + "; the round with the highest " + what + " among those that meet the SLO"
		}
		if i := best(func(*Performance) bool { return true }, goodput); i >= 0 {
			return i, "best round (none passes the SLO)", noKnee + "; no round meets the SLO: the round with the highest " + what
		}
	}
	if pooledRun(rounds) {
		if i := best(func(*Performance) bool { return true }, pooled); i >= 0 {
			return i, "highest-throughput round (no SLO judged)", noKnee + " and no SLO was judged: the round with the highest pooling throughput"
		}
	}
	if i := best(func(*Performance) bool { return true }, func(p *Performance) Num { return p.ThroughputTokS }); i >= 0 {
		return i, "highest-throughput round (no SLO judged)", noKnee + " and no SLO was judged: the round with the highest throughput"
	}
	return 0, "first round", "no round has a throughput figure"
}

// pooledRun reports whether every round with a performance block pooled
// (embeddings, rerank, score): their output token rates are all 0.
func pooledRun(rounds []Row) bool {
	n := 0
	for _, r := range rounds {
		if r.Performance == nil {
			continue
		}
		if r.Performance.Pooling == nil {
			return false
		}
		n++
	}
	return n > 0
}

// pooled is a pooling round's throughput: input tokens per second when
// counted, else inputs per second.
func pooled(p *Performance) Num {
	if p.Pooling == nil {
		return Num{}
	}
	if p.Pooling.InputTokS.Valid {
		return p.Pooling.InputTokS
	}
	return p.Pooling.ItemsPerS
}

// cloneRow copies a row deeply enough to edit its blocks.
func cloneRow(r Row) Row {
	out := r
	out.Metadata.MissingAxes = cloneMap(r.Metadata.MissingAxes)
	out.Metadata.Labels = cloneMap(r.Metadata.Labels)
	return out
}

func cloneMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// runMetadata is the metadata every row of the run shares.
func runMetadata(rep *report.Report) Metadata {
	m := Metadata{ScorecardVersion: N(Version)}
	if rep.Metadata != nil {
		m.GoodputVersion = rep.Metadata.GoodputVersion
	}
	if rep.Run == nil {
		return m
	}
	if md := rep.Run.Metadata; md != nil {
		m.Model, m.ModelRevision, m.Engine, m.EngineVersion = md.Model, md.ModelRevision, md.Engine, md.EngineVersion
		m.Precision, m.Hardware, m.Tokenizer, m.Warmup = md.Precision, md.Hardware, md.Tokenizer, md.Warmup
		m.PrecisionInferred, m.TokenizerHash = md.PrecisionInferred, md.TokenizerHash
		m.GoodputCommit = md.GoodputCommit
		if md.GoodputVersion != "" {
			m.GoodputVersion = md.GoodputVersion
		}
		if md.ISLTokens > 0 {
			m.ISLTokens = N(float64(md.ISLTokens))
		}
		if md.OSLTokens > 0 {
			m.OSLTokens = N(float64(md.OSLTokens))
		}
		if md.MaxConcurrency > 0 {
			m.MaxConcurrency = N(float64(md.MaxConcurrency))
		}
		if len(md.Labels) > 0 {
			m.Labels = cloneMap(md.Labels)
		}
	}
	if s := rep.Run.SLO; s != nil && s.Spec != "" {
		m.SLO = s.Spec
		spec := slo.FromResult(firstVerdict(rep))
		for _, ro := range rowObjectives {
			if o, ok := spec.Find(ro.Metric, ro.Stat, ro.Percentile); ok {
				*ro.limit(&m) = N(o.Threshold)
			}
		}
	}
	return m
}

// firstVerdict is the first benchmark's SLO verdict, whose objectives
// are the run's SLO (nil when no benchmark was judged).
func firstVerdict(rep *report.Report) *report.SLOResult {
	for _, b := range rep.Benchmarks {
		if b != nil && b.Extras != nil && b.Extras.SLO != nil {
			return b.Extras.SLO
		}
	}
	return nil
}

// roundRow builds one benchmark's row.
func roundRow(b *report.Benchmark, base Metadata) Row {
	r := Row{Metadata: base}
	r.Metadata.MissingAxes = map[string]string{}
	r.Metadata.Labels = cloneMap(base.Labels)
	r.Metadata.Strategy = strategyText(b.Config.Strategy)
	var tel *report.BenchmarkTelemetry
	if b.Extras != nil {
		tel = b.Extras.Telemetry
	}
	if tel != nil {
		w := tel.Window
		r.Metadata.WindowStart, r.Metadata.WindowEnd, r.Metadata.WindowS = N(float64(w.Start)), N(float64(w.End)), N(float64(w.DurationS))
		r.Metadata.WindowBasis = w.Basis
		if e := tel.Energy; e != nil {
			if e.GPUs > 0 {
				r.Metadata.GPUs = N(float64(e.GPUs))
			}
			r.Metadata.GPUModel = e.GPUModel
		}
	} else if sm := b.SchedulerMetrics; sm != nil && sm.MeasureStartTime != nil && sm.MeasureEndTime != nil {
		s, e := float64(*sm.MeasureStartTime), float64(*sm.MeasureEndTime)
		r.Metadata.WindowStart, r.Metadata.WindowEnd, r.Metadata.WindowS = N(s), N(e), N(e-s)
		r.Metadata.WindowBasis = "measurement"
	}
	r.Performance = performance(b, tel)
	r.Cost = costRow(tel, r.Performance, r.Metadata.MissingAxes)
	r.Energy, r.Carbon = energyRow(tel, r.Metadata.MissingAxes)
	if len(r.Metadata.MissingAxes) == 0 {
		r.Metadata.MissingAxes = nil
	}
	return r
}

// strategyText names a round's load, e.g. "concurrent streams=16".
func strategyText(s report.Strategy) string {
	t := s.Type
	switch s.Type {
	case "concurrent":
		t += " streams=" + strconv.Itoa(s.Streams)
	case "constant", "poisson":
		t += " rate=" + strconv.FormatFloat(s.Rate, 'g', -1, 64) + "/s"
	case "throughput":
		if s.MaxConcurrency > 0 {
			t += " max_concurrency=" + strconv.Itoa(s.MaxConcurrency)
		}
	}
	return t
}

// performance fills the performance block from the SLO result, goodput's
// distributions, and GuideLLM's, in that order of preference.
func performance(b *report.Benchmark, tel *report.BenchmarkTelemetry) *Performance {
	p := &Performance{SLOFailures: []string{}}
	var ex *report.Extras
	if b.Extras != nil {
		ex = b.Extras
	}
	// Throughput: output tokens of successful requests per second.
	switch {
	case ex != nil && ex.SLO != nil:
		p.ThroughputTokS = N(float64(ex.SLO.ThroughputOutputTokS))
	case tel != nil && tel.Window.DurationS > 0:
		p.ThroughputTokS = N(float64(tel.Tokens.OutputTokS))
	default:
		if d := succ(b.Metrics.OutputTokensPerSecond); d != nil {
			p.ThroughputTokS = N(float64(d.Mean))
		}
	}
	if ex != nil && ex.SLO != nil {
		p.GoodputTokS, p.GoodputBasis = N(float64(ex.SLO.GoodputOutputTokS)), "slo"
		pass := ex.SLO.Pass
		p.SLOPass = &pass
		for _, o := range ex.SLO.Objectives {
			if !o.Pass {
				p.SLOFailures = append(p.SLOFailures, objectiveFailure(o))
			}
		}
	} else {
		p.GoodputTokS, p.GoodputBasis = p.ThroughputTokS, "throughput"
	}
	if in := b.PoolingInputs(); in != nil {
		p.Pooling = &PoolingThroughput{Kind: in.Kind, ItemsPerS: N(float64(in.PerSecond))}
		if in.Tokens > 0 { // else no token count was known (TEI's rerank without a tokenizer)
			p.Pooling.InputTokS = N(float64(in.TokensPerSecond))
		}
	}
	// Latencies.
	measured := map[string]report.ObjectiveResult{}
	if ex != nil && ex.SLO != nil {
		for _, o := range ex.SLO.Objectives {
			if !o.Missing {
				measured[o.Key] = o
			}
		}
	}
	var bases []string
	ttft, ok := measured["ttft_p99"]
	switch {
	case ok:
		p.TTFTP99Ms = N(float64(ttft.Measured))
		bases = append(bases, "TTFT from the SLO objective ttft_p99")
	case ex != nil && succ(ex.Metrics.TimeToFirstTokenMs) != nil:
		p.TTFTP99Ms = N(float64(succ(ex.Metrics.TimeToFirstTokenMs).Percentiles.P99))
		bases = append(bases, "TTFT from goodput's time_to_first_token_ms (successful)")
	case succ(b.Metrics.TimeToFirstTokenMs) != nil:
		p.TTFTP99Ms = N(float64(succ(b.Metrics.TimeToFirstTokenMs).Percentiles.P99))
		bases = append(bases, "TTFT from GuideLLM's time_to_first_token_ms (successful)")
	}
	itl, ok := measured["itl_p95"]
	switch {
	case ok:
		p.ITLP95Ms = N(float64(itl.Measured))
		bases = append(bases, "ITL from the SLO objective itl_p95")
	case ex != nil && succ(ex.Metrics.InterTokenLatencyMs) != nil:
		p.ITLP95Ms = N(float64(succ(ex.Metrics.InterTokenLatencyMs).Percentiles.P95))
		bases = append(bases, "ITL from goodput's inter_token_latency_ms (successful)")
	case succ(b.Metrics.InterTokenLatencyMs) != nil:
		p.ITLP95Ms = N(float64(succ(b.Metrics.InterTokenLatencyMs).Percentiles.P95))
		bases = append(bases, "ITL from GuideLLM's inter_token_latency_ms (successful)")
	}
	p.LatencyBasis = strings.Join(bases, "; ")
	switch {
	case ex != nil:
		p.ErrorRate = N(float64(ex.Errors.ErrorRate))
	case b.Metrics.RequestTotals != nil && b.Metrics.RequestTotals.Total > 0:
		t := b.Metrics.RequestTotals
		p.ErrorRate = N(float64(t.Errored) / float64(t.Total))
	}
	p.ThroughputPeakTokS = p.ThroughputTokS
	return p
}

func succ(s *report.StatusDistributionSummary) *report.DistributionSummary {
	if s == nil || s.Successful == nil || s.Successful.Count == 0 {
		return nil
	}
	return s.Successful
}

// objectiveFailure describes a failed objective, e.g. "TTFT P99 721 > 500 ms".
func objectiveFailure(o report.ObjectiveResult) string {
	name := objectiveName(o.Key)
	if o.Missing {
		return name + " has no value to measure"
	}
	switch o.Unit {
	case "ms":
		return fmt.Sprintf("%s %s > %s ms", name, formatNum(float64(o.Measured)), formatNum(float64(o.Threshold)))
	case "count": // deadline_misses
		return fmt.Sprintf("%s %s > %s", name, formatNum(float64(o.Measured)), formatNum(float64(o.Threshold)))
	}
	if o.Metric == "fluidity" { // a floor
		return fmt.Sprintf("%s %s < %s", name, formatNum(float64(o.Measured)), formatNum(float64(o.Threshold)))
	}
	if o.Key == "attainment" {
		return fmt.Sprintf("%s %s < %s", name, pct(float64(o.Measured)), pct(float64(o.Threshold)))
	}
	return fmt.Sprintf("%s %s > %s", name, pct(float64(o.Measured)), pct(float64(o.Threshold)))
}

func pct(f float64) string { return strconv.FormatFloat(f*100, 'g', 6, 64) + "%" }

// objectiveName turns ttft_p99 into "TTFT P99".
func objectiveName(key string) string {
	switch key {
	case "error_rate":
		return "error rate"
	case "attainment":
		return "attainment"
	}
	if rest, ok := strings.CutPrefix(key, "deadline_misses"); ok {
		if st := strings.TrimPrefix(rest, "_"); st != "" {
			return "deadline misses " + strings.ToUpper(st[:1]) + st[1:]
		}
		return "deadline misses"
	}
	m, s, ok := strings.Cut(key, "_")
	if !ok {
		return strings.ToUpper(key)
	}
	return strings.ToUpper(m) + " " + strings.ToUpper(s[:1]) + s[1:]
}

// costRow builds the cost block from the telemetry's price.
func costRow(tel *report.BenchmarkTelemetry, p *Performance, missing map[string]string) *Cost {
	if tel == nil || tel.Cost == nil {
		missing["cost"] = missingReason(tel, "cost", "no price given (--gpu-cost-per-hour, --cost-per-hour or --opencost)", "cost")
		return nil
	}
	c := tel.Cost
	out := &Cost{GPUCostEURH: N(float64(c.CostPerHour)), CostWindowEUR: N(float64(c.WindowCost)), Currency: c.Currency,
		CostPerRequest: N(fval(c.CostPerRequest)), Source: c.Source, CPMBasis: "goodput"}
	if p != nil && p.GoodputBasis != "slo" {
		out.CPMBasis = "throughput"
	}
	if p != nil && p.GoodputTokS.Valid && p.GoodputTokS.V > 0 {
		out.CPMEUR1M = N(float64(c.CostPerHour) * 1e6 / (p.GoodputTokS.V * 3600))
	}
	return out
}

// energyRow builds the energy and carbon blocks.
func energyRow(tel *report.BenchmarkTelemetry, missing map[string]string) (*Energy, *Carbon) {
	if tel == nil || tel.Energy == nil {
		reason := missingReason(tel, "energy", "no energy source given (--dcgm-url, --prometheus or --nvml)", "dcgm", "nvml", "prometheus", "kepler", "gpu")
		missing["energy"] = reason
		missing["carbon"] = "no energy figure: " + reason
		return nil, nil
	}
	e := tel.Energy
	out := &Energy{PowerMeanW: N(fval(e.MeanPowerW)), EnergyTotalKWh: N(fval(e.EnergyJ) / 3.6e6), TokenBasis: "output",
		Method: e.Method, Source: e.Source, Warnings: append([]string{}, e.Warnings...)}
	if e.GPUs > 0 {
		out.GPUs = N(float64(e.GPUs))
	}
	d := e.Derived
	if d == nil {
		missing["carbon"] = "no derived energy figures"
		return out, nil
	}
	out.WhPerToken, out.JPerToken, out.JPerTokenAll = N(fval(d.WhPerOutputToken)), N(fval(d.JPerOutputToken)), N(fval(d.JPerToken))
	out.PUE, out.WhPerTokenPUEAdjusted = N(float64(d.PUE)), N(fval(d.WhPerOutputTokenPUE))
	pd := d.PUEDefault
	out.PUEDefault = &pd
	out.Warnings = append(out.Warnings, d.Warnings...)
	if d.GridGCO2PerKWh == nil {
		missing["carbon"] = "no grid carbon intensity given (--grid-intensity gCO2/kWh)"
		return out, nil
	}
	return out, &Carbon{GridIntensityGCO2KWh: N(fval(d.GridGCO2PerKWh)), CO2Per1MTokensG: N(fval(d.GCO2PerMOutputTokens))}
}

// missingReason explains a null axis: the missing sources that concern it
// when the telemetry lists some, else the default reason.
func missingReason(tel *report.BenchmarkTelemetry, axis, def string, sourceWords ...string) string {
	if tel == nil {
		return "the benchmark has no telemetry: " + def
	}
	var reasons []string
	for _, m := range tel.Missing {
		s := strings.ToLower(m.Source)
		for _, w := range sourceWords {
			if strings.Contains(s, w) {
				reasons = append(reasons, m.Source+": "+m.Reason)
				break
			}
		}
	}
	if len(reasons) > 0 {
		return axis + " source missing: " + strings.Join(reasons, "; ")
	}
	return def
}

// fval reads a report value, NaN for nil.
func fval(p *report.Float) float64 {
	if p == nil {
		return math.NaN()
	}
	return float64(*p)
}
