package htmlreport

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/report"
)

// toolName says which tool and layout wrote a report.
func toolName(rep *report.Report) string {
	ver := func(prefix, v string) string {
		if v == "" {
			return prefix
		}
		return prefix + " " + v
	}
	md := rep.Metadata
	if md == nil {
		md = &report.Metadata{}
	}
	switch rep.Layout {
	case report.LayoutGoodput, "":
		return ver("goodput", md.GoodputVersion)
	case report.LayoutV2:
		return ver("GuideLLM", md.GuideLLMVersion) + " (report v2)"
	case report.LayoutV1:
		return ver("GuideLLM", md.GuideLLMVersion) + " (v0.5–v0.6 layout)"
	case report.LayoutV04:
		return "GuideLLM (v0.4 layout)"
	case report.LayoutLegacy03:
		return "GuideLLM (v0.2–v0.3 layout)"
	}
	return string(rep.Layout)
}

// isGoodput reports whether a report was written by goodput.
func (v *runView) isGoodput() bool {
	return v.rep.Layout == report.LayoutGoodput || v.rep.Layout == "" || v.hasExtr
}

// startTime is when the run's first round began (Unix seconds), NaN if
// unknown.
func (v *runView) startTime() float64 {
	t0 := math.Inf(1)
	for _, r := range v.rounds {
		if s := roundStart(r.b); !math.IsNaN(s) {
			t0 = math.Min(t0, s)
		}
	}
	if math.IsInf(t0, 1) {
		return math.NaN()
	}
	return t0
}

// fmtUnix formats Unix seconds as a UTC time.
func fmtUnix(s float64) string {
	if math.IsNaN(s) || s <= 0 || s > 1e11 {
		return "–"
	}
	sec, frac := math.Modf(s)
	return time.Unix(int64(sec), int64(frac*1e9)).UTC().Format("2006-01-02 15:04:05 UTC")
}

// renderRunHeader writes the run's one-line identity and its key figures.
func renderRunHeader(p *page, v *runView) {
	parts := []string{"Tool: " + toolName(v.rep)}
	if m := v.model(); m != "" {
		parts = append(parts, "model: "+m)
	}
	if t := v.target(); t != "" {
		parts = append(parts, "target: "+t)
	}
	parts = append(parts, "started "+fmtUnix(v.startTime()),
		strconv.Itoa(len(v.rounds))+" "+plural(len(v.rounds), "round", "rounds"))
	p.el("p", `class="sub"`, clip(strings.Join(parts, " · "), 600))
	if v.extras != nil && v.extras.Interrupted {
		p.el("p", `class="warn"`, "This run was interrupted: the rounds shown are complete up to that moment, and the last one stopped early (stop reason \"interrupted\").")
	}
	if !v.isGoodput() {
		p.note("This report was written by " + toolName(v.rep) + ", which has none of goodput's extras: there is no SLO verdict, goodput, knee, " +
			"latency histogram (the distributions below are drawn from its 11 percentiles), error class, client-load check or telemetry. " +
			"Its latency percentiles count a missing value as 0 (GuideLLM's rule).")
	}

	// Key figures.
	var cards [][3]string
	if k := v.knee; k != nil && k.Found {
		cards = append(cards, [3]string{"Goodput at the knee", fmtNum(float64(k.GoodputOutputTokS)) + " tok/s",
			"throughput " + fmtNum(float64(k.ThroughputOutputTokS)) + " tok/s"})
		cards = append(cards, [3]string{"Knee load", kneeLoad(k), "round #" + strconv.FormatInt(int64(k.Index), 10)})
		if k.Replicas > 0 {
			cards = append(cards, [3]string{"Replicas for " + fmtNum(float64(k.TargetLoadTokS)) + " tok/s", strconv.FormatInt(int64(k.Replicas), 10),
				"ceil(target ÷ goodput at the knee)"})
		}
	}
	best, bestAt := math.NaN(), -1
	for i, r := range v.rounds {
		if !math.IsNaN(r.outTokS) && (math.IsNaN(best) || r.outTokS > best) {
			best, bestAt = r.outTokS, i
		}
	}
	if at, in := peakPooling(v); in != nil && in.Tokens > 0 {
		cards = append(cards, [3]string{"Peak pooling throughput", fmtNum(float64(in.TokensPerSecond)) + " input tok/s",
			"round " + v.rounds[at].name() + ", " + fmtNum(float64(in.PerSecond)) + " " + in.Kind + "/s"})
	} else if in != nil {
		cards = append(cards, [3]string{"Peak pooling throughput", fmtNum(float64(in.PerSecond)) + " " + in.Kind + "/s",
			"round " + v.rounds[at].name() + " (no token count known)"})
	} else if bestAt >= 0 {
		cards = append(cards, [3]string{"Peak throughput", fmtNum(best) + " tok/s", "round " + v.rounds[bestAt].name() + ", output tokens"})
	}
	if v.slo.spec != "" {
		pass, judged := 0, 0
		for _, r := range v.rounds {
			if r.slo != nil {
				judged++
				if r.slo.Pass {
					pass++
				}
			}
		}
		cards = append(cards, [3]string{"Rounds meeting the SLO", strconv.Itoa(pass) + " of " + strconv.Itoa(judged), v.slo.spec})
	}
	if len(cards) > 0 {
		p.raw(`<div class="cards">`)
		for _, c := range cards {
			p.raw(`<div class="card">`)
			p.el("div", `class="k"`, c[0])
			p.el("div", `class="v"`, c[1])
			p.el("div", `class="d"`, clip(c[2], 200))
			p.raw("</div>")
		}
		p.raw("</div>\n")
	}
}

// kneeLoad describes the load at the knee.
func kneeLoad(k *report.Knee) string {
	var parts []string
	if k.Streams > 0 {
		parts = append(parts, strconv.FormatInt(int64(k.Streams), 10)+" streams")
	}
	if k.Rate > 0 {
		parts = append(parts, fmtNum(float64(k.Rate))+" req/s")
	}
	if k.Concurrency > 0 && k.Streams == 0 {
		parts = append(parts, "concurrency "+fmtNum(float64(k.Concurrency)))
	}
	if len(parts) == 0 {
		return "–"
	}
	return strings.Join(parts, ", ")
}

// renderKnee writes the knee summary.
func renderKnee(p *page, v *runView) {
	h3(p, v, "knee", "Knee and capacity")
	k := v.knee
	if k == nil {
		switch {
		case !v.isGoodput():
			p.note("GuideLLM reports have no SLO and so no knee; the load curve below shows throughput and latency only.")
		default:
			p.note("No knee in this report: a knee comes from a sweep or knee search judged against an SLO.")
		}
		return
	}
	mode := k.Mode
	if mode == "" {
		mode = "sweep"
	}
	if !k.Found {
		s := "No knee found (" + mode + ")."
		if k.Reason != "" {
			s += " " + k.Reason
		}
		if k.Limit != "" {
			s += " Limit reached: " + k.Limit + "."
		}
		p.el("p", `class="warn"`, clip(s, 800))
		return
	}
	rows := [][]string{
		{"Knee round", "#" + strconv.FormatInt(int64(k.Index), 10) + " (" + mode + ")"},
		{"Load at the knee", kneeLoad(k)},
		{"Goodput at the knee", fmtNum(float64(k.GoodputOutputTokS)) + " output tok/s (requests meeting the SLO)"},
		{"Throughput at the knee", fmtNum(float64(k.ThroughputOutputTokS)) + " output tok/s"},
		{"Capacity per replica", fmtNum(float64(k.GoodputOutputTokS)) + " output tok/s within the SLO"},
		{"TTFT P99 at the knee", positiveMs(k.TTFTP99Ms)},
		{"ITL P95 at the knee", positiveMs(k.ITLP95Ms)},
	}
	if k.Concurrency > 0 {
		rows = append(rows, []string{"Achieved concurrency", fmtNum(float64(k.Concurrency))})
	}
	if k.TargetLoadTokS > 0 {
		rows = append(rows, []string{"Replicas for a target load", strconv.FormatInt(int64(k.Replicas), 10) + " for " +
			fmtNum(float64(k.TargetLoadTokS)) + " output tok/s (ceil(target ÷ goodput at the knee))"})
	} else {
		rows = append(rows, []string{"Replicas for a target load", "no target load given"})
	}
	if k.Above >= 0 {
		rows = append(rows, []string{"First failing load above", "round #" + strconv.FormatInt(int64(k.Above), 10) + roundLoadSuffix(v, int(k.Above))})
	}
	if k.Reason != "" {
		rows = append(rows, []string{"Why", k.Reason})
	}
	kvTable(p, "Knee", rows, nil)
}

// positiveMs formats a latency in ms, "–" when not set (0).
func positiveMs(f report.Float) string {
	if !(f > 0) {
		return "–"
	}
	return fmtNum(float64(f)) + " ms"
}

// roundLoadSuffix describes the load of the round run index i names,
// " (…)", or "".
func roundLoadSuffix(v *runView, i int) string {
	if k := v.roundAt(int64(i)); k >= 0 {
		return " (" + v.rounds[k].label + ")"
	}
	return ""
}

// renderRounds writes the per-round summary table.
func renderRounds(p *page, v *runView) {
	h3(p, v, "rounds", "Rounds")
	if len(v.rounds) == 0 {
		p.note("This report has no benchmark.")
		return
	}
	ttftH, itlH := "TTFT "+pctName(v.slo.ttftP)+" ms", "ITL "+pctName(v.slo.itlP)+" ms"
	t := &table{head: []string{"#", "Strategy", v.load.short, "Duration s", "Requests ok / err / inc", "Req/s",
		"Out tok/s", "Goodput tok/s", ttftH, itlH, "Error rate", "SLO", "Client"}}
	var notes []string
	for k, r := range v.rounds {
		b := r.b
		counts := "–"
		if rt := b.Metrics.RequestTotals; rt != nil {
			counts = fmtInt(int64(rt.Successful)) + " / " + fmtInt(int64(rt.Errored)) + " / " + fmtInt(int64(rt.Incomplete))
		}
		dur := math.NaN()
		if b.Duration != nil {
			dur = float64(*b.Duration)
		}
		errRate := math.NaN()
		if g := b.Extras; g != nil {
			errRate = float64(g.Errors.ErrorRate)
		} else if rt := b.Metrics.RequestTotals; rt != nil && rt.Total > 0 {
			errRate = float64(rt.Errored) / float64(rt.Total)
		}
		slo := cell{text: "–"}
		if r.slo != nil {
			slo = cell{text: "fail", class: "fail"}
			if r.slo.Pass {
				slo = cell{text: "pass", class: "pass"}
			}
			var why []string
			for _, o := range r.slo.Objectives {
				verdict := "fail"
				if o.Pass {
					verdict = "pass"
				}
				why = append(why, o.Key+": "+objectiveMeasured(o)+" (threshold "+objectiveThreshold(o)+") "+verdict)
			}
			slo.title = strings.Join(why, "\n")
		}
		client := cell{text: "–"}
		if g := b.Extras; g != nil && g.Client != nil {
			title := "client CPU " + fmtNum(float64(g.Client.Cores)) + " cores; timer lag P99 " + fmtNum(float64(g.Client.SchedLagP99us)) + " µs"
			if g.Client.ReadLagSamples > 0 {
				title += "; read lag P99 " + fmtNum(float64(g.Client.ReadLagP99us)) + " µs"
			}
			if g.Client.ArrivalTimestamps != "" {
				title += "; arrival timestamps: " + g.Client.ArrivalTimestamps
			}
			if g.Client.HTTPClient != "" {
				title += "; HTTP client: " + g.Client.HTTPClient
			}
			client = cell{text: "ok", title: title}
			if g.Client.Saturated {
				client = cell{text: "saturated", class: "fail", title: g.Client.Reason}
				notes = append(notes, "round "+r.name()+": the load generator was saturated ("+g.Client.Reason+"); its latency figures are unreliable.")
			}
		}
		if g := b.Extras; g != nil && !g.Exact {
			for _, reason := range g.InexactReasons {
				notes = append(notes, "round "+r.name()+" is approximate: "+reason)
			}
		}
		row := []cell{numCell(strconv.Itoa(r.i)), {text: r.label}, numCell(fmtNum(r.load)), numCell(fmtNum(dur)), numCell(counts),
			numCell(fmtNum(r.reqRate)), numCell(fmtNum(r.outTokS)), numCell(fmtNum(r.goodput)), numCell(fmtNum(r.ttft)), numCell(fmtNum(r.itl)),
			numCell(fmtPct(errRate)), slo, client}
		if k == v.kneeAt {
			row[1].text += " (knee)"
		}
		t.rows = append(t.rows, row)
	}
	p.table(t)
	renderPooling(p, v)
	src := map[source]bool{}
	for _, r := range v.rounds {
		src[r.ttftSrc], src[r.itlSrc] = true, true
	}
	var srcs []string
	for _, s := range []source{srcSLO, srcExtras, srcGuideLLM} {
		if src[s] {
			srcs = append(srcs, s.String())
		}
	}
	if len(srcs) > 0 {
		p.el("p", `class="sub"`, "Latency columns come from "+strings.Join(srcs, "; ")+". Requests are those in each round's measurement window; throughput and goodput are output tokens per second over that window.")
	}
	for _, n := range notes {
		p.el("p", `class="warn"`, clip(n, 600))
	}
}

// peakPooling is the pooling round with the most input tokens per
// second and its figures; -1 and nil when no round pooled.
func peakPooling(v *runView) (int, *report.InputFigures) {
	at := -1
	var best *report.InputFigures
	for i, r := range v.rounds {
		if in := r.b.PoolingInputs(); in != nil && (best == nil || in.TokensPerSecond > best.TokensPerSecond ||
			in.TokensPerSecond == best.TokensPerSecond && in.PerSecond > best.PerSecond) {
			at, best = i, in
		}
	}
	return at, best
}

// renderPooling gives the pooling rounds' throughput (embeddings, rerank,
// score have no output tokens): input tokens and inputs per second.
func renderPooling(p *page, v *runView) {
	t := &table{caption: "Pooling throughput (a pooling request has no output tokens)", head: []string{"#", "Strategy", "Kind", "Input tok/s", "Items/s", "Items", "Items per request"}}
	for _, r := range v.rounds {
		in := r.b.PoolingInputs()
		if in == nil {
			continue
		}
		tokS := "–" // no token count known (TEI's rerank without a tokenizer)
		if in.Tokens > 0 {
			tokS = fmtNum(float64(in.TokensPerSecond))
		}
		t.rows = append(t.rows, []cell{numCell(strconv.Itoa(r.i)), {text: r.label}, {text: in.Kind}, numCell(tokS),
			numCell(fmtNum(float64(in.PerSecond))), numCell(fmtInt(int64(in.Total))), numCell(fmtNum(float64(in.PerRequest)))})
	}
	if len(t.rows) > 0 {
		p.table(t)
	}
}
