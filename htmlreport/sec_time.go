package htmlreport

import (
	"math"
	"strconv"

	"github.com/goodput-dev/goodput/report"
)

// roundBounds adds a vertical guide at each round's start (seconds after
// t0).
func roundBounds(c *chart, v *runView, t0 float64) {
	if len(v.rounds) > 40 {
		return // guides would hide the data
	}
	for _, r := range v.rounds {
		if s := roundStart(r.b); !math.IsNaN(s) {
			c.vlines = append(c.vlines, refLine{v: s - t0, label: "#" + strconv.Itoa(r.i)})
		}
	}
}

// roundStart is when a round began sending (Unix seconds): the
// scheduler's first request, else its start, else the start of the
// measurement window (GuideLLM's start_time, after warmup); NaN if none.
func roundStart(b *report.Benchmark) float64 {
	var cands []*report.Float
	if m := b.SchedulerMetrics; m != nil {
		cands = append(cands, m.RequestStartTime, m.StartTime)
	}
	for _, p := range append(cands, b.StartTime) {
		if p != nil && *p > 0 && usable(float64(*p)) {
			return float64(*p)
		}
	}
	return math.NaN()
}

// renderTimeline writes completions per second and requests in flight
// over the run: per time bin from the records when given, else per round
// from the report's means.
func renderTimeline(p *page, v *runView, tl *timeline) {
	h3(p, v, "time", "Requests over time")
	if tl != nil {
		renderRecordTimeline(p, v, tl)
		return
	}
	renderReportTimeline(p, v)
}

func renderRecordTimeline(p *page, v *runView, tl *timeline) {
	xLabel := "Time since " + fmtUnix(tl.t0) + " (s)"
	rate := &chart{id: v.id + "-time-rate", title: "Completed and errored requests per second", x: axis{label: xLabel, zero: true},
		y: axis{label: "Requests per second", zero: true}, height: 200}
	fl := &chart{id: v.id + "-time-flight", title: "Requests in flight", x: axis{label: xLabel, zero: true},
		y: axis{label: "Requests in flight", zero: true}, height: 180}
	ok := series{name: "completed (successful)", kind: stepSeries, color: 0}
	er := series{name: "errored", kind: stepSeries, color: 1}
	inc := series{name: "incomplete (cancelled)", kind: stepSeries, color: 4}
	in := series{name: "in flight", kind: stepSeries, color: 6}
	var anyErr, anyInc bool
	first, last := -1, -1
	for k := range tl.ok {
		if tl.ok[k]+tl.errd[k] > 0 || tl.inflight[k] > 0 {
			if first < 0 {
				first = k
			}
			last = k
		}
	}
	if first < 0 {
		p.note("The records (" + v.records.Name() + ") hold no completed request.")
		return
	}
	for k := first; k <= last+1 && k < len(tl.ok)+1; k++ {
		x := float64(k) * tl.width
		j := min(k, last) // the closing point repeats the last bin's value
		e := tl.errd[j] - tl.inc[j]
		ok.pts = append(ok.pts, point{x: x, y: tl.ok[j] / tl.width})
		er.pts = append(er.pts, point{x: x, y: e / tl.width})
		inc.pts = append(inc.pts, point{x: x, y: tl.inc[j] / tl.width})
		in.pts = append(in.pts, point{x: x, y: tl.inflight[j]})
		anyErr = anyErr || e > 0
		anyInc = anyInc || tl.inc[j] > 0
	}
	rate.series = append(rate.series, ok)
	if anyErr {
		rate.series = append(rate.series, er)
	}
	if anyInc {
		rate.series = append(rate.series, inc)
	}
	fl.series = append(fl.series, in)
	roundBounds(rate, v, tl.t0)
	roundBounds(fl, v, tl.t0)
	capt := "From " + strconv.FormatInt(tl.records, 10) + " per-request records in " + v.records.Name() + ", in bins of " + fmtNum(tl.width) +
		" s, by the time each request ended; dashed guides mark each round's start."
	if tl.clamped > 0 {
		capt += " " + strconv.FormatInt(tl.clamped, 10) + " records ended outside the report's time span and are counted in its first or last bin."
	}
	p.figure(rate, capt)
	p.figure(fl, "Mean number of requests between dispatch and end in each bin, from the same records.")
}

func renderReportTimeline(p *page, v *runView) {
	t0 := math.Inf(1)
	type span struct {
		r    *roundView
		s, e float64
	}
	var spans []span
	for _, r := range v.rounds {
		s, e := roundWindow(r.b)
		if math.IsNaN(s) {
			continue
		}
		spans = append(spans, span{r, s, e})
		t0 = math.Min(t0, s)
	}
	if len(spans) == 0 {
		p.note("This report has no round start and end times, and no per-request records were given: nothing to draw over time.")
		return
	}
	xLabel := "Time since " + fmtUnix(t0) + " (s)"
	rate := &chart{id: v.id + "-time-rate", title: "Completed and errored requests per second, per round", x: axis{label: xLabel, zero: true},
		y: axis{label: "Requests per second (round mean)", zero: true}, height: 200}
	fl := &chart{id: v.id + "-time-flight", title: "Requests in flight, per round", x: axis{label: xLabel, zero: true},
		y: axis{label: "Requests in flight (round mean)", zero: true}, height: 180}
	ok := series{name: "completed (successful)", kind: stepSeries, color: 0}
	er := series{name: "errored", kind: stepSeries, color: 1}
	in := series{name: "in flight", kind: stepSeries, color: 6}
	gap := point{x: math.NaN(), y: math.NaN()}
	var anyErr bool
	for _, sp := range spans {
		m := &sp.r.b.Metrics
		add := func(s *series, y float64) {
			if math.IsNaN(y) {
				return
			}
			tip := sp.r.name() + ": " + fmtNum(y)
			s.pts = append(s.pts, point{x: sp.s - t0, y: y, tip: tip}, point{x: sp.e - t0, y: y}, gap)
		}
		add(&ok, statusMean(m.RequestsPerSecond, "successful"))
		if e := statusMean(m.RequestsPerSecond, "errored"); e > 0 {
			anyErr = true
			add(&er, e)
		}
		add(&in, mean(m.RequestConcurrency, true))
	}
	rate.series = append(rate.series, ok)
	if anyErr {
		rate.series = append(rate.series, er)
	}
	fl.series = append(fl.series, in)
	p.figure(rate, "From the report: each round's mean completion rate over its measurement window (one step per round). "+
		"No per-request records were given; with goodput's requests.jsonl the page draws these per time bin.")
	p.figure(fl, "From the report: each round's time-weighted mean number of requests in flight over its measurement window.")
}

// roundWindow is a round's measurement window (Unix seconds), else its
// start and end; NaN when unknown.
func roundWindow(b *report.Benchmark) (float64, float64) {
	get := func(p *report.Float) float64 {
		if p == nil || !(*p > 0) || !usable(float64(*p)) {
			return math.NaN()
		}
		return float64(*p)
	}
	if m := b.SchedulerMetrics; m != nil {
		s, e := get(m.MeasureStartTime), get(m.MeasureEndTime)
		if e > s {
			return s, e
		}
	}
	s, e := get(b.StartTime), get(b.EndTime)
	if e > s {
		return s, e
	}
	return math.NaN(), math.NaN()
}

// statusMean is the mean of one status member of a distribution, NaN if
// absent.
func statusMean(d *report.StatusDistributionSummary, status string) float64 {
	if d == nil {
		return math.NaN()
	}
	var s *report.DistributionSummary
	switch status {
	case "successful":
		s = d.Successful
	case "errored":
		s = d.Errored
	case "incomplete":
		s = d.Incomplete
	default:
		s = d.Total
	}
	if s == nil {
		return math.NaN()
	}
	return float64(s.Mean)
}
