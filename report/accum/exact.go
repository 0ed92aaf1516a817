package accum

import (
	"fmt"
	"math"

	"github.com/goodput-dev/goodput/metric"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/stats"
)

// scratch holds Finish's reusable memory: one sample array as long as the
// in-window requests and the dense per-status arrays, so that the dozens
// of distributions of a benchmark need memory for one array rather than
// one per distribution.
type scratch struct {
	a     []stats.Tagged
	dense [report.NumStatus][]float64     // integer values of value distributions
	conc  [report.NumStatus + 1][]float64 // concurrency levels, one per stream
}

func newScratch(n int) *scratch {
	return &scratch{a: make([]stats.Tagged, 0, n+8)}
}

// exact computes GuideLLM's metrics and goodput's extras from the stored
// summaries of the in-window requests (the path below Config.ExactCap).
type exact struct {
	a       *Accumulator
	in      []int32 // in-window requests, in Add order
	w       MeasureWindow
	sc      *scratch
	byEnd   []int32 // in sorted by end time
	byStart []int32 // in sorted by start time
}

func (a *Accumulator) newExact(in []int32, w MeasureWindow) *exact {
	e := &exact{a: a, in: in, w: w, sc: newScratch(len(in))}
	e.byEnd = e.order(endTime)
	e.byStart = e.order(func(s *RequestSummary) int64 { return s.start })
	return e
}

func (e *exact) sum(i int32) *RequestSummary { return e.a.sums.at(int(i)) }

// order returns the in-window requests sorted by the time key(s), in
// Unix seconds as the streams see it.
func (e *exact) order(key func(*RequestSummary) int64) []int32 {
	ss := e.sc.a[:0]
	for _, i := range e.in {
		ss = append(ss, stats.Tagged{Value: NsToSec(key(e.sum(i))), Weight: float64(i)})
	}
	stats.SortSamples(ss)
	out := make([]int32, len(ss))
	for k := range ss {
		out[k] = int32(ss[k].Weight)
	}
	return out
}

func (e *exact) values() *stats.ValueSet { return stats.NewValueSet(e.sc.a, &e.sc.dense) }

// sampleFn gives a request's value and weight, ok false when GuideLLM's
// property is None.
type sampleFn func(s *RequestSummary) (v, w float64, ok bool)

// pair computes a distribution twice from one pass: over the requests
// that have a value (goodput's "absent means absent" figure) and the way
// GuideLLM does, where a request without a value counts as 0 with weight
// zeroW.
func (e *exact) pair(f sampleFn, zeroW func(s *RequestSummary) float64) (guidellm, present *report.StatusDistributionSummary) {
	vs := e.values()
	var zeros [report.NumStatus]float64
	var absent [report.NumStatus]bool
	for _, i := range e.in {
		s := e.sum(i)
		if v, w, ok := f(s); ok {
			vs.Add(v, w, s.status)
		} else {
			zeros[s.status] += zeroW(s)
			absent[s.status] = true
		}
	}
	ls := vs.Lists()
	present = stats.StatusSummaryListsCI(ls, e.a.confidence(), [report.NumStatus + 1]bool{true, true, true, true})
	// GuideLLM's figure differs only for the statuses (and the total) with
	// requests that lack the value.
	var redo [report.NumStatus + 1]bool
	for st := uint8(0); st < report.NumStatus; st++ {
		if absent[st] {
			ls[st] = append(ls[st], []stats.Tagged{{Value: 0, Weight: zeros[st], Status: st}})
			redo[st], redo[report.NumStatus] = true, true
		}
	}
	guidellm = stats.StatusSummaryListsCI(ls, e.a.confidence(), redo)
	for st := uint8(0); st <= report.NumStatus; st++ {
		if !redo[st] {
			d := *present.ByStatus(st)
			guidellm.SetStatus(st, &d)
		}
	}
	return guidellm, present
}

// single computes one distribution over the requests f gives a value for.
func (e *exact) single(f sampleFn) *report.StatusDistributionSummary {
	vs := e.values()
	for _, i := range e.in {
		s := e.sum(i)
		if v, w, ok := f(s); ok {
			vs.Add(v, w, s.status)
		}
	}
	return stats.StatusSummaryListsCI(vs.Lists(), e.a.confidence())
}

func unit(*RequestSummary) float64 { return 1 }

// latency computes metric l's distributions: GuideLLM's and goodput's from
// the summaries, or goodput's from the histogram where the value needs the
// chunk times.
func (e *exact) latency(l *metric.Latency, m *report.Metrics, x *report.ExtraMetrics) {
	if l.Extra == nil {
		return
	}
	if l.Chunks {
		*l.Extra(x) = StatusFromAccs(e.a.hist[l.Slot], l.Scale(), e.a.confidence())
		return
	}
	scale := l.Scale()
	f := func(s *RequestSummary) (float64, float64, bool) {
		r := s.timing(nil)
		v, ok := l.Value(r)
		return v / scale, float64(l.Samples(r.OutputTokens)), ok
	}
	if l.Guide == nil {
		*l.Extra(x) = e.single(f)
		return
	}
	zero := func(s *RequestSummary) float64 {
		out, _ := s.outputTokens()
		return float64(l.Samples(out))
	}
	*l.Guide(m), *l.Extra(x) = e.pair(f, zero)
}

func promptSample(s *RequestSummary) (float64, float64, bool) {
	p, ok := s.promptTokens()
	return float64(p), 1, ok
}

// metrics computes GuideLLM's GenerativeMetrics and goodput's
// distributions.
func (e *exact) metrics(ex *report.Extras) (report.Metrics, report.ExtraMetrics) {
	var m report.Metrics
	var x report.ExtraMetrics
	var counts [report.NumStatus]int64
	for _, i := range e.in {
		counts[e.sum(i).status]++
	}
	m.RequestTotals = &report.StatusCounts{
		Successful: report.Int(counts[report.StatusSuccessful]), Errored: report.Int(counts[report.StatusErrored]),
		Incomplete: report.Int(counts[report.StatusIncomplete]), Total: report.Int(len(e.in)),
	}
	for _, l := range metric.All {
		e.latency(l, &m, &x)
	}
	m.RequestStreamingIterationsCount = e.single(func(s *RequestSummary) (float64, float64, bool) { return float64(s.reqIters), 1, true })
	m.OutputTokenCount = e.single(func(s *RequestSummary) (float64, float64, bool) {
		v, ok := s.outputTokens()
		if !ok {
			v = 0
		}
		return float64(v), 1, true
	})
	m.TotalTokenCount = e.single(func(s *RequestSummary) (float64, float64, bool) {
		v, ok := s.totalTokens()
		if !ok {
			v = 0
		}
		return float64(v), 1, true
	})
	m.OutputTokensPerIteration = e.perIteration(true)
	m.IterTokensPerIteration = e.perIteration(false)

	win := stats.Window{Start: NsToSec(e.w.Start), End: NsToSec(e.w.End), HasStart: true, HasEnd: true}
	all := func(*RequestSummary) bool { return true }
	m.RequestsPerSecond = e.rates(e.byEnd, all, endTime, unit, win)
	m.RequestConcurrency = e.concurrency(all, unit, win)
	byPrompt := e.order((*RequestSummary).promptEventNs)
	m.PromptTokensPerSecond = e.rates(byPrompt, all, (*RequestSummary).promptEventNs, promptWeight, stats.Window{})
	e.tokenRates(&m, ex)
	m.Text = &report.TextMetrics{}
	m.PromptTokenCount, m.Text.Tokens = e.textTokens()
	m.Image, m.Video, m.Audio = e.mediaMetrics()
	m.ToolCall = &report.ToolCallMetrics{}
	return m, x
}

// perIteration computes output_tokens_per_iteration (withFirst) or
// iter_tokens_per_iteration. GuideLLM lists one value per output event
// (the first event worth one token, then iter_tokens_per_iteration per
// further iteration); equal values are merged by from_values anyway, so
// each request contributes weighted samples.
func (e *exact) perIteration(withFirst bool) *report.StatusDistributionSummary {
	vs := e.values()
	for _, i := range e.in {
		s := e.sum(i)
		out, ok := s.outputTokens()
		if s.first == 0 || s.last == 0 || s.tokIters <= 1 {
			if withFirst {
				if !ok {
					out = 0
				}
				vs.Add(float64(out), 1, s.status)
			}
			continue
		}
		if withFirst {
			first := 0.0
			if ok && out != 0 {
				first = 1
			}
			vs.Add(first, 1, s.status)
		}
		if tpi, ok := s.iterTokensPerIteration(); ok {
			vs.Add(tpi, float64(s.tokIters-1), s.status)
		}
	}
	return stats.StatusSummaryListsCI(vs.Lists(), e.a.confidence())
}

// Event times and weights of the per-request rate and concurrency
// distributions.
func endTime(s *RequestSummary) int64 { return s.end }

func promptWeight(s *RequestSummary) float64 {
	if p, ok := s.promptTokens(); ok {
		return float64(p)
	}
	return 0
}

func textOutWeight(s *RequestSummary) float64 { return math.Max(float64(s.usageOut), 0) }

func textTotalWeight(s *RequestSummary) float64 { return promptWeight(s) + textOutWeight(s) }

func hasText(s *RequestSummary) bool { return s.prompt >= 0 || s.usageOut >= 0 }

// rates is the rate distribution of one event per selected request, at
// time at(s) with weight weight(s); order lists the requests by at(). Each
// status, then all of them, is one stream over the order, its (rate,
// duration) pairs kept in the scratch array.
func (e *exact) rates(order []int32, sel func(*RequestSummary) bool, at func(*RequestSummary) int64, weight func(*RequestSummary) float64, win stats.Window) *report.StatusDistributionSummary {
	out := &report.StatusDistributionSummary{}
	for st := uint8(0); st <= report.NumStatus; st++ {
		r := stats.NewRateStream(win, e.sc.a)
		for _, i := range order {
			s := e.sum(i)
			if (st == report.NumStatus || s.status == st) && sel(s) {
				r.Push(NsToSec(at(s)), weight(s))
			}
		}
		d := r.Finish()
		if cap(r.Sink) > cap(e.sc.a) {
			e.sc.a = r.Sink[:0]
		}
		out.SetStatus(st, &d)
	}
	return out
}

// concurrency is the concurrency distribution of the selected in-window
// requests, each weighted by weight(s) from its start to its end. One
// merge of the start and end orders feeds the four streams.
func (e *exact) concurrency(sel func(*RequestSummary) bool, weight func(*RequestSummary) float64, win stats.Window) *report.StatusDistributionSummary {
	keep := func(s *RequestSummary) bool {
		return sel(s) && !(win.HasStart && NsToSec(s.end) < win.Start) && !(win.HasEnd && NsToSec(s.start) > win.End)
	}
	var streams [report.NumStatus + 1]*stats.ConcStream
	for st := range streams {
		streams[st] = stats.NewConcStream(win, e.sc.conc[st])
	}
	var counts [report.NumStatus]int64
	push := func(s *RequestSummary, t, w float64) {
		streams[s.status].Push(t, w)
		streams[report.NumStatus].Push(t, w)
	}
	starts, ends := e.byStart, e.byEnd
	si, ei := 0, 0
	for {
		for si < len(starts) && !keep(e.sum(starts[si])) {
			si++
		}
		for ei < len(ends) && !keep(e.sum(ends[ei])) {
			ei++
		}
		if si >= len(starts) && ei >= len(ends) {
			break
		}
		var s *RequestSummary
		var ts float64
		if si < len(starts) {
			s = e.sum(starts[si])
			ts = NsToSec(s.start)
		}
		if ei < len(ends) {
			t := e.sum(ends[ei])
			if te := NsToSec(t.end); s == nil || te < ts {
				push(t, te, -weight(t))
				ei++
				continue
			}
		}
		push(s, ts, weight(s))
		counts[s.status]++
		si++
	}
	out := &report.StatusDistributionSummary{}
	total := int64(0)
	for st := uint8(0); st <= report.NumStatus; st++ {
		n := total
		if st < report.NumStatus {
			n = counts[st]
			total += n
		}
		d := streams[st].Finish(n)
		e.sc.conc[st] = streams[st].Dense
		out.SetStatus(st, &d)
	}
	return out
}

// tokenRates computes output_tokens_per_second and tokens_per_second
// (GuideLLM: rate distributions over the token events, not clipped to the
// window).
func (e *exact) tokenRates(m *report.Metrics, ex *report.Extras) {
	events := len(e.in) // one prompt event per request
	for _, i := range e.in {
		events += e.sum(i).outputEventCount()
	}
	if events > e.a.tokenEventCap {
		m.OutputTokensPerSecond, m.TokensPerSecond = e.a.binnedTokenRates(e.in)
		ex.Exact = false
		ex.InexactReasons = append(ex.InexactReasons, fmt.Sprintf(
			"%d token events exceed the token event cap of %d: output_tokens_per_second and tokens_per_second are computed from %d time bins (mean and count exact)", events, e.a.tokenEventCap, binnedTokenBins))
		return
	}
	ev := make([]stats.Tagged, 0, events)
	sink := make([]stats.Tagged, 0, events+2)
	for _, i := range e.in {
		s := e.sum(i)
		st := s.status
		s.outputEvents(func(t, w float64) { ev = append(ev, stats.Tagged{Value: t, Weight: w, Status: st}) })
	}
	stats.SortSamples(ev)
	m.OutputTokensPerSecond = statusRates(ev, sink, stats.Window{})
	for _, i := range e.in {
		s := e.sum(i)
		ev = append(ev, stats.Tagged{Value: NsToSec(s.promptEventNs()), Weight: promptWeight(s), Status: s.status})
	}
	stats.SortSamples(ev)
	m.TokensPerSecond = statusRates(ev, sink, stats.Window{})
}

// statusRates runs one rate distribution per status and one over all
// statuses on time-sorted events.
func statusRates(ev []stats.Tagged, sink []stats.Tagged, win stats.Window) *report.StatusDistributionSummary {
	out := &report.StatusDistributionSummary{}
	for st := uint8(0); st <= report.NumStatus; st++ {
		r := stats.NewRateStream(win, sink)
		for i := range ev {
			if st == report.NumStatus || ev[i].Status == st {
				r.Push(ev[i].Value, ev[i].Weight)
			}
		}
		d := r.Finish()
		out.SetStatus(st, &d)
	}
	return out
}

// textTokens computes prompt_token_count and GuideLLM's
// GenerativeMetricsSummary for text_tokens: the prompt tokens (input) and
// the usage-reported output tokens (output) of each request that has
// either, as values, as rates at the request end and as concurrency over
// the request; "total" pools both sides as values and adds them as rates
// and concurrency.
func (e *exact) textTokens() (*report.StatusDistributionSummary, *report.MetricsSummary) {
	hasIn, hasOut := false, false
	for _, i := range e.in {
		s := e.sum(i)
		hasIn = hasIn || s.prompt >= 0
		hasOut = hasOut || s.usageOut >= 0
	}
	promptCount, ins := e.pair(promptSample, unit)
	if !hasIn && !hasOut {
		return promptCount, nil
	}
	ms := &report.MetricsSummary{}
	// Token counts are integers: the value sets count them in dense
	// arrays, so both sides' lists are small and can be kept together.
	inLists := e.lists(func(s *RequestSummary) (float64, bool) { p, ok := s.promptTokens(); return float64(p), ok })
	outLists := e.lists(func(s *RequestSummary) (float64, bool) { return float64(s.usageOut), s.usageOut >= 0 })
	if hasIn {
		ms.Input = ins
	}
	if hasOut {
		ms.Output = stats.StatusSummaryListsCI(outLists, e.a.confidence())
	}
	if hasIn && hasOut {
		var pooled stats.StatusLists
		for st := range pooled {
			pooled[st] = append(append([][]stats.Tagged{}, inLists[st]...), outLists[st]...)
		}
		ms.Total = stats.StatusSummaryListsCI(pooled, e.a.confidence())
	}
	if hasIn {
		ms.InputPerSecond = e.rates(e.byEnd, hasText, endTime, promptWeight, stats.Window{})
		ms.InputConcurrency = e.concurrency(hasText, promptWeight, stats.Window{})
	}
	if hasOut {
		ms.OutputPerSecond = e.rates(e.byEnd, hasText, endTime, textOutWeight, stats.Window{})
		ms.OutputConcurrency = e.concurrency(hasText, textOutWeight, stats.Window{})
	}
	if hasIn && hasOut {
		ms.TotalPerSecond = e.rates(e.byEnd, hasText, endTime, textTotalWeight, stats.Window{})
		ms.TotalConcurrency = e.concurrency(hasText, textTotalWeight, stats.Window{})
	}
	return promptCount, ms
}

// lists collects one weight-1 value per request that has one, as
// per-status sorted lists in memory of their own (the scratch array is
// not used, so several can be held at once).
func (e *exact) lists(f func(s *RequestSummary) (float64, bool)) stats.StatusLists {
	var dense [report.NumStatus][]float64
	vs := stats.NewValueSet(nil, &dense)
	for _, i := range e.in {
		s := e.sum(i)
		if v, ok := f(s); ok {
			vs.Add(v, 1, s.status)
		}
	}
	return vs.Lists()
}
