package htmlreport

import (
	"math"
	"slices"
	"strings"
)

// byX sorts points by x (stable, so equal loads keep the run's order):
// a sweep's achieved rates need not grow with the round index.
func byX(pts []point) []point {
	slices.SortStableFunc(pts, func(a, b point) int {
		switch {
		case a.x < b.x:
			return -1
		case a.x > b.x:
			return 1
		}
		return 0
	})
	return pts
}

// roundSeries is one figure of every round against the load.
func roundSeries(v *runView, name string, color int, fig func(*roundView) float64, unit string) series {
	s := series{name: name, kind: lineSeries, dots: true, color: color}
	for _, r := range v.rounds {
		y := fig(r)
		if math.IsNaN(y) || math.IsNaN(r.load) {
			continue
		}
		s.pts = append(s.pts, point{x: r.load, y: y, tip: r.name() + ": " + fmtNum(y) + " " + unit + " at " + fmtNum(r.load) + " " + v.load.unit})
	}
	s.pts = byX(s.pts)
	return s
}

// withBars adds each round's interval of fig (ci) to a round series as
// error bars, and to the tooltips.
func withBars(s series, v *runView, ci func(*roundView) (lo, hi float64)) series {
	byLoad := map[float64][2]float64{}
	for _, r := range v.rounds {
		lo, hi := ci(r)
		if !math.IsNaN(lo) && !math.IsNaN(hi) {
			byLoad[r.load] = [2]float64{lo, hi}
		}
	}
	for i := range s.pts {
		if b, ok := byLoad[s.pts[i].x]; ok {
			s.pts[i].bar, s.pts[i].lo, s.pts[i].hi = true, b[0], b[1]
			s.pts[i].tip += " [" + bound(b[0]) + ", " + bound(b[1]) + "]"
		}
	}
	return s
}

// bound writes an interval bound, "?" for one the sample cannot give.
func bound(v float64) string {
	if math.IsInf(v, 0) {
		return "?"
	}
	return fmtNum(v)
}

// wantLog says whether positive values spread enough to need a log axis.
func wantLog(ss ...series) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		for _, p := range s.pts {
			if p.y > 0 && usable(p.y) {
				lo, hi = math.Min(lo, p.y), math.Max(hi, p.y)
			}
		}
	}
	return hi/lo > 30
}

// kneeMark adds the knee's marker at the knee round's value of fig and a
// vertical guide at its load.
func kneeMark(c *chart, v *runView, fig func(*roundView) float64, unit string) {
	if v.kneeAt < 0 {
		return
	}
	r := v.rounds[v.kneeAt]
	if math.IsNaN(r.load) {
		return
	}
	if y := fig(r); !math.IsNaN(y) {
		c.vlines = append(c.vlines, refLine{v: r.load})
		c.marks = append(c.marks, marker{x: r.load, y: y, label: "knee " + fmtNum(y) + " " + unit})
		return
	}
	c.vlines = append(c.vlines, refLine{v: r.load, label: "knee"})
}

// renderLoadCurve writes throughput and goodput, TTFT and ITL against the
// load, with the SLO thresholds and the knee.
func renderLoadCurve(p *page, v *runView) {
	h3(p, v, "load", "Load curve")
	if len(v.rounds) == 0 {
		p.note("No round to plot.")
		return
	}
	outTok := func(r *roundView) float64 { return r.outTokS }
	good := func(r *roundView) float64 { return r.goodput }
	c := &chart{id: v.id + "-load-tput", title: "Throughput and goodput against " + strings.ToLower(v.load.label),
		x: axis{label: v.load.label, zero: true}, y: axis{label: "Output tokens per second", zero: true}}
	c.series = append(c.series, roundSeries(v, "throughput (all successful requests)", 0, outTok, "tok/s"))
	gs := roundSeries(v, "goodput (requests meeting the SLO)", 2, good, "tok/s")
	if len(gs.pts) > 0 {
		c.series = append(c.series, gs)
		kneeMark(c, v, good, "tok/s")
	} else {
		kneeMark(c, v, outTok, "tok/s")
	}
	capt := "Each point is one round. Throughput counts every successful request's output tokens, goodput only those of requests that met every per-request threshold of the SLO; both over the round's measurement window."
	if len(gs.pts) == 0 {
		capt += " No goodput: this report has no SLO verdicts."
	}
	if v.kneeAt >= 0 {
		capt += " The diamond marks the knee: the highest load whose goodput still meets the SLO."
	}
	p.figure(c, capt)

	for _, m := range []struct {
		key, name, metric string
		pct, thr          float64
		fig               func(*roundView) float64
		src               func(*roundView) source
		ci                func(*roundView) (float64, float64)
		color             int
	}{
		{"ttft", "TTFT", "ttft", v.slo.ttftP, v.slo.ttftMs, func(r *roundView) float64 { return r.ttft }, func(r *roundView) source { return r.ttftSrc },
			func(r *roundView) (float64, float64) { return r.ttftCI[0], r.ttftCI[1] }, 1},
		{"itl", "ITL", "itl", v.slo.itlP, v.slo.itlMs, func(r *roundView) float64 { return r.itl }, func(r *roundView) source { return r.itlSrc },
			func(r *roundView) (float64, float64) { return r.itlCI[0], r.itlCI[1] }, 4},
	} {
		label := m.name + " " + pctName(m.pct)
		s := withBars(roundSeries(v, label, m.color, m.fig, "ms"), v, m.ci)
		c := &chart{id: v.id + "-load-" + m.key, title: label + " against " + strings.ToLower(v.load.label),
			x: axis{label: v.load.label, zero: true}, y: axis{label: label + " (ms)", zero: true}, series: []series{s}}
		if !math.IsNaN(m.thr) {
			c.hlines = append(c.hlines, refLine{v: m.thr, label: "SLO: " + label + " ≤ " + fmtNum(m.thr) + " ms"})
		}
		if wantLog(s) {
			c.y = axis{label: label + " (ms, log scale)", log: true}
		}
		kneeMark(c, v, m.fig, "ms")
		srcs := map[source]bool{}
		for _, r := range v.rounds {
			srcs[m.src(r)] = true
		}
		var from []string
		for _, sr := range []source{srcSLO, srcExtras, srcGuideLLM} {
			if srcs[sr] {
				from = append(from, sr.String())
			}
		}
		capt := label + " of each round"
		if len(from) > 0 {
			capt += ", from " + strings.Join(from, "; ")
		}
		capt += "."
		if !math.IsNaN(m.thr) {
			capt += " The dashed red line is the SLO threshold."
		}
		for _, pt := range s.pts {
			if pt.bar {
				capt += " Bars are the percentile's confidence interval; one that runs to the edge has no bound on that side (too few requests)."
				break
			}
		}
		if m.key == "itl" {
			capt += " ITL is GuideLLM's per-request inter-token latency, (last token − first token) ÷ (output tokens − 1), weighted by tokens."
		}
		p.figure(c, capt)
	}
}
