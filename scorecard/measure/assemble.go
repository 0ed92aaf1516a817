package measure

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/internal/redact"
	"github.com/goodput-dev/goodput/metric"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/telemetry"
)

// fptr turns a float into a report value: nil for NaN and infinities.
func fptr(v float64) *report.Float {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	f := report.Float(v)
	return &f
}

// assemble turns one round's measurements into its goodput.telemetry.
func (t *Telemetry) assemble(rs *roundState) *report.BenchmarkTelemetry {
	d := rs.end.Sub(rs.start).Seconds()
	out, prompt, reqs, ok, rate := windowTokens(rs.sums, d)
	bt := &report.BenchmarkTelemetry{
		Window: report.TelemetryWindow{
			Start: report.Float(float64(rs.start.UnixNano()) / 1e9), End: report.Float(float64(rs.end.UnixNano()) / 1e9),
			DurationS: report.Float(d), Basis: rs.basis,
		},
		Tokens: report.WindowTokens{Output: report.Float(out), Prompt: report.Float(prompt),
			Requests: report.Int(reqs), Successful: report.Int(ok), OutputTokS: report.Float(zeroIfNaN(rate))},
		Missing:  append([]report.MissingTelemetry{}, t.missing...),
		Warnings: append([]string{}, rs.meas.notes...),
	}
	if rs.windowError != "" {
		bt.Warnings = append(bt.Warnings, rs.windowError)
	}
	pue, pueDefault := t.cfg.pue()
	bt.Energy = energyBlock(rs.meas.energy, energyInputs{
		outputTokens: out, promptTokens: prompt, requests: ok, pue: pue, pueDefault: pueDefault,
		grid: t.cfg.GridIntensity, gpuModel: t.gpuModel, durationS: d,
	}, &bt.Missing)
	bt.GPU = gpuBlock(rs.meas.energy)
	basis, basisRate := cpmBasis(rs.bench, rate)
	bt.Cost = t.costBlock(rs.meas, d, basis, basisRate, ok, &bt.Missing)
	if rs.meas.serverErr != nil {
		bt.Missing = append(bt.Missing, report.MissingTelemetry{Source: "server metrics", Reason: rs.meas.serverErr.Error()})
	}
	if rs.meas.server != nil {
		bt.Server = serverBlock(rs.meas.server, rs.bench)
		bt.Server.Source = t.serverSource
	}
	return bt
}

func zeroIfNaN(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

// cpmBasis is the output token rate a cost per million tokens divides by:
// the benchmark's SLO goodput when it was judged, else the window's
// throughput (every output token generated inside it).
func cpmBasis(b *report.Benchmark, throughput float64) (string, float64) {
	if b != nil && b.Extras != nil && b.Extras.SLO != nil {
		return "goodput", float64(b.Extras.SLO.GoodputOutputTokS)
	}
	return "throughput", throughput
}

// energyInputs are the denominators and factors of the energy figures.
type energyInputs struct {
	outputTokens, promptTokens float64
	requests                   int64
	pue                        float64
	pueDefault                 bool
	grid                       float64
	gpuModel                   string
	durationS                  float64
}

// energyBlock picks the first reading with an energy figure as the primary
// source, derives the per-token figures from it, and lists the others as
// cross-checks. nil when no reading has an energy figure.
func energyBlock(readings []energyReading, in energyInputs, missing *[]report.MissingTelemetry) *report.EnergyTelemetry {
	primary := -1
	for i, r := range readings {
		if r.err != nil {
			*missing = append(*missing, report.MissingTelemetry{Source: r.source, Reason: r.err.Error()})
			continue
		}
		if primary < 0 && !math.IsNaN(r.energyJ()) {
			primary = i
		}
	}
	if primary < 0 {
		for _, r := range readings {
			if r.err == nil && r.w != nil {
				*missing = append(*missing, report.MissingTelemetry{Source: r.source,
					Reason: "no usable energy sample over the window: " + strings.Join(r.w.Warnings, "; ")})
			}
		}
		return nil
	}
	p := readings[primary]
	e := &report.EnergyTelemetry{Source: p.source, Scope: p.scope, Warnings: []string{}, CrossChecks: []report.EnergyCrossCheck{}, PerGPU: []report.GPUEnergyTelemetry{}}
	ej := p.energyJ()
	model := in.gpuModel
	switch {
	case p.w != nil:
		w := p.w
		e.Source, e.Method = w.Source, w.Method
		e.MeanPowerW, e.PeakPowerW = fptr(w.MeanPowerW), fptr(w.PeakPowerW)
		for _, ps := range w.Power {
			if !math.IsNaN(ps.W) && !math.IsInf(ps.W, 0) {
				e.PowerSeries = append(e.PowerSeries, report.PowerPoint{T: report.Float(float64(ps.T.UnixNano()) / 1e9), W: report.Float(ps.W)})
			}
		}
		if w.UpdateInterval > 0 {
			e.UpdateIntervalS = fptr(w.UpdateInterval.Seconds())
		}
		e.Coverage = fptr(w.Coverage)
		var models []string
		for _, g := range w.GPUs {
			if math.IsNaN(g.EnergyJ) {
				continue
			}
			e.GPUs++
			if g.GPU.Model != "" && !contains(models, g.GPU.Model) {
				models = append(models, g.GPU.Model)
			}
		}
		for _, g := range w.GPUs {
			e.PerGPU = append(e.PerGPU, report.GPUEnergyTelemetry{
				Index: g.GPU.Index, UUID: g.GPU.UUID, Hostname: g.GPU.Hostname, Model: g.GPU.Model, MIG: g.GPU.MIG,
				Source: g.Source, Method: g.Method, EnergyJ: fptr(g.EnergyJ), MeanPowerW: fptr(g.MeanPowerW),
				PeakPowerW: fptr(g.PeakPowerW), Coverage: fptr(g.Coverage), Samples: report.Int(g.Samples),
			})
		}
		if len(models) > 0 {
			model = strings.Join(models, " + ")
		}
		e.Warnings = append(e.Warnings, w.Warnings...)
	case p.kepler != nil:
		e.Method = "counter"
		if in.durationS > 0 {
			e.MeanPowerW = fptr(ej / in.durationS)
		}
		e.Coverage = fptr(1)
		e.Warnings = append(e.Warnings, p.kepler.Warnings...)
		e.Warnings = append(e.Warnings, fmt.Sprintf("energy from Kepler (%s, query %s): no per-GPU power; mean power is energy ÷ window", p.kepler.Metric, p.kepler.Query))
	}
	e.GPUModel = model
	e.EnergyJ, e.EnergyWh = fptr(ej), fptr(ej/3600)
	for i, r := range readings {
		if i == primary || r.err != nil {
			continue
		}
		cj := r.energyJ()
		cc := report.EnergyCrossCheck{Source: r.source, Scope: r.scope, EnergyJ: fptr(cj), Warnings: []string{}}
		switch {
		case r.w != nil:
			cc.Source, cc.Method = r.w.Source, r.w.Method
			cc.Warnings = append(cc.Warnings, r.w.Warnings...)
		case r.kepler != nil:
			cc.Method = "counter"
			cc.Warnings = append(cc.Warnings, r.kepler.Warnings...)
		}
		if ej > 0 {
			cc.DiffPct = fptr((cj/ej - 1) * 100)
		}
		if math.IsNaN(cj) {
			cc.Error = "no usable energy sample over the window"
		}
		e.CrossChecks = append(e.CrossChecks, cc)
	}
	grid := 0.0
	if in.grid > 0 {
		grid = in.grid
	}
	fig, err := telemetry.DeriveEnergy(telemetry.EnergyInput{
		EnergyJ: math.Max(ej, 0), OutputTokens: int64(math.Round(in.outputTokens)), PromptTokens: int64(math.Round(in.promptTokens)),
		Requests: in.requests, PUE: in.pue, GridGCO2PerKWh: grid, GPUModel: model,
	})
	if err != nil {
		e.Warnings = append(e.Warnings, "derived figures: "+err.Error())
		return e
	}
	if ej < 0 {
		e.Warnings = append(e.Warnings, fmt.Sprintf("negative energy %.3f J over the window (counter reset?); derived figures use 0", ej))
	}
	e.Derived = &report.EnergyDerived{
		JPerOutputToken: fptr(fig.JPerOutputToken), JPerToken: fptr(fig.JPerToken),
		WhPerOutputToken: fptr(fig.WhPerOutputToken), WhPerToken: fptr(fig.WhPerToken),
		KWhPerMOutputTokens: fptr(fig.KWhPerMOutputTokens), WhPerRequest: fptr(fig.WhPerRequest),
		OutputTokensPerJ: fptr(fig.OutputTokensPerJ), TokensPerJ: fptr(fig.TokensPerJ),
		PUE: report.Float(in.pue), PUEDefault: in.pueDefault,
		WhPerOutputTokenPUE: fptr(fig.WhPerOutputTokenPUE), WhPerTokenPUE: fptr(fig.WhPerTokenPUE),
		GridGCO2PerKWh: fptr(nanIfZero(in.grid)), GCO2PerMOutputTokens: fptr(fig.GCO2PerMOutputTokens), GCO2PerMTokens: fptr(fig.GCO2PerMTokens),
		PlausibilityFamily: fig.Family, PlausibilityLowJ: report.Float(fig.BandLowJ), PlausibilityHighJ: report.Float(fig.BandHighJ),
		Warnings: append([]string{}, fig.Warnings...),
	}
	return e
}

func nanIfZero(v float64) float64 {
	if v == 0 {
		return math.NaN()
	}
	return v
}

// costBlock prices the window from the fixed price or OpenCost.
func (t *Telemetry) costBlock(m measurements, durS float64, basis string, basisRate float64, requests int64, missing *[]report.MissingTelemetry) *report.CostTelemetry {
	cur := t.cfg.currency()
	c := &report.CostTelemetry{Currency: cur, CPMBasis: basis, Warnings: []string{}}
	switch {
	case t.cfg.GPUCostPerHour > 0:
		c.CostPerHour = report.Float(t.cfg.GPUCostPerHour * float64(t.cfg.GPUs))
		c.Source = fmt.Sprintf("--gpu-cost-per-hour %g × %d GPUs", t.cfg.GPUCostPerHour, t.cfg.GPUs)
	case t.cfg.CostPerHour > 0:
		c.CostPerHour = report.Float(t.cfg.CostPerHour)
		c.Source = fmt.Sprintf("--cost-per-hour %g", t.cfg.CostPerHour)
	case m.allocErr != nil:
		*missing = append(*missing, report.MissingTelemetry{Source: "opencost", Reason: m.allocErr.Error()})
		return nil
	case m.alloc != nil:
		a := m.alloc
		c.CostPerHour = report.Float(a.CostPerHour)
		c.Source = fmt.Sprintf("opencost %s%s", redact.URL(t.cfg.OpenCostURL), a.Path)
		byKey := map[string]report.Float{}
		for k, v := range a.ByKey {
			byKey[k] = report.Float(v)
		}
		c.OpenCost = &report.OpenCostQuery{Path: a.Path, Aggregate: orDefault(t.cfg.OpenCostQuery.Aggregate, "namespace"),
			QueryStart: report.Float(a.QueryStart.Unix()), QueryEnd: report.Float(a.QueryEnd.Unix()),
			QueriedCost: report.Float(a.QueriedCost), ByKey: byKey}
		c.Warnings = append(c.Warnings, a.Warnings...)
		c.Warnings = append(c.Warnings, fmt.Sprintf("OpenCost converts no currency: its prices are assumed to be in %s", cur))
	default:
		return nil
	}
	fig := costFigures(float64(c.CostPerHour), durS, basisRate, requests)
	c.WindowCost = report.Float(fig.WindowCost)
	c.CPM, c.BasisTokS, c.CostPerRequest = fptr(fig.CPM), fptr(basisRate), fptr(fig.CostPerRequest)
	if c.CPM == nil {
		c.Warnings = append(c.Warnings, fmt.Sprintf("no %s in the window: the cost per million tokens is undefined", basis))
	}
	return c
}

// costFigures wraps telemetry.Cost, tolerating an undefined rate.
func costFigures(perHour, durS, rate float64, requests int64) telemetry.CostFigures {
	in := telemetry.CostInput{CostPerHour: perHour, Window: secondsDuration(durS), GoodputTokS: rate, Requests: requests}
	if math.IsNaN(rate) || math.IsInf(rate, 0) || rate < 0 {
		in.GoodputTokS = 0
	}
	f, err := telemetry.Cost(in)
	if err != nil {
		return telemetry.CostFigures{WindowCost: math.NaN(), CPM: math.NaN(), CostPerRequest: math.NaN()}
	}
	return f
}

// serverBlock reports the server's window beside the client's figures.
func serverBlock(w *telemetry.ServerWindow, b *report.Benchmark) *report.ServerTelemetry {
	s := &report.ServerTelemetry{Engine: w.Engine, Metrics: map[string]string{}, Warnings: append([]string{}, w.Warnings...)}
	for k, v := range w.Metrics {
		s.Metrics[k] = v
	}
	s.KVCacheUsageMean, s.KVCacheUsageMax = fptr(w.KVCacheUsage.Mean), fptr(w.KVCacheUsage.Max)
	s.RequestsRunningMean, s.RequestsRunningMax = fptr(w.RequestsRunning.Mean), fptr(w.RequestsRunning.Max)
	s.RequestsWaitingMean, s.RequestsWaitingMax = fptr(w.RequestsWaiting.Mean), fptr(w.RequestsWaiting.Max)
	s.Preemptions, s.PromptTokens, s.GenerationTokens = fptr(w.Preemptions), fptr(w.PromptTokens), fptr(w.GenerationTokens)
	s.Coverage = fptr(w.Coverage)
	var em *report.ExtraMetrics
	if b != nil && b.Extras != nil {
		em = &b.Extras.Metrics
	}
	pick := func(f func(*report.ExtraMetrics) *report.StatusDistributionSummary) *report.DistributionSummary {
		if em == nil {
			return nil
		}
		if sds := f(em); sds != nil {
			return sds.Successful
		}
		return nil
	}
	s.TTFT = latency(w.TTFT, metric.TTFT.Field+" (successful)", pick(func(m *report.ExtraMetrics) *report.StatusDistributionSummary { return metric.TTFT.OfExtra(m) }), metric.TTFT.ToMs())
	s.ITL = latency(w.ITL, "itl_per_gap_ms (successful; one sample per gap between token chunks)", pick(func(m *report.ExtraMetrics) *report.StatusDistributionSummary { return m.ITLPerGapMs }), 1)
	s.E2E = latency(w.E2E, metric.E2E.Field+" (successful)", pick(func(m *report.ExtraMetrics) *report.StatusDistributionSummary { return metric.E2E.OfExtra(m) }), metric.E2E.ToMs())
	if w.Replicas > 1 {
		s.Replicas = report.Int(w.Replicas)
	}
	s.RequestsSucceeded = fptr(w.Requests)
	if !math.IsNaN(w.PrefixCacheQueries) {
		s.PrefixCache = &report.PrefixCacheTelemetry{Queries: fptr(w.PrefixCacheQueries), Hits: fptr(w.PrefixCacheHits),
			HitRate: fptr(w.PrefixCacheHits / w.PrefixCacheQueries)}
	}
	if !math.IsNaN(w.SpecDraft) {
		s.SpecDecode = &report.SpecDecodeTelemetry{DraftTokens: fptr(w.SpecDraft), AcceptedTokens: fptr(w.SpecAccepted),
			AcceptanceRate: fptr(w.SpecAccepted / w.SpecDraft), Drafts: fptr(w.SpecDrafts)}
	}
	s.PromptThroughputMean, s.PromptThroughputMax = fptr(w.PromptThroughput.Mean), fptr(w.PromptThroughput.Max)
	s.GenerationThroughputMean, s.GenerationThroughputMax = fptr(w.GenerationThroughput.Mean), fptr(w.GenerationThroughput.Max)
	s.EngineSteps, s.BusySlotsPerStep = fptr(w.EngineSteps), fptr(w.BusySlotsPerStep)
	s.PromptSeconds, s.GenerationSeconds = fptr(w.PromptSeconds), fptr(w.GenerationSeconds)
	s.KVCacheTokensMean, s.KVCacheTokensMax = fptr(w.KVCacheTokens.Mean), fptr(w.KVCacheTokens.Max)
	s.ContextTokensMax = fptr(w.ContextTokensMax)
	s.QueueTime = latency(w.QueueTime, "", nil, 1)
	s.InferenceTime = latency(w.InferenceTime, "", nil, 1)
	s.PrefillTime = latency(w.PrefillTime, "", nil, 1)
	s.DecodeTime = latency(w.DecodeTime, "", nil, 1)
	if l := w.IterationTokens; l.Metric != "" {
		s.IterationTokens = &report.TokenHistogram{Metric: l.Metric, Count: fptr(l.Count), Mean: fptr(l.MeanS),
			P50: fptr(l.P50), P95: fptr(l.P95), P99: fptr(l.P99)}
	}
	return s
}

// latency pairs a server histogram with a client distribution (scaled to ms).
func latency(l telemetry.Latency, clientName string, client *report.DistributionSummary, scale float64) *report.ServerLatency {
	if l.Metric == "" {
		return nil
	}
	out := &report.ServerLatency{Metric: l.Metric, Count: fptr(l.Count), ServerMeanMs: fptr(l.MeanS * 1000),
		ServerP50Ms: fptr(l.P50 * 1000), ServerP95Ms: fptr(l.P95 * 1000), ServerP99Ms: fptr(l.P99 * 1000)}
	if client != nil && client.Count > 0 {
		out.Client = clientName
		if client.Percentiles.P50 != nil {
			out.ClientP50Ms = fptr(float64(*client.Percentiles.P50) * scale)
		}
		out.ClientP95Ms = fptr(float64(client.Percentiles.P95) * scale)
		out.ClientP99Ms = fptr(float64(client.Percentiles.P99) * scale)
	}
	return out
}

func secondsDuration(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }

// gpuBlock reports the GPU gauges of the first energy reading that has
// any; nil when none has.
func gpuBlock(readings []energyReading) *report.GPUTelemetry {
	for _, r := range readings {
		if r.err != nil || r.w == nil || len(r.w.Gauges) == 0 {
			continue
		}
		w := r.w
		g := &report.GPUTelemetry{Source: w.Source, Gauges: []report.GPUGaugeTelemetry{},
			ThrottleReasons: []string{}, PerGPU: []report.GPUGaugesOfGPU{}}
		if w.ThrottleReasons != 0 {
			g.ThrottleReasons = telemetry.ThrottleReasonNames(w.ThrottleReasons)
		}
		for _, gw := range w.Gauges {
			combine := "mean"
			if gw.Gauge.Summed() {
				combine = "sum"
			}
			out := report.GPUGaugeTelemetry{Name: gw.Gauge.String(), Unit: gw.Gauge.Unit(), Combine: combine,
				GPUs: report.Int(gw.GPUs), Mean: fptr(gw.Mean), Peak: fptr(gw.Peak)}
			for _, p := range gw.Series {
				if !math.IsNaN(p.V) && !math.IsInf(p.V, 0) {
					out.Series = append(out.Series, report.GaugePoint{T: report.Float(p.T), V: report.Float(p.V)})
				}
			}
			g.Gauges = append(g.Gauges, out)
		}
		for _, ge := range w.GPUs {
			pg := report.GPUGaugesOfGPU{Index: ge.GPU.Index, UUID: ge.GPU.UUID, Hostname: ge.GPU.Hostname,
				Gauges: map[string]report.GaugeStat{}, ThrottleReasons: []string{}}
			for k, st := range ge.Gauges {
				if telemetry.GPUGauge(k) == telemetry.GaugeThrottle || math.IsNaN(st.Mean) {
					continue
				}
				pg.Gauges[telemetry.GPUGauge(k).String()] = report.GaugeStat{Mean: fptr(st.Mean), Peak: fptr(st.Peak)}
			}
			if ge.ThrottleReasons != 0 {
				pg.ThrottleReasons = telemetry.ThrottleReasonNames(ge.ThrottleReasons)
			}
			if len(pg.Gauges) > 0 {
				g.GPUs++
			}
			g.PerGPU = append(g.PerGPU, pg)
		}
		return g
	}
	return nil
}
