package htmlreport

import (
	"math"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/scorecard"
)

// ttftP99 is a round's TTFT P99 (ms): goodput's distribution, else
// GuideLLM's.
func ttftP99(r *roundView) float64 {
	if r.b.Extras != nil {
		if d := r.b.Extras.Metrics.TimeToFirstTokenMs; d != nil && d.Successful != nil {
			return float64(d.Successful.Percentiles.P99)
		}
	}
	if d := r.b.Metrics.TimeToFirstTokenMs; d != nil && d.Successful != nil {
		return float64(d.Successful.Percentiles.P99)
	}
	return math.NaN()
}

// dominates reports whether a is at least as good as b on every objective
// (all minimised) and better on one.
func dominates(a, b []float64) bool {
	better := false
	for i := range a {
		if a[i] > b[i] {
			return false
		}
		if a[i] < b[i] {
			better = true
		}
	}
	return better
}

// paretoFront marks the points that no other point dominates; points with
// a NaN objective or not eligible are never on it.
func paretoFront(objs [][]float64, eligible []bool) []bool {
	on := make([]bool, len(objs))
	for i, a := range objs {
		if !eligible[i] || hasNaN(a) {
			continue
		}
		on[i] = true
		for j, b := range objs {
			if j != i && eligible[j] && !hasNaN(b) && dominates(b, a) {
				on[i] = false
				break
			}
		}
	}
	return on
}

func hasNaN(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) {
			return true
		}
	}
	return false
}

// renderOverlays draws, for each kind of load driving two runs or more,
// their goodput (else throughput) and TTFT P99 on shared axes.
func renderOverlays(p *page, runs []*runView) {
	var labels []string
	groups := map[string][]*runView{}
	for _, v := range runs {
		if groups[v.load.label] == nil {
			labels = append(labels, v.load.label)
		}
		groups[v.load.label] = append(groups[v.load.label], v)
	}
	var alone []string
	for gi, label := range labels {
		g := groups[label]
		if len(g) < 2 {
			alone = append(alone, g[0].name+" ("+strings.ToLower(label)+")")
			continue
		}
		overlay(p, g, "cmp"+strconv.Itoa(gi))
	}
	if len(alone) > 0 {
		p.note("Not overlaid, as no other run was driven by the same kind of load: " + clip(strings.Join(alone, ", "), 400) + ".")
	}
}

// overlay draws the load curves of runs sharing one load axis.
func overlay(p *page, runs []*runView, id string) {
	label := runs[0].load.label
	good := &chart{id: id + "-goodput", title: "Goodput against " + strings.ToLower(label), x: axis{label: label, zero: true},
		y: axis{label: "Output tokens per second", zero: true}}
	ttft := &chart{id: id + "-ttft", title: "TTFT P99 against " + strings.ToLower(label), x: axis{label: label, zero: true},
		y: axis{label: "TTFT P99 (ms)", zero: true}}
	thrOnly := false
	for _, v := range runs {
		i := v.idx
		fig := func(r *roundView) float64 { return r.goodput }
		s := roundSeries(v, v.name, i, fig, "tok/s")
		if len(s.pts) == 0 {
			fig = func(r *roundView) float64 { return r.outTokS }
			s = roundSeries(v, v.name+" (throughput)", i, fig, "tok/s")
			thrOnly = true
		}
		good.series = append(good.series, s)
		ttft.series = append(ttft.series, roundSeries(v, v.name, i, ttftP99, "ms"))
		if v.kneeAt >= 0 {
			r := v.rounds[v.kneeAt]
			if y := fig(r); !math.IsNaN(y) && !math.IsNaN(r.load) {
				good.marks = append(good.marks, marker{x: r.load, y: y, label: "knee"})
			}
		}
	}
	if wantLog(ttft.series...) {
		ttft.y = axis{label: "TTFT P99 (ms, log scale)", log: true}
	}
	capt := "Goodput of each run's rounds against " + strings.ToLower(label) + "; diamonds mark the knees."
	if thrOnly {
		capt += " Runs without SLO verdicts show their throughput instead, labelled so."
	}
	p.figure(good, capt)
	p.figure(ttft, "TTFT P99 of each run's rounds (successful requests).")
}

// scoreEntry is one run's scorecard row (package scorecard: its knee
// round, else its best passing round, …) and its place on the frontier.
type scoreEntry struct {
	run     *runView
	row     *scorecard.Row // nil: the report has no benchmark
	verdict scorecard.Verdict
}

// num reads a scorecard number, NaN when absent.
func num(n scorecard.Num) float64 { return n.F() }

func (e *scoreEntry) perf() *scorecard.Performance {
	if e.row == nil || e.row.Performance == nil {
		return &scorecard.Performance{}
	}
	return e.row.Performance
}

func (e *scoreEntry) cpm() float64 {
	if e.row == nil || e.row.Cost == nil {
		return math.NaN()
	}
	return num(e.row.Cost.CPMEUR1M)
}

func (e *scoreEntry) wh() float64 {
	if e.row == nil || e.row.Energy == nil {
		return math.NaN()
	}
	return num(e.row.Energy.WhPerToken)
}

func (e *scoreEntry) currency() string {
	if e.row == nil || e.row.Cost == nil || e.row.Cost.Currency == "" {
		return scorecard.DefaultCurrency
	}
	return e.row.Cost.Currency
}

// scoreEntries builds every run's scorecard row and judges them on the
// Pareto frontier (scorecard.Frontier: cost per million output tokens, Wh
// per output token and TTFT P99, all minimised, among the runs meeting
// their SLO).
func scoreEntries(runs []*runView) []*scoreEntry {
	out := make([]*scoreEntry, len(runs))
	var entries []scorecard.Entry
	var idx []int
	for i, v := range runs {
		out[i] = &scoreEntry{run: v}
		card, err := scorecard.Build(v.rep)
		if err != nil {
			out[i].verdict = scorecard.Verdict{Status: scorecard.StatusUnranked, Reason: "no scorecard row: " + err.Error()}
			continue
		}
		out[i].row = &card.Row
		entries = append(entries, scorecard.Entry{Name: v.name, Row: card.Row})
		idx = append(idx, i)
	}
	for k, vd := range scorecard.Frontier(entries, scorecard.Judge{}) {
		out[idx[k]].verdict = vd
	}
	return out
}

// statusText says a verdict in words.
func statusText(s string) string {
	switch s {
	case scorecard.StatusFrontier:
		return "on the frontier"
	case scorecard.StatusDominated:
		return "dominated"
	case scorecard.StatusBreaksSLO:
		return "breaks the SLO"
	case scorecard.StatusUnranked:
		return "not ranked"
	}
	return "–"
}

// renderComparison writes the section comparing several runs: their
// scorecard rows with their places on the Pareto frontier, the overlaid
// load curves and the Pareto chart.
func renderComparison(p *page, runs []*runView) {
	p.raw(`<section id="cmp">`, "\n")
	p.el("h2", "", "Comparison of the runs")
	entries := scoreEntries(runs)
	cur := ""
	for _, e := range entries {
		if e.verdict.Status == scorecard.StatusFrontier {
			cur = e.currency()
		}
	}
	money := moneyUnit(cur)
	if cur == "" {
		money = "cost"
	}
	t := &table{head: []string{"Run", "Configuration", "Scorecard row", "Goodput tok/s", "TTFT P99 ms", "ITL P95 ms",
		money + "/1M out tok", "Wh/out tok", "SLO", "Pareto"}}
	for _, e := range entries {
		md := &report.RunMetadata{}
		if e.run.extras != nil && e.run.extras.Metadata != nil {
			md = e.run.extras.Metadata
		}
		var conf []string
		for _, s := range []string{e.run.model(), strings.TrimSpace(md.Engine + " " + md.EngineVersion), md.Precision, md.Hardware} {
			if s != "" {
				conf = append(conf, clip(s, 200))
			}
		}
		rowText, rowWhy := "–", ""
		if e.row != nil {
			m := e.row.Metadata
			rowText = m.Row
			if m.RoundIndex.Valid {
				rowText = "#" + m.RoundIndex.String() + " " + m.Strategy + " (" + m.Row + ")"
			}
			rowWhy = m.RowReason
		}
		perf := e.perf()
		slo := cell{text: "–"}
		if perf.SLOPass != nil {
			slo = cell{text: "fail", class: "fail", title: strings.Join(perf.SLOFailures, "; ")}
			if *perf.SLOPass {
				slo = cell{text: "pass", class: "pass"}
			}
		}
		cpm := fmtNum(e.cpm())
		if e.row != nil && e.row.Cost != nil && e.currency() != cur && cur != "" {
			cpm += " " + e.currency()
		}
		t.rows = append(t.rows, []cell{{text: clip(e.run.name, 80)}, {text: strings.Join(conf, " · "), class: "wrap"},
			{text: clip(rowText, 120), class: "wrap", title: clip(rowWhy, 400)}, numCell(fmtNum(num(perf.GoodputTokS))),
			numCell(fmtNum(num(perf.TTFTP99Ms))), numCell(fmtNum(num(perf.ITLP95Ms))), numCell(cpm), numCell(fmtNum(e.wh())), slo,
			{text: statusText(e.verdict.Status), title: clip(e.verdict.Reason, 600)}})
	}
	p.table(t)
	p.el("p", `class="sub"`, "Each run's row is its scorecard row (package scorecard): the knee round, else the passing round with the most goodput, "+
		"else its best round; hover a row's round for why. The Pareto frontier is over cost per million output tokens, Wh per output token and TTFT P99, "+
		"all minimised, among the runs that meet their SLO: a run is on it when no other is at least as good on all three and better on one.")

	renderOverlays(p, runs)
	renderPareto(p, entries, cur)
	p.raw("</section>\n")
}

// renderPareto draws cost per million tokens against TTFT P99, marker
// area by Wh per output token, frontier runs filled, with the frontier's
// staircase in the chart's plane.
func renderPareto(p *page, entries []*scoreEntry, cur string) {
	var plotted []*scoreEntry
	var missing []string
	for _, e := range entries {
		if e.row == nil || math.IsNaN(e.cpm()) || math.IsNaN(num(e.perf().TTFTP99Ms)) || (cur != "" && e.currency() != cur) {
			missing = append(missing, e.run.name)
			continue
		}
		plotted = append(plotted, e)
	}
	if len(plotted) == 0 {
		p.note("No Pareto chart: no run has both a cost per million tokens and a TTFT P99 (cost and energy come from goodput's telemetry).")
		return
	}
	money := moneyUnit(cur)
	if cur == "" {
		money = moneyUnit(plotted[0].currency())
	}
	whMax := 0.0
	for _, e := range plotted {
		if w := e.wh(); w > whMax && usable(w) {
			whMax = w
		}
	}
	c := &chart{id: "cmp-pareto", title: money + " per 1M output tokens against TTFT P99",
		x: axis{label: money + " per 1M output tokens", zero: true, pad: true}, y: axis{label: "TTFT P99 (ms)", zero: true, pad: true}, height: 280}
	var ranked []point
	for _, e := range plotted {
		x, y, w := e.cpm(), num(e.perf().TTFTP99Ms), e.wh()
		rad := 6.0
		if whMax > 0 && w > 0 {
			rad = math.Max(4, 18*math.Sqrt(w/whMax))
		}
		tip := e.run.name + ": " + fmtNum(x) + " " + money + "/1M tok, TTFT P99 " + fmtNum(y) + " ms, " + fmtNum(w) + " Wh/out tok; " +
			statusText(e.verdict.Status)
		if e.verdict.Reason != "" && e.verdict.Status != scorecard.StatusFrontier {
			tip += " (" + clip(e.verdict.Reason, 300) + ")"
		}
		c.series = append(c.series, series{name: e.run.name, kind: scatterSeries, color: e.run.idx,
			pts: []point{{x: x, y: y, r: rad, tip: tip, hollow: e.verdict.Status != scorecard.StatusFrontier, label: e.run.name}}})
		if s := e.verdict.Status; s == scorecard.StatusFrontier || s == scorecard.StatusDominated {
			ranked = append(ranked, point{x: x, y: y})
		}
	}
	// The frontier in the chart's plane: the staircase of the ranked runs
	// that no other ranked run beats on both cost and TTFT.
	objs := make([][]float64, len(ranked))
	elig := make([]bool, len(ranked))
	for i, q := range ranked {
		objs[i], elig[i] = []float64{q.x, q.y}, true
	}
	var stair []point
	for i, on := range paretoFront(objs, elig) {
		if on {
			stair = append(stair, ranked[i])
		}
	}
	if stair = byX(stair); len(stair) > 1 {
		c.series = append(c.series, series{name: "frontier (cost, TTFT)", kind: stepSeries, color: 8, pts: stair})
	}
	// The runs' common TTFT threshold, when they share one at P99.
	thr := math.NaN()
	for i, e := range plotted {
		t := e.run.slo.ttftMs
		if e.run.slo.ttftP != 99 || (i > 0 && t != thr) {
			thr = math.NaN()
			break
		}
		thr = t
	}
	if !math.IsNaN(thr) {
		c.hlines = append(c.hlines, refLine{v: thr, label: "SLO: TTFT P99 ≤ " + fmtNum(thr) + " ms"})
	}
	capt := "One marker per run (its scorecard row); marker area is proportional to Wh per output token. Filled markers are on the three-way Pareto frontier " +
		"(cost, energy, TTFT); hollow ones are dominated, break the SLO or lack an axis (hover for why). The grey staircase joins the ranked runs " +
		"that no other beats on both cost and TTFT."
	if len(missing) > 0 {
		capt += " Not plotted (no cost or TTFT, or another currency): " + clip(strings.Join(missing, ", "), 300) + "."
	}
	p.figure(c, capt)
}
