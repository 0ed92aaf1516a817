package report

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Reasons a histogram-path merge states in goodput.inexact_reasons.
const (
	reasonHistValues = "value distributions with HDR histograms (request_latency, time_to_first_token_ms, time_to_first_output_token_ms, time_per_output_token_ms, inter_token_latency_ms and goodput's histogram metrics) have exact count, mean, variance, min and max; their percentiles, median and mode come from the merged histograms (3 significant digits)"
	reasonMixture    = "request_streaming_iterations_count, prompt/output/total_token_count, output_tokens_per_iteration, iter_tokens_per_iteration, text.tokens input/output/total and token_mismatch.difference have no histograms: count, mean, variance, min and max are exact, percentiles, median and mode are estimated from the shards' percentiles (count-weighted mixture of their interpolated distributions)"
	reasonSum        = "rate and concurrency distributions (requests_per_second, request_concurrency, prompt/output/tokens_per_second, text.tokens *_per_second and *_concurrency) add the shards' as if their rates moved together: mean and count are exact for aligned windows; percentiles, median, mode, min, max and std_dev are the sums of the shards' (exact when the shards' rates coincide, wider than the truth for independent shards)"
	reasonScheduler  = "scheduler_metrics averages are the shards' averages weighted by their processed requests; requests holds a uniform sample drawn from the shards' samples"
)

// sds reads one StatusDistributionSummary of a benchmark.
type sds func(b *Benchmark) *StatusDistributionSummary

// histPair merges a histogram-backed metric: the "present" summaries
// (goodput's, requests with a value) from the merged histogram, and, when
// gl is set, GuideLLM's (requests without the value counted as 0) from the
// same histogram plus the zeros.
func histPair(bs []*Benchmark, hs map[string][numStatus + 1]*hdrhistogram.Histogram, key string, scale float64, gl, pr sds) (g, p *StatusDistributionSummary) {
	h := hs[key]
	p = &StatusDistributionSummary{}
	if gl != nil {
		g = &StatusDistributionSummary{}
	}
	for st := uint8(0); st <= numStatus; st++ {
		var prs, gls []*DistributionSummary
		for _, b := range bs {
			if s := pr(b); s != nil {
				prs = append(prs, s.get(st))
			}
			if gl != nil {
				if s := gl(b); s != nil {
					gls = append(gls, s.get(st))
				}
			}
		}
		mom := momentSummary(prs)
		c := histClamp{min: mom.Min, max: mom.Max, lo: math.Round(float64(mom.Min) * scale), hi: math.Round(float64(mom.Max) * scale), scale: scale}
		var bars []hdrhistogram.Bar
		if h[st] != nil {
			bars = h[st].Distribution()
		}
		d := barsSummary(mom, bars, 0, c)
		p.set(st, &d)
		if gl != nil {
			gm := momentSummary(gls)
			zero := max(int64(gm.Count)-int64(mom.Count), 0)
			gd := barsSummary(gm, bars, zero, c)
			g.set(st, &gd)
		}
	}
	return g, p
}

// mergeDecoded merges the shards' histogram sets metric by metric and
// status by status, decoding each serialised histogram once. It returns
// the merged set (serialised, as MergeHistogramSets writes it) and the
// merged histograms, with a "total" status per metric.
func mergeDecoded(sets []*Histograms) (*Histograms, map[string][numStatus + 1]*hdrhistogram.Histogram, error) {
	out := &Histograms{Encoding: HistEncoding, Unit: "ns", LowestDiscernible: HistLowest, HighestTrackable: HistHighest,
		SignificantDigits: HistSignificantDigits, Metrics: map[string]*StatusHistograms{}}
	hs := map[string][numStatus + 1]*hdrhistogram.Histogram{}
	for i, set := range sets {
		if set.Encoding != HistEncoding || set.Unit != "ns" || set.LowestDiscernible != HistLowest ||
			set.HighestTrackable != HistHighest || set.SignificantDigits != HistSignificantDigits {
			return nil, nil, fmt.Errorf("shard %d: histograms %q in %q, geometry %d..%d/%d, want %s in ns, %d..%d/%d", i,
				set.Encoding, set.Unit, set.LowestDiscernible, set.HighestTrackable, set.SignificantDigits,
				HistEncoding, int64(HistLowest), int64(HistHighest), HistSignificantDigits)
		}
		out.Clamped += set.Clamped
		for name, sh := range set.Metrics {
			if sh == nil {
				continue
			}
			e := hs[name]
			for st, enc := range []string{sh.Successful, sh.Errored, sh.Incomplete} {
				if enc == "" {
					continue
				}
				h, err := DecodeHistogram(enc)
				if err != nil {
					return nil, nil, fmt.Errorf("shard %d: %s: %w", i, name, err)
				}
				if e[st] == nil {
					e[st] = newHist()
				}
				if dropped := e[st].Merge(h); dropped != 0 {
					return nil, nil, fmt.Errorf("shard %d: %s: %d values outside the range 1..%d", i, name, dropped, int64(HistHighest))
				}
			}
			hs[name] = e
		}
	}
	for name, e := range hs {
		var sh StatusHistograms
		total := newHist()
		for st := uint8(0); st < numStatus; st++ {
			if e[st] == nil || e[st].TotalCount() == 0 {
				continue
			}
			enc, err := EncodeHistogram(e[st])
			if err != nil {
				return nil, nil, err
			}
			switch st {
			case stSuccessful:
				sh.Successful = enc
			case stErrored:
				sh.Errored = enc
			default:
				sh.Incomplete = enc
			}
			total.Merge(e[st])
		}
		e[numStatus] = total
		hs[name] = e
		out.Metrics[name] = &sh
	}
	return out, hs, nil
}

// mergeHistBenchmark combines round k of the shard reports without their
// records. Counts and sums add exactly; the measurement window is the
// union of the shards' (MergeWindowRule); what is approximate is stated in
// goodput.inexact_reasons (the reason* constants).
func (s *shardSet) mergeHistBenchmark(k int, why string) (*Benchmark, error) {
	bs := s.benchmarksOf(k)
	cfg, err := s.mergedConfig(k)
	if err != nil {
		return nil, err
	}
	acc, err := NewAccumulator(cfg)
	if err != nil {
		return nil, refuse(s.files[0].Name, "benchmark %d: %v", k, err)
	}
	info := s.mergedInfo(k)

	// The union of the active shards' windows.
	var live []*Benchmark
	for _, b := range bs {
		if active(b) {
			live = append(live, b)
		}
	}
	if len(live) == 0 {
		live = bs[:1]
	}
	sm := func(b *Benchmark, f func(*SchedulerMetrics) *Float) float64 {
		if v := f(b.SchedulerMetrics); v != nil {
			return float64(*v)
		}
		return float64(*b.StartTime)
	}
	reqStart, reqEnd := math.Inf(1), math.Inf(-1)
	ms, me := math.Inf(1), math.Inf(-1)
	var endReqs int64
	for _, b := range live {
		reqStart = math.Min(reqStart, sm(b, func(m *SchedulerMetrics) *Float { return m.RequestStartTime }))
		reqEnd = math.Max(reqEnd, sm(b, func(m *SchedulerMetrics) *Float { return m.RequestEndTime }))
		ms, me = math.Min(ms, float64(*b.StartTime)), math.Max(me, float64(*b.EndTime))
		if t := b.SchedulerState.EndRequestsTime; t != nil {
			endReqs = max(endReqs, secToNs(float64(*t)))
		}
	}
	w := measureWindow{reqStart: secToNs(reqStart), reqEnd: secToNs(reqEnd), ms: secToNs(ms), me: secToNs(me)}
	info.RequestsStart, info.RequestsEnd = w.reqStart, endReqs
	if endReqs == 0 {
		info.RequestsEnd = w.reqEnd
	}

	sets := make([]*Histograms, len(bs))
	for i, b := range bs {
		sets[i] = b.Goodput.Histograms
	}
	merged, hs, err := mergeDecoded(sets)
	if err != nil {
		return nil, refuse(s.files[0].Name, "benchmark %d: merging histograms: %v", k, err)
	}

	ex := &Extras{Version: ExtrasVersion, Exact: false, StopReason: info.StopReason, Histograms: merged,
		InexactReasons: []string{"merged from shard reports without their request records (" + why + ")", reasonHistValues, reasonMixture, reasonSum, reasonScheduler}}
	var m Metrics
	var x ExtraMetrics
	m.RequestLatency, x.RequestLatency = histPair(bs, hs, HistLatency, 1e9,
		func(b *Benchmark) *StatusDistributionSummary { return b.Metrics.RequestLatency },
		func(b *Benchmark) *StatusDistributionSummary { return b.Goodput.Metrics.RequestLatency })
	m.TimeToFirstTokenMs, x.TimeToFirstTokenMs = histPair(bs, hs, HistTTFT, 1e6,
		func(b *Benchmark) *StatusDistributionSummary { return b.Metrics.TimeToFirstTokenMs },
		func(b *Benchmark) *StatusDistributionSummary { return b.Goodput.Metrics.TimeToFirstTokenMs })
	m.TimeToFirstOutputTokenMs, x.TimeToFirstOutputTokenMs = histPair(bs, hs, HistTTFOT, 1e6,
		func(b *Benchmark) *StatusDistributionSummary { return b.Metrics.TimeToFirstOutputTokenMs },
		func(b *Benchmark) *StatusDistributionSummary { return b.Goodput.Metrics.TimeToFirstOutputTokenMs })
	m.TimePerOutputTokenMs, x.TimePerOutputTokenMs = histPair(bs, hs, HistTPOT, 1e6,
		func(b *Benchmark) *StatusDistributionSummary { return b.Metrics.TimePerOutputTokenMs },
		func(b *Benchmark) *StatusDistributionSummary { return b.Goodput.Metrics.TimePerOutputTokenMs })
	m.InterTokenLatencyMs, x.InterTokenLatencyMs = histPair(bs, hs, HistITL, 1e6,
		func(b *Benchmark) *StatusDistributionSummary { return b.Metrics.InterTokenLatencyMs },
		func(b *Benchmark) *StatusDistributionSummary { return b.Goodput.Metrics.InterTokenLatencyMs })
	only := func(key string, scale float64, f sds) *StatusDistributionSummary {
		_, p := histPair(bs, hs, key, scale, nil, f)
		return p
	}
	x.TimeToSecondTokenMs = only(HistTTST, 1e6, func(b *Benchmark) *StatusDistributionSummary { return b.Goodput.Metrics.TimeToSecondTokenMs })
	x.ITLPerGapMs = only(HistITLPerGap, 1e6, func(b *Benchmark) *StatusDistributionSummary { return b.Goodput.Metrics.ITLPerGapMs })
	x.ITLPerTokenMs = only(HistITLPerToken, 1e6, func(b *Benchmark) *StatusDistributionSummary { return b.Goodput.Metrics.ITLPerTokenMs })
	x.DispatchLatenessMs = only(HistLateness, 1e6, func(b *Benchmark) *StatusDistributionSummary { return b.Goodput.Metrics.DispatchLatenessMs })
	x.ScheduledTimeToFirstTokenMs = only(HistScheduledTTFT, 1e6, func(b *Benchmark) *StatusDistributionSummary { return b.Goodput.Metrics.ScheduledTimeToFirstTokenMs })
	x.ScheduledRequestLatency = only(HistScheduledLatency, 1e9, func(b *Benchmark) *StatusDistributionSummary { return b.Goodput.Metrics.ScheduledRequestLatency })
	ex.Metrics = x

	comb := func(f sds, c func([]*DistributionSummary) DistributionSummary) *StatusDistributionSummary {
		ss := make([]*StatusDistributionSummary, len(bs))
		for i, b := range bs {
			ss[i] = f(b)
		}
		return statusCombine(ss, c)
	}
	mix := func(f sds) *StatusDistributionSummary { return comb(f, mixtureSummary) }
	sum := func(f sds) *StatusDistributionSummary { return comb(f, sumSummary) }
	m.RequestStreamingIterationsCount = mix(func(b *Benchmark) *StatusDistributionSummary { return b.Metrics.RequestStreamingIterationsCount })
	m.PromptTokenCount = mix(func(b *Benchmark) *StatusDistributionSummary { return b.Metrics.PromptTokenCount })
	m.OutputTokenCount = mix(func(b *Benchmark) *StatusDistributionSummary { return b.Metrics.OutputTokenCount })
	m.TotalTokenCount = mix(func(b *Benchmark) *StatusDistributionSummary { return b.Metrics.TotalTokenCount })
	m.OutputTokensPerIteration = mix(func(b *Benchmark) *StatusDistributionSummary { return b.Metrics.OutputTokensPerIteration })
	m.IterTokensPerIteration = mix(func(b *Benchmark) *StatusDistributionSummary { return b.Metrics.IterTokensPerIteration })
	m.RequestsPerSecond = sum(func(b *Benchmark) *StatusDistributionSummary { return b.Metrics.RequestsPerSecond })
	m.RequestConcurrency = sum(func(b *Benchmark) *StatusDistributionSummary { return b.Metrics.RequestConcurrency })
	m.PromptTokensPerSecond = sum(func(b *Benchmark) *StatusDistributionSummary { return b.Metrics.PromptTokensPerSecond })
	m.OutputTokensPerSecond = sum(func(b *Benchmark) *StatusDistributionSummary { return b.Metrics.OutputTokensPerSecond })
	m.TokensPerSecond = sum(func(b *Benchmark) *StatusDistributionSummary { return b.Metrics.TokensPerSecond })
	m.Text = mergeText(bs, mix, sum)
	m.Image, m.Video, m.Audio, m.ToolCall = &ImageMetrics{}, &VideoMetrics{}, &AudioMetrics{}, &ToolCallMetrics{}

	totals := &StatusCounts{}
	for _, b := range bs {
		if t := b.Metrics.RequestTotals; t != nil {
			totals.Successful += t.Successful
			totals.Errored += t.Errored
			totals.Incomplete += t.Incomplete
			totals.Total += t.Total
		}
	}
	m.RequestTotals = totals

	ex.Requests = RequestCounts{ExactCap: bs[0].Goodput.Requests.ExactCap}
	ex.Errors = ErrorCounts{ByClass: map[string]Int{}, ByHTTPStatus: map[string]Int{}}
	var diffs []*DistributionSummary
	for _, b := range bs {
		g := b.Goodput
		r := &ex.Requests
		r.Recorded += g.Requests.Recorded
		r.Invalid += g.Requests.Invalid
		r.NotDispatched += g.Requests.NotDispatched
		r.OutsideWindow += g.Requests.OutsideWindow
		r.InWindow += g.Requests.InWindow
		r.OnlineMismatch += g.Requests.OnlineMismatch
		for c, n := range g.Errors.ByClass {
			ex.Errors.ByClass[c] += n
		}
		for c, n := range g.Errors.ByHTTPStatus {
			ex.Errors.ByHTTPStatus[c] += n
		}
		tm := &ex.TokenMismatch
		tm.Compared += g.TokenMismatch.Compared
		tm.Equal += g.TokenMismatch.Equal
		tm.ServerHigher += g.TokenMismatch.ServerHigher
		tm.ClientHigher += g.TokenMismatch.ClientHigher
		diffs = append(diffs, g.TokenMismatch.Difference)
	}
	if totals.Total > 0 {
		ex.Errors.ErrorRate = Float(float64(totals.Errored) / float64(totals.Total))
	}
	d := mixtureSummary(diffs)
	ex.TokenMismatch.Difference = &d

	for _, b := range bs {
		acc.addSchedulerAverages(b)
	}
	out := &Benchmark{Type: "generative_benchmark", Metrics: m, Goodput: ex}
	out.Config = acc.benchConfig(info)
	out.SchedulerState = acc.schedulerState(info, w)
	out.SchedulerMetrics = acc.schedulerMetrics(info, w)
	out.StartTime, out.EndTime, out.Duration = FloatPtr(ms), FloatPtr(me), FloatPtr(me-ms)
	out.WarmupDuration, out.CooldownDuration = FloatPtr(ms-reqStart), FloatPtr(reqEnd-me)
	out.Requests = s.mergeSamples(bs, cfg, ms, me, k)
	finishMerged(out, bs)
	return out, nil
}

// mergeText combines metrics.text (token counts as values, rates and
// concurrency).
func mergeText(bs []*Benchmark, mix, sum func(sds) *StatusDistributionSummary) *TextMetrics {
	any := false
	for _, b := range bs {
		any = any || (b.Metrics.Text != nil && b.Metrics.Text.Tokens != nil)
	}
	if !any {
		return &TextMetrics{}
	}
	tok := func(f func(*MetricsSummary) *StatusDistributionSummary) sds {
		return func(b *Benchmark) *StatusDistributionSummary {
			if b.Metrics.Text == nil || b.Metrics.Text.Tokens == nil {
				return nil
			}
			return f(b.Metrics.Text.Tokens)
		}
	}
	return &TextMetrics{Tokens: &MetricsSummary{
		Input:             mix(tok(func(m *MetricsSummary) *StatusDistributionSummary { return m.Input })),
		InputPerSecond:    sum(tok(func(m *MetricsSummary) *StatusDistributionSummary { return m.InputPerSecond })),
		InputConcurrency:  sum(tok(func(m *MetricsSummary) *StatusDistributionSummary { return m.InputConcurrency })),
		Output:            mix(tok(func(m *MetricsSummary) *StatusDistributionSummary { return m.Output })),
		OutputPerSecond:   sum(tok(func(m *MetricsSummary) *StatusDistributionSummary { return m.OutputPerSecond })),
		OutputConcurrency: sum(tok(func(m *MetricsSummary) *StatusDistributionSummary { return m.OutputConcurrency })),
		Total:             mix(tok(func(m *MetricsSummary) *StatusDistributionSummary { return m.Total })),
		TotalPerSecond:    sum(tok(func(m *MetricsSummary) *StatusDistributionSummary { return m.TotalPerSecond })),
		TotalConcurrency:  sum(tok(func(m *MetricsSummary) *StatusDistributionSummary { return m.TotalConcurrency })),
	}}
}

// mergeSamples draws the merged request records: per status, a uniform
// sample of the configured size from the union of the shards' requests,
// drawn from their samples (each shard's sample is uniform over its own
// requests, so a shard is picked with probability proportional to the
// requests it has not yet contributed). Ids are made distinct
// (ShardRecordID) and in_window is re-evaluated against the merged
// window.
func (s *shardSet) mergeSamples(bs []*Benchmark, cfg Config, ms, me float64, k int) RequestsByStatus {
	size := cfg.SampleSize
	if size < 0 {
		size = 0
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, uint64(k)^0x6d65726765))
	out := RequestsByStatus{}
	for st := uint8(0); st < numStatus; st++ {
		pools := make([][]*RequestStats, len(bs))
		pop := make([]int64, len(bs))
		for i, b := range bs {
			ss := b.SchedulerState
			switch st {
			case stSuccessful:
				pools[i], pop[i] = slices.Clone(b.Requests.Successful), int64(ss.SuccessfulRequests)
			case stErrored:
				pools[i], pop[i] = slices.Clone(b.Requests.Errored), int64(ss.ErroredRequests)
			default:
				g := b.Goodput.Requests
				pools[i], pop[i] = slices.Clone(b.Requests.Incomplete), int64(ss.CancelledRequests-g.NotSent-g.NotDispatched)
			}
			pop[i] = max(pop[i], int64(len(pools[i])))
		}
		var picked []*RequestStats
		for len(picked) < size {
			var left int64
			for i := range pools {
				if len(pools[i]) > 0 {
					left += pop[i]
				}
			}
			if left <= 0 {
				break
			}
			r := rng.Int64N(left)
			i := 0
			for ; i < len(pools); i++ {
				if len(pools[i]) == 0 {
					continue
				}
				if r < pop[i] {
					break
				}
				r -= pop[i]
			}
			j := rng.IntN(len(pools[i]))
			picked = append(picked, shardRequest(pools[i][j], i, ms, me))
			pools[i][j] = pools[i][len(pools[i])-1]
			pools[i] = pools[i][:len(pools[i])-1]
			pop[i]--
		}
		slices.SortFunc(picked, func(a, b *RequestStats) int {
			x, _ := strconv.ParseUint(a.RequestID, 10, 64)
			y, _ := strconv.ParseUint(b.RequestID, 10, 64)
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		})
		if picked == nil {
			picked = []*RequestStats{}
		}
		switch st {
		case stSuccessful:
			out.Successful = picked
		case stErrored:
			out.Errored = picked
		default:
			out.Incomplete = picked
		}
	}
	return out
}

// shardRequest copies a shard's sampled request with its merged id and
// merged-window flag.
func shardRequest(r *RequestStats, shard int, ms, me float64) *RequestStats {
	c := *r
	if id, err := strconv.ParseUint(r.RequestID, 10, 64); err == nil {
		nid := strconv.FormatUint(ShardRecordID(shard, id), 10)
		c.RequestID, c.Info.RequestID = nid, nid
	}
	if r.Goodput != nil {
		g := *r.Goodput
		g.ID = ShardRecordID(shard, g.ID)
		if c.RequestStartTime != nil && c.RequestEndTime != nil {
			g.InWindow = float64(*c.RequestEndTime) >= ms && float64(*c.RequestStartTime) <= me
		}
		c.Goodput = &g
	}
	return &c
}
