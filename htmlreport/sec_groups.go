package htmlreport

import (
	"math"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/report"
)

// renderGroups writes the breakdowns of a run with several models or
// several targets (goodput's extras by_model and by_target): per round,
// each group's requests by status, rates, tokens, latency quantiles and
// SLO attainment, as the console's By Model and By Target tables show
// them, and with several rounds a chart of each group's TTFT P99 against
// the load. Nothing when no round has a breakdown.
func renderGroups(p *page, v *runView) {
	renderGroup(p, v, "model", "Model", func(e *report.Extras) []report.GroupFigures { return e.ByModel })
	renderGroup(p, v, "target", "Target", func(e *report.Extras) []report.GroupFigures { return e.ByTarget })
}

// renderGroup writes one breakdown (anchor "by-"+what).
func renderGroup(p *page, v *runView, what, head string, of func(*report.Extras) []report.GroupFigures) {
	var rounds []*roundView
	inputs := false
	for _, r := range v.rounds {
		if r.b.Extras == nil || len(of(r.b.Extras)) == 0 {
			continue
		}
		rounds = append(rounds, r)
		for _, g := range of(r.b.Extras) {
			inputs = inputs || g.Inputs > 0
		}
	}
	if len(rounds) == 0 {
		return
	}
	h3(p, v, "by-"+what, "By "+what)
	cols := []string{"#", "Strategy", head, "Successful", "Errored", "Incomplete", "Req/s", "Prompt tokens", "Output tokens", "Output tok/s"}
	if inputs {
		cols = append(cols, "Inputs")
	}
	cols = append(cols, "Latency P50 (ms)", "Latency P99 (ms)", "TTFT P50 (ms)", "TTFT P99 (ms)", "ITL P50 (ms)", "ITL P99 (ms)", "SLO attainment")
	t := &table{head: cols}
	q := func(x *report.Quantiles, at func(*report.Quantiles) report.Float) cell {
		if x == nil || x.Count == 0 {
			return numCell("–")
		}
		return numCell(fmtNum(float64(at(x))))
	}
	p50 := func(x *report.Quantiles) report.Float { return x.P50 }
	p99 := func(x *report.Quantiles) report.Float { return x.P99 }
	// One series per group name, in the order the names first appear.
	idx := map[string]int{}
	var ss []series
	for _, r := range rounds {
		for _, g := range of(r.b.Extras) {
			row := []cell{numCell(strconv.Itoa(r.i)), {text: r.label}, {text: clip(g.Name, 200)},
				numCell(fmtInt(int64(g.Requests.Successful))), numCell(fmtInt(int64(g.Requests.Errored))), numCell(fmtInt(int64(g.Requests.Incomplete))),
				numCell(fmtNum(float64(g.RequestsPerSecond))), numCell(fmtInt(int64(g.PromptTokens))), numCell(fmtInt(int64(g.OutputTokens))),
				numCell(fmtNum(float64(g.OutputTokensPerSecond)))}
			if inputs {
				row = append(row, numCell(fmtInt(int64(g.Inputs))))
			}
			att := numCell("–")
			if g.Attainment != nil {
				att = numCell(fmtPct(float64(*g.Attainment)))
				att.title = fmtInt(int64(g.GoodRequests)) + " requests met the SLO's per-request thresholds"
			}
			row = append(row, q(g.RequestLatencyMs, p50), q(g.RequestLatencyMs, p99), q(g.TTFTMs, p50), q(g.TTFTMs, p99), q(g.ITLMs, p50), q(g.ITLMs, p99), att)
			t.rows = append(t.rows, row)

			k, ok := idx[g.Name]
			if !ok {
				k = len(ss)
				idx[g.Name] = k
				ss = append(ss, series{name: clip(g.Name, 200), kind: lineSeries, dots: true, color: k})
			}
			if g.TTFTMs == nil || g.TTFTMs.Count == 0 || math.IsNaN(r.load) {
				continue
			}
			y := float64(g.TTFTMs.P99)
			ss[k].pts = append(ss[k].pts, point{x: r.load, y: y,
				tip: clip(g.Name, 200) + ", " + r.name() + ": " + fmtNum(y) + " ms at " + fmtNum(r.load) + " " + v.load.unit})
		}
	}
	p.table(t)
	p.el("p", `class="sub"`, "Requests in each round's measurement window sent to each "+what+
		"; rates over the window, tokens and latencies (nearest-rank percentiles) of the successful ones. "+
		"SLO attainment is the share of the "+what+"'s requests that met the SLO's per-request thresholds; a dash: not judged.")
	if len(rounds) < 2 {
		return
	}
	pts := 0
	for i := range ss {
		ss[i].pts = byX(ss[i].pts)
		pts += len(ss[i].pts)
	}
	if pts == 0 {
		return
	}
	c := &chart{id: v.id + "-by-" + what + "-ttft", title: "TTFT P99 by " + what + " against " + strings.ToLower(v.load.label),
		x: axis{label: v.load.label, zero: true}, y: axis{label: "TTFT P99 (ms)", zero: true}, series: ss}
	if wantLog(ss...) {
		c.y = axis{label: "TTFT P99 (ms, log scale)", log: true}
	}
	if v.slo.ttftP == 99 && !math.IsNaN(v.slo.ttftMs) {
		c.hlines = append(c.hlines, refLine{v: v.slo.ttftMs, label: "SLO: TTFT P99 ≤ " + fmtNum(v.slo.ttftMs) + " ms"})
	}
	p.figure(c, "TTFT P99 of each "+what+"'s successful requests in each round, against the round's load.")
}
