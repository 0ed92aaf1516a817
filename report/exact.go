package report

import (
	"fmt"
	"math"
)

// scratch holds Finish's reusable memory: one sample array as long as the
// in-window requests and the dense per-status arrays, so that the dozens
// of distributions of a benchmark need memory for one array rather than
// one per distribution.
type scratch struct {
	a     []tsample
	dense [numStatus][]float64     // integer values of value distributions
	conc  [numStatus + 1][]float64 // concurrency levels, one per stream
}

func newScratch(n int) *scratch {
	return &scratch{a: make([]tsample, 0, n+8)}
}

// exact computes GuideLLM's metrics and goodput's extras from the stored
// summaries of the in-window requests (the path below Config.ExactCap).
type exact struct {
	a       *Accumulator
	in      []int32 // in-window requests, in Add order
	w       measureWindow
	sc      *scratch
	byEnd   []int32 // in sorted by end time
	byStart []int32 // in sorted by start time
}

func (a *Accumulator) newExact(in []int32, w measureWindow) *exact {
	e := &exact{a: a, in: in, w: w, sc: newScratch(len(in))}
	e.byEnd = e.order(endTime)
	e.byStart = e.order(func(s *reqSum) int64 { return s.start })
	return e
}

func (e *exact) sum(i int32) *reqSum { return e.a.sums.at(int(i)) }

// order returns the in-window requests sorted by the time key(s), in
// Unix seconds as the streams see it.
func (e *exact) order(key func(*reqSum) int64) []int32 {
	ss := e.sc.a[:0]
	for _, i := range e.in {
		ss = append(ss, tsample{v: nsToSec(key(e.sum(i))), w: float64(i)})
	}
	sortSamples(ss)
	out := make([]int32, len(ss))
	for k := range ss {
		out[k] = int32(ss[k].w)
	}
	return out
}

func (e *exact) values() *valueSet { return newValueSet(e.sc.a, &e.sc.dense) }

// sampleFn gives a request's value and weight, ok false when GuideLLM's
// property is None.
type sampleFn func(s *reqSum) (v, w float64, ok bool)

// pair computes a distribution twice from one pass: over the requests
// that have a value (goodput's "absent means absent" figure) and the way
// GuideLLM does, where a request without a value counts as 0 with weight
// zeroW.
func (e *exact) pair(f sampleFn, zeroW func(s *reqSum) float64) (guidellm, present *StatusDistributionSummary) {
	vs := e.values()
	var zeros [numStatus]float64
	var absent [numStatus]bool
	for _, i := range e.in {
		s := e.sum(i)
		if v, w, ok := f(s); ok {
			vs.add(v, w, s.status)
		} else {
			zeros[s.status] += zeroW(s)
			absent[s.status] = true
		}
	}
	ls := vs.lists()
	present = statusSummaryLists(ls, [numStatus + 1]bool{true, true, true, true})
	// GuideLLM's figure differs only for the statuses (and the total) with
	// requests that lack the value.
	var redo [numStatus + 1]bool
	for st := uint8(0); st < numStatus; st++ {
		if absent[st] {
			ls[st] = append(ls[st], []tsample{{v: 0, w: zeros[st], st: st}})
			redo[st], redo[numStatus] = true, true
		}
	}
	guidellm = statusSummaryLists(ls, redo)
	for st := uint8(0); st <= numStatus; st++ {
		if !redo[st] {
			d := *present.get(st)
			guidellm.set(st, &d)
		}
	}
	return guidellm, present
}

// single computes one distribution over the requests f gives a value for.
func (e *exact) single(f sampleFn) *StatusDistributionSummary {
	vs := e.values()
	for _, i := range e.in {
		s := e.sum(i)
		if v, w, ok := f(s); ok {
			vs.add(v, w, s.status)
		}
	}
	return statusSummaryLists(vs.lists())
}

func unit(*reqSum) float64 { return 1 }

func nsValue(f func(*reqSum) (int64, bool), scale float64) sampleFn {
	return func(s *reqSum) (float64, float64, bool) {
		v, ok := f(s)
		return float64(v) / scale, 1, ok
	}
}

func outWeight(s *reqSum) float64 {
	out, _ := s.outputTokens()
	return float64(out)
}

func itlWeight(s *reqSum) float64 {
	out, _ := s.outputTokens()
	return float64(max(out, 1) - 1)
}

func tpotSample(s *reqSum) (float64, float64, bool) {
	v, ok := s.tpotNs()
	return v / 1e6, outWeight(s), ok
}

func itlSample(s *reqSum) (float64, float64, bool) {
	v, ok := s.itlNs()
	return v / 1e6, itlWeight(s), ok
}

func promptSample(s *reqSum) (float64, float64, bool) {
	p, ok := s.promptTokens()
	return float64(p), 1, ok
}

// metrics computes GuideLLM's GenerativeMetrics and goodput's
// distributions.
func (e *exact) metrics(ex *Extras) (Metrics, ExtraMetrics) {
	var m Metrics
	var x ExtraMetrics
	var counts [numStatus]int64
	for _, i := range e.in {
		counts[e.sum(i).status]++
	}
	m.RequestTotals = &StatusCounts{
		Successful: Int(counts[stSuccessful]), Errored: Int(counts[stErrored]),
		Incomplete: Int(counts[stIncomplete]), Total: Int(len(e.in)),
	}
	m.RequestLatency, x.RequestLatency = e.pair(nsValue((*reqSum).latencyNs, 1e9), unit)
	m.TimeToFirstTokenMs, x.TimeToFirstTokenMs = e.pair(nsValue((*reqSum).ttftNs, 1e6), unit)
	m.TimeToFirstOutputTokenMs, x.TimeToFirstOutputTokenMs = e.pair(nsValue((*reqSum).ttfotNs, 1e6), unit)
	m.TimePerOutputTokenMs, x.TimePerOutputTokenMs = e.pair(tpotSample, outWeight)
	m.InterTokenLatencyMs, x.InterTokenLatencyMs = e.pair(itlSample, itlWeight)
	x.TimeToSecondTokenMs = statusFromAccs(e.a.hist[hTTST], 1e6)
	x.DispatchLatenessMs = e.single(nsValue((*reqSum).latenessNs, 1e6))
	x.ScheduledTimeToFirstTokenMs = e.single(nsValue((*reqSum).schedTTFTNs, 1e6))
	x.ScheduledRequestLatency = e.single(nsValue((*reqSum).schedLatencyNs, 1e9))

	m.RequestStreamingIterationsCount = e.single(func(s *reqSum) (float64, float64, bool) { return float64(s.reqIters), 1, true })
	m.OutputTokenCount = e.single(func(s *reqSum) (float64, float64, bool) {
		v, ok := s.outputTokens()
		if !ok {
			v = 0
		}
		return float64(v), 1, true
	})
	m.TotalTokenCount = e.single(func(s *reqSum) (float64, float64, bool) {
		v, ok := s.totalTokens()
		if !ok {
			v = 0
		}
		return float64(v), 1, true
	})
	m.OutputTokensPerIteration = e.perIteration(true)
	m.IterTokensPerIteration = e.perIteration(false)

	win := Window{Start: nsToSec(e.w.ms), End: nsToSec(e.w.me), HasStart: true, HasEnd: true}
	all := func(*reqSum) bool { return true }
	m.RequestsPerSecond = e.rates(e.byEnd, all, endTime, unit, win)
	m.RequestConcurrency = e.concurrency(all, unit, win)
	byPrompt := e.order((*reqSum).promptEventNs)
	m.PromptTokensPerSecond = e.rates(byPrompt, all, (*reqSum).promptEventNs, promptWeight, Window{})
	e.tokenRates(&m, ex)
	m.Text = &TextMetrics{}
	m.PromptTokenCount, m.Text.Tokens = e.textTokens()
	m.Image = &ImageMetrics{}
	m.Video = &VideoMetrics{}
	m.Audio = &AudioMetrics{}
	m.ToolCall = &ToolCallMetrics{}
	return m, x
}

// perIteration computes output_tokens_per_iteration (withFirst) or
// iter_tokens_per_iteration. GuideLLM lists one value per output event
// (the first event worth one token, then iter_tokens_per_iteration per
// further iteration); equal values are merged by from_values anyway, so
// each request contributes weighted samples.
func (e *exact) perIteration(withFirst bool) *StatusDistributionSummary {
	vs := e.values()
	for _, i := range e.in {
		s := e.sum(i)
		out, ok := s.outputTokens()
		if s.first == 0 || s.last == 0 || s.tokIters <= 1 {
			if withFirst {
				if !ok {
					out = 0
				}
				vs.add(float64(out), 1, s.status)
			}
			continue
		}
		if withFirst {
			first := 0.0
			if ok && out != 0 {
				first = 1
			}
			vs.add(first, 1, s.status)
		}
		if tpi, ok := s.iterTokensPerIteration(); ok {
			vs.add(tpi, float64(s.tokIters-1), s.status)
		}
	}
	return statusSummaryLists(vs.lists())
}

// Event times and weights of the per-request rate and concurrency
// distributions.
func endTime(s *reqSum) int64 { return s.end }

func promptWeight(s *reqSum) float64 {
	if p, ok := s.promptTokens(); ok {
		return float64(p)
	}
	return 0
}

func textOutWeight(s *reqSum) float64 { return math.Max(float64(s.usageOut), 0) }

func textTotalWeight(s *reqSum) float64 { return promptWeight(s) + textOutWeight(s) }

func hasText(s *reqSum) bool { return s.prompt >= 0 || s.usageOut >= 0 }

// rates is the rate distribution of one event per selected request, at
// time at(s) with weight weight(s); order lists the requests by at(). Each
// status, then all of them, is one stream over the order, its (rate,
// duration) pairs kept in the scratch array.
func (e *exact) rates(order []int32, sel func(*reqSum) bool, at func(*reqSum) int64, weight func(*reqSum) float64, win Window) *StatusDistributionSummary {
	out := &StatusDistributionSummary{}
	for st := uint8(0); st <= numStatus; st++ {
		r := newRateStream(win, e.sc.a)
		for _, i := range order {
			s := e.sum(i)
			if (st == numStatus || s.status == st) && sel(s) {
				r.push(nsToSec(at(s)), weight(s))
			}
		}
		d := r.finish()
		if cap(r.sink) > cap(e.sc.a) {
			e.sc.a = r.sink[:0]
		}
		out.set(st, &d)
	}
	return out
}

// concurrency is the concurrency distribution of the selected in-window
// requests, each weighted by weight(s) from its start to its end. One
// merge of the start and end orders feeds the four streams.
func (e *exact) concurrency(sel func(*reqSum) bool, weight func(*reqSum) float64, win Window) *StatusDistributionSummary {
	keep := func(s *reqSum) bool {
		return sel(s) && !(win.HasStart && nsToSec(s.end) < win.Start) && !(win.HasEnd && nsToSec(s.start) > win.End)
	}
	var streams [numStatus + 1]*concStream
	for st := range streams {
		streams[st] = newConcStream(win, e.sc.conc[st])
	}
	var counts [numStatus]int64
	push := func(s *reqSum, t, w float64) {
		streams[s.status].push(t, w)
		streams[numStatus].push(t, w)
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
		var s *reqSum
		var ts float64
		if si < len(starts) {
			s = e.sum(starts[si])
			ts = nsToSec(s.start)
		}
		if ei < len(ends) {
			t := e.sum(ends[ei])
			if te := nsToSec(t.end); s == nil || te < ts {
				push(t, te, -weight(t))
				ei++
				continue
			}
		}
		push(s, ts, weight(s))
		counts[s.status]++
		si++
	}
	out := &StatusDistributionSummary{}
	total := int64(0)
	for st := uint8(0); st <= numStatus; st++ {
		n := total
		if st < numStatus {
			n = counts[st]
			total += n
		}
		d := streams[st].finish(n)
		e.sc.conc[st] = streams[st].dense
		out.set(st, &d)
	}
	return out
}

// tokenRates computes output_tokens_per_second and tokens_per_second
// (GuideLLM: rate distributions over the token events, not clipped to the
// window).
func (e *exact) tokenRates(m *Metrics, ex *Extras) {
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
	ev := make([]tsample, 0, events)
	sink := make([]tsample, 0, events+2)
	for _, i := range e.in {
		s := e.sum(i)
		st := s.status
		s.outputEvents(func(t, w float64) { ev = append(ev, tsample{v: t, w: w, st: st}) })
	}
	sortSamples(ev)
	m.OutputTokensPerSecond = statusRates(ev, sink, Window{})
	for _, i := range e.in {
		s := e.sum(i)
		ev = append(ev, tsample{v: nsToSec(s.promptEventNs()), w: promptWeight(s), st: s.status})
	}
	sortSamples(ev)
	m.TokensPerSecond = statusRates(ev, sink, Window{})
}

// statusRates runs one rate distribution per status and one over all
// statuses on time-sorted events.
func statusRates(ev []tsample, sink []tsample, win Window) *StatusDistributionSummary {
	out := &StatusDistributionSummary{}
	for st := uint8(0); st <= numStatus; st++ {
		r := newRateStream(win, sink)
		for i := range ev {
			if st == numStatus || ev[i].st == st {
				r.push(ev[i].v, ev[i].w)
			}
		}
		d := r.finish()
		out.set(st, &d)
	}
	return out
}

// textTokens computes prompt_token_count and GuideLLM's
// GenerativeMetricsSummary for text_tokens: the prompt tokens (input) and
// the usage-reported output tokens (output) of each request that has
// either, as values, as rates at the request end and as concurrency over
// the request; "total" pools both sides as values and adds them as rates
// and concurrency.
func (e *exact) textTokens() (*StatusDistributionSummary, *MetricsSummary) {
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
	ms := &MetricsSummary{}
	// Token counts are integers: the value sets count them in dense
	// arrays, so both sides' lists are small and can be kept together.
	inLists := e.lists(func(s *reqSum) (float64, bool) { p, ok := s.promptTokens(); return float64(p), ok })
	outLists := e.lists(func(s *reqSum) (float64, bool) { return float64(s.usageOut), s.usageOut >= 0 })
	if hasIn {
		ms.Input = ins
	}
	if hasOut {
		ms.Output = statusSummaryLists(outLists)
	}
	if hasIn && hasOut {
		var pooled statusLists
		for st := range pooled {
			pooled[st] = append(append([][]tsample{}, inLists[st]...), outLists[st]...)
		}
		ms.Total = statusSummaryLists(pooled)
	}
	if hasIn {
		ms.InputPerSecond = e.rates(e.byEnd, hasText, endTime, promptWeight, Window{})
		ms.InputConcurrency = e.concurrency(hasText, promptWeight, Window{})
	}
	if hasOut {
		ms.OutputPerSecond = e.rates(e.byEnd, hasText, endTime, textOutWeight, Window{})
		ms.OutputConcurrency = e.concurrency(hasText, textOutWeight, Window{})
	}
	if hasIn && hasOut {
		ms.TotalPerSecond = e.rates(e.byEnd, hasText, endTime, textTotalWeight, Window{})
		ms.TotalConcurrency = e.concurrency(hasText, textTotalWeight, Window{})
	}
	return promptCount, ms
}

// lists collects one weight-1 value per request that has one, as
// per-status sorted lists in memory of their own (the scratch array is
// not used, so several can be held at once).
func (e *exact) lists(f func(s *reqSum) (float64, bool)) statusLists {
	var dense [numStatus][]float64
	vs := newValueSet(nil, &dense)
	for _, i := range e.in {
		s := e.sum(i)
		if v, ok := f(s); ok {
			vs.add(v, 1, s.status)
		}
	}
	return vs.lists()
}
