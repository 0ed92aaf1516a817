package htmlreport

import (
	"math"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/report"
)

// fv reads an optional report figure, NaN for nil.
func fv(p *report.Float) float64 {
	if p == nil {
		return math.NaN()
	}
	return float64(*p)
}

// telemetryOf is a round's telemetry, nil when it has none.
func telemetryOf(r *roundView) *report.BenchmarkTelemetry {
	if r.b.Extras == nil {
		return nil
	}
	return r.b.Extras.Telemetry
}

// Per-round energy and cost figures (NaN when absent).
func cpmOf(r *roundView) float64 {
	if t := telemetryOf(r); t != nil && t.Cost != nil {
		return fv(t.Cost.CPM)
	}
	return math.NaN()
}

func whPerOutTokOf(r *roundView) float64 {
	if t := telemetryOf(r); t != nil && t.Energy != nil && t.Energy.Derived != nil {
		return fv(t.Energy.Derived.WhPerOutputToken)
	}
	return math.NaN()
}

// currencyOf is the runs' currency code ("" when unknown).
func currencyOf(rounds []*roundView) string {
	for _, r := range rounds {
		if t := telemetryOf(r); t != nil && t.Cost != nil && t.Cost.Currency != "" {
			return t.Cost.Currency
		}
	}
	return ""
}

// moneyUnit is a currency for a heading: "€" for EUR, "$" for USD, else
// the code; "cost" when unknown.
func moneyUnit(code string) string {
	switch strings.ToUpper(code) {
	case "EUR":
		return "€"
	case "USD":
		return "$"
	case "GBP":
		return "£"
	case "":
		return "cost"
	}
	return clip(code, 8)
}

// renderTelemetry writes energy, power and cost per round, and the
// inference server's view when it was scraped.
func renderTelemetry(p *page, v *runView) {
	h3(p, v, "energy", "Energy and cost")
	var with []*roundView
	for _, r := range v.rounds {
		if telemetryOf(r) != nil {
			with = append(with, r)
		}
	}
	if len(with) == 0 {
		if v.isGoodput() {
			p.note("No telemetry in this report: power, energy per token and cost per million tokens need an energy source or a price (goodput's telemetry options).")
		} else {
			p.note("GuideLLM reports have no telemetry.")
		}
		return
	}
	cur := moneyUnit(currencyOf(with))
	t := &table{head: []string{"#", "Strategy", "Energy Wh", "Power mean / peak W", "GPUs", "Wh/out tok", "Wh/token",
		cur + "/1M out tok", cur + "/request", "gCO2/1M out tok"}}
	bases := map[string]bool{}
	var notes []string
	addNote := func(s string) {
		s = clip(s, 400)
		for _, n := range notes {
			if n == s {
				return
			}
		}
		notes = append(notes, s)
	}
	for _, r := range with {
		tm := telemetryOf(r)
		row := []cell{numCell(strconv.Itoa(r.i)), {text: r.label}}
		if e := tm.Energy; e != nil {
			gpus := strconv.FormatInt(int64(e.GPUs), 10)
			if e.GPUModel != "" {
				gpus += " × " + e.GPUModel
			}
			row = append(row, numCell(fmtNum(fv(e.EnergyWh))), numCell(fmtNum(fv(e.MeanPowerW))+" / "+fmtNum(fv(e.PeakPowerW))), cell{text: clip(gpus, 80), title: e.Source})
			if d := e.Derived; d != nil {
				row = append(row, cell{text: fmtNum(fv(d.WhPerOutputToken)), class: "num", title: fmtNum(fv(d.JPerOutputToken)) + " J per output token"},
					numCell(fmtNum(fv(d.WhPerToken))))
				for _, w := range d.Warnings {
					addNote("energy: " + w)
				}
			} else {
				row = append(row, numCell("–"), numCell("–"))
			}
			for _, w := range e.Warnings {
				addNote("energy: " + w)
			}
		} else {
			row = append(row, numCell("–"), numCell("–"), cell{text: "–"}, numCell("–"), numCell("–"))
		}
		if c := tm.Cost; c != nil {
			row = append(row, cell{text: fmtNum(fv(c.CPM)), class: "num", title: c.Source + "; basis: " + c.CPMBasis}, numCell(fmtNum(fv(c.CostPerRequest))))
			bases[c.CPMBasis] = true
			for _, w := range c.Warnings {
				addNote("cost: " + w)
			}
		} else {
			row = append(row, numCell("–"), numCell("–"))
		}
		carbon := math.NaN()
		if e := tm.Energy; e != nil && e.Derived != nil {
			carbon = fv(e.Derived.GCO2PerMOutputTokens)
		}
		row = append(row, numCell(fmtNum(carbon)))
		t.rows = append(t.rows, row)
		for _, m := range tm.Missing {
			addNote("missing " + m.Source + ": " + m.Reason)
		}
		for _, w := range tm.Warnings {
			addNote(w)
		}
	}
	// A column no round has a figure for is left out, and the table
	// when none has any (telemetry of the server only: no energy source,
	// no price).
	if t.dropEmptyColumns(2) == 0 {
		p.note("No energy or cost figures: power, energy per token and cost per million tokens need an energy source or a price (goodput's telemetry options).")
	} else {
		p.table(t)
		basis := "the goodput (output tokens of requests meeting the SLO)"
		switch {
		case bases["throughput"] && bases["goodput"]:
			basis = "the goodput where the round has an SLO verdict, else the throughput (hover a figure for its basis)"
		case bases["throughput"]:
			basis = "the throughput (no SLO verdict: every output token)"
		}
		p.el("p", `class="sub"`, "Every figure covers the round's measurement window. Energy per token divides the GPU energy by the client's own token counts in the window "+
			"(Wh/token counts prompt and output tokens); cost per million output tokens divides the deployment's cost per hour by "+basis+".")
	}

	// Power over time: each round's sampled power where the report has
	// it (direct DCGM or NVML sampling), and its mean and peak.
	t0 := v.startTime()
	for _, r := range with {
		if s := float64(telemetryOf(r).Window.Start); s > 0 && usable(s) && !(s >= t0) {
			t0 = s
		}
	}
	if math.IsNaN(t0) {
		t0 = math.Inf(1)
	}
	meanS := series{name: "mean power", kind: stepSeries, color: 1}
	peakS := series{name: "peak power", kind: stepSeries, color: 8}
	sampled := series{name: "sampled power", kind: lineSeries, color: 3}
	gap := point{x: math.NaN(), y: math.NaN()}
	for _, r := range with {
		tm := telemetryOf(r)
		if tm.Energy == nil || !(tm.Window.End > tm.Window.Start) || math.IsInf(t0, 1) {
			continue
		}
		for i, ps := range tm.Energy.PowerSeries {
			x, y := float64(ps.T)-t0, float64(ps.W)
			if !usable(x) || !usable(y) {
				continue
			}
			pt := point{x: x, y: y}
			if i == 0 {
				pt.tip = r.name() + ": " + fmtNum(y) + " W"
			}
			sampled.pts = append(sampled.pts, pt)
		}
		if len(tm.Energy.PowerSeries) > 0 {
			sampled.pts = append(sampled.pts, gap)
		}
		s, e := float64(tm.Window.Start)-t0, float64(tm.Window.End)-t0
		if m := fv(tm.Energy.MeanPowerW); !math.IsNaN(m) {
			meanS.pts = append(meanS.pts, point{x: s, y: m, tip: r.name() + ": mean " + fmtNum(m) + " W"}, point{x: e, y: m}, gap)
		}
		if pk := fv(tm.Energy.PeakPowerW); !math.IsNaN(pk) {
			peakS.pts = append(peakS.pts, point{x: s, y: pk, tip: r.name() + ": peak " + fmtNum(pk) + " W"}, point{x: e, y: pk}, gap)
		}
	}
	if len(meanS.pts)+len(peakS.pts) > 0 {
		c := &chart{id: v.id + "-power", title: "GPU power over time", x: axis{label: "Time since " + fmtUnix(t0) + " (s)", zero: true},
			y: axis{label: "GPU power, all selected GPUs (W)", zero: true}, height: 200}
		for _, s := range []series{sampled, meanS, peakS} {
			if len(s.pts) > 0 {
				c.series = append(c.series, s)
			}
		}
		caption := "Mean and peak GPU power over each round's measurement window."
		if len(sampled.pts) > 0 {
			caption = "GPU power over each round's measurement window: the summed power of the selected GPUs sampled through the round (line), with the round's mean and peak."
		}
		p.figure(c, caption)
	}

	cpm := roundSeries(v, cur+"/1M output tokens", 0, cpmOf, cur+"/1M tok")
	if len(cpm.pts) > 0 {
		c := &chart{id: v.id + "-cpm", title: "Cost per million output tokens against " + strings.ToLower(v.load.label),
			x: axis{label: v.load.label, zero: true}, y: axis{label: cur + " per 1M output tokens", zero: true}, series: []series{cpm}, height: 200}
		if wantLog(cpm) {
			c.y = axis{label: cur + " per 1M output tokens (log scale)", log: true}
		}
		kneeMark(c, v, cpmOf, cur+"/1M tok")
		p.figure(c, "Cost per million output tokens of each round: the deployment's cost per hour over the goodput (or throughput) of the round.")
	}
	wh := roundSeries(v, "Wh per output token", 2, whPerOutTokOf, "Wh/tok")
	if len(wh.pts) > 0 {
		c := &chart{id: v.id + "-wh", title: "Energy per output token against " + strings.ToLower(v.load.label),
			x: axis{label: v.load.label, zero: true}, y: axis{label: "Wh per output token", zero: true}, series: []series{wh}, height: 200}
		if wantLog(wh) {
			c.y = axis{label: "Wh per output token (log scale)", log: true}
		}
		kneeMark(c, v, whPerOutTokOf, "Wh/tok")
		p.figure(c, "GPU energy per output token of each round (Wh).")
	}

	renderGPUTelemetry(p, v, with)
	renderServerTelemetry(p, with)
	for i, n := range notes {
		if i == 12 {
			p.el("p", `class="warn"`, strconv.Itoa(len(notes)-12)+" more telemetry notes not shown.")
			break
		}
		p.el("p", `class="warn"`, n)
	}
}

// renderServerTelemetry writes what the inference server's /metrics said
// about each round.
func renderServerTelemetry(p *page, with []*roundView) {
	// llama.cpp says how many sequences an engine step carried; the
	// column shows only when some round has the figure.
	steps := false
	for _, r := range with {
		if s := telemetryOf(r).Server; s != nil && s.BusySlotsPerStep != nil {
			steps = true
		}
	}
	var rows [][]cell
	for _, r := range with {
		s := telemetryOf(r).Server
		if s == nil {
			continue
		}
		pair := func(a, b *report.Float) string { return fmtNum(fv(a)) + " / " + fmtNum(fv(b)) }
		lat := func(l *report.ServerLatency) string {
			if l == nil {
				return "–"
			}
			return fmtNum(fv(l.ServerP99Ms)) + " / " + fmtNum(fv(l.ClientP99Ms))
		}
		kv := "–"
		if s.KVCacheUsageMean != nil || s.KVCacheUsageMax != nil {
			kv = fmtPct(fv(s.KVCacheUsageMean)) + " / " + fmtPct(fv(s.KVCacheUsageMax))
		}
		engine := s.Engine
		if s.Replicas > 1 {
			engine += " × " + strconv.FormatInt(int64(s.Replicas), 10)
		}
		prefix, spec, queue := "–", "–", "–"
		if pc := s.PrefixCache; pc != nil {
			prefix = fmtPct(fv(pc.HitRate))
		}
		if sd := s.SpecDecode; sd != nil {
			spec = fmtPct(fv(sd.AcceptanceRate))
		}
		if q := s.QueueTime; q != nil {
			queue = fmtNum(fv(q.ServerMeanMs)) + " / " + fmtNum(fv(q.ServerP99Ms))
		}
		row := []cell{numCell(strconv.Itoa(r.i)), {text: r.label}, {text: clip(engine, 40), title: s.Source}, numCell(kv),
			numCell(pair(s.RequestsRunningMean, s.RequestsRunningMax)), numCell(pair(s.RequestsWaitingMean, s.RequestsWaitingMax))}
		if steps {
			row = append(row, numCell(fmtNum(fv(s.BusySlotsPerStep))))
		}
		rows = append(rows, append(row, numCell(fmtNum(fv(s.Preemptions))), numCell(lat(s.TTFT)), numCell(lat(s.ITL)), numCell(prefix), numCell(spec), numCell(queue)))
	}
	if len(rows) == 0 {
		return
	}
	head := []string{"#", "Strategy", "Engine", "KV cache mean / max", "Running mean / max", "Waiting mean / max"}
	if steps {
		head = append(head, "Sequences per step")
	}
	head = append(head, "Preemptions", "TTFT P99 ms server / client", "ITL P99 ms server / client", "Prefix cache hit", "Spec decode accepted", "Queue time mean / P99 ms")
	p.table(&table{caption: "Inference server metrics over each window", head: head, rows: rows})
	sub := "Server percentiles are interpolated inside the server's histogram buckets; the client's are exact. A growing waiting queue or preemptions mark saturation. " +
		"The prefix cache hit rate is hit tokens over queried tokens; spec decode accepted is accepted over draft tokens."
	if steps {
		sub += " Sequences per step is the mean number of requests each engine step (one decode call) carried: below the slots in use, requests waited on one another."
	}
	p.el("p", `class="sub"`, sub)
}
