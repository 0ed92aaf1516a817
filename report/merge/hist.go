package merge

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/goodput-dev/goodput/metric"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/accum"
	"github.com/goodput-dev/goodput/report/stats"
)

// Reasons a histogram-path merge states in goodput.inexact_reasons.
const (
	reasonHistValues = "value distributions with HDR histograms (request_latency, time_to_first_token_ms, time_to_first_output_token_ms, time_per_output_token_ms, inter_token_latency_ms and goodput's histogram metrics) have exact count, mean, variance, min and max; their percentiles, median and mode come from the merged histograms (3 significant digits)"
	reasonMixture    = "request_streaming_iterations_count, prompt/output/total_token_count, output_tokens_per_iteration, iter_tokens_per_iteration, text.tokens input/output/total and token_mismatch.difference have no histograms: count, mean, variance, min and max are exact, percentiles, median and mode are estimated from the shards' percentiles (count-weighted mixture of their interpolated distributions)"
	reasonSum        = "rate and concurrency distributions (requests_per_second, request_concurrency, prompt/output/tokens_per_second, text.tokens *_per_second and *_concurrency) add the shards' as if their rates moved together: mean and count are exact for aligned windows; percentiles, median, mode, min, max and std_dev are the sums of the shards' (exact when the shards' rates coincide, wider than the truth for independent shards)"
	reasonScheduler  = "scheduler_metrics averages are the shards' averages weighted by their processed requests; requests holds a uniform sample drawn from the shards' samples"
)

// sds reads one StatusDistributionSummary of a benchmark.
type sds func(b *report.Benchmark) *report.StatusDistributionSummary

// histPair merges a histogram-backed metric: the "present" summaries
// (goodput's, requests with a value) from the merged histogram, and, when
// gl is set, GuideLLM's (requests without the value counted as 0) from the
// same histogram plus the zeros; intervals gives the merged summaries
// intervals (mergedIntervals).
func histPair(bs []*report.Benchmark, hs map[string][report.NumStatus + 1]*hdrhistogram.Histogram, key string, scale float64, gl, pr sds, intervals bool) (g, p *report.StatusDistributionSummary) {
	h := hs[key]
	p = &report.StatusDistributionSummary{}
	if gl != nil {
		g = &report.StatusDistributionSummary{}
	}
	for st := uint8(0); st <= report.NumStatus; st++ {
		var prs, gls []*report.DistributionSummary
		for _, b := range bs {
			if s := pr(b); s != nil {
				prs = append(prs, s.ByStatus(st))
			}
			if gl != nil {
				if s := gl(b); s != nil {
					gls = append(gls, s.ByStatus(st))
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
		if intervals {
			mergedIntervals(&d, h[st], scale, prs)
		}
		p.SetStatus(st, &d)
		if gl != nil {
			gm := momentSummary(gls)
			zero := max(int64(gm.Count)-int64(mom.Count), 0)
			gd := barsSummary(gm, bars, zero, c)
			g.SetStatus(st, &gd)
		}
	}
	return g, p
}

// unitWeighted reports whether the merged histogram's count of metric l is
// the sample size of intervals: one sample per request, in GuideLLM's
// metrics.
func unitWeighted(l *metric.Latency) bool { return l.Weight == metric.PerRequest && l.Guide != nil }

// mergedIntervals gives a merged distribution the shards' kind of
// intervals (at their confidence; none when they have none): Student's t
// for the mean, order statistics of the merged histogram for the
// percentiles.
func mergedIntervals(d *report.DistributionSummary, h *hdrhistogram.Histogram, scale float64, shards []*report.DistributionSummary) {
	conf := 0.0
	for _, s := range shards {
		if s != nil && s.MeanCI != nil {
			conf = float64(s.MeanCI.Confidence)
			break
		}
	}
	if conf <= 0 || h == nil || d.Count <= 0 || h.TotalCount() != int64(d.Count) {
		return
	}
	m := stats.MeanCI(float64(d.Mean), float64(d.StdDev), int64(d.Count), conf)
	d.MeanCI = report.NewConfidenceInterval(m.Lower, m.Upper, conf)
	d.PercentileCIs = &report.PercentileCIs{}
	for i, pr := range report.PercentileProbs {
		ci := stats.PercentileCIHist(h, scale, pr, conf)
		d.PercentileCIs.Set(i, report.NewConfidenceInterval(ci.Lower, ci.Upper, conf))
	}
}

// mergeDecoded merges the shards' histogram sets metric by metric and
// status by status, decoding each serialised histogram once. It returns
// the merged set (serialised, as MergeHistogramSets writes it) and the
// merged histograms, with a "total" status per metric.
func mergeDecoded(sets []*report.Histograms) (*report.Histograms, map[string][report.NumStatus + 1]*hdrhistogram.Histogram, error) {
	out := &report.Histograms{Encoding: stats.HistEncoding, Unit: "ns", LowestDiscernible: stats.HistLowest, HighestTrackable: stats.HistHighest,
		SignificantDigits: stats.HistSignificantDigits, Metrics: map[string]*report.StatusHistograms{}}
	hs := map[string][report.NumStatus + 1]*hdrhistogram.Histogram{}
	for i, set := range sets {
		if set.Encoding != stats.HistEncoding || set.Unit != "ns" || set.LowestDiscernible != stats.HistLowest ||
			set.HighestTrackable != stats.HistHighest || set.SignificantDigits != stats.HistSignificantDigits {
			return nil, nil, fmt.Errorf("shard %d: histograms %q in %q, geometry %d..%d/%d, want %s in ns, %d..%d/%d", i,
				set.Encoding, set.Unit, set.LowestDiscernible, set.HighestTrackable, set.SignificantDigits,
				stats.HistEncoding, int64(stats.HistLowest), int64(stats.HistHighest), stats.HistSignificantDigits)
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
				h, err := stats.DecodeHistogram(enc)
				if err != nil {
					return nil, nil, fmt.Errorf("shard %d: %s: %w", i, name, err)
				}
				if e[st] == nil {
					e[st] = stats.NewHistogram()
				}
				if dropped := e[st].Merge(h); dropped != 0 {
					return nil, nil, fmt.Errorf("shard %d: %s: %d values outside the range 1..%d", i, name, dropped, int64(stats.HistHighest))
				}
			}
			hs[name] = e
		}
	}
	for name, e := range hs {
		var sh report.StatusHistograms
		total := stats.NewHistogram()
		for st := uint8(0); st < report.NumStatus; st++ {
			if e[st] == nil || e[st].TotalCount() == 0 {
				continue
			}
			enc, err := stats.EncodeHistogram(e[st])
			if err != nil {
				return nil, nil, err
			}
			sh.Set(st, enc)
			total.Merge(e[st])
		}
		e[report.NumStatus] = total
		hs[name] = e
		out.Metrics[name] = &sh
	}
	return out, hs, nil
}

// mergeHistBenchmark combines round k of the shard reports without their
// records. Counts and sums add exactly; the measurement window is the
// union of the shards' (MergeWindowRule); what is approximate is stated in
// goodput.inexact_reasons (the reason* constants).
func (s *shardSet) mergeHistBenchmark(k int, why string) (*report.Benchmark, error) {
	bs := s.benchmarksOf(k)
	cfg, err := s.mergedConfig(k)
	if err != nil {
		return nil, err
	}
	acc, err := accum.New(cfg)
	if err != nil {
		return nil, refuse(s.files[0].Name, "benchmark %d: %v", k, err)
	}
	info := s.mergedInfo(k)

	// The union of the active shards' windows.
	var live []*report.Benchmark
	for _, b := range bs {
		if active(b) {
			live = append(live, b)
		}
	}
	if len(live) == 0 {
		live = bs[:1]
	}
	sm := func(b *report.Benchmark, f func(*report.SchedulerMetrics) *report.Float) float64 {
		if v := f(b.SchedulerMetrics); v != nil {
			return float64(*v)
		}
		return float64(*b.StartTime)
	}
	reqStart, reqEnd := math.Inf(1), math.Inf(-1)
	ms, me := math.Inf(1), math.Inf(-1)
	var endReqs int64
	for _, b := range live {
		reqStart = math.Min(reqStart, sm(b, func(m *report.SchedulerMetrics) *report.Float { return m.RequestStartTime }))
		reqEnd = math.Max(reqEnd, sm(b, func(m *report.SchedulerMetrics) *report.Float { return m.RequestEndTime }))
		ms, me = math.Min(ms, float64(*b.StartTime)), math.Max(me, float64(*b.EndTime))
		if t := b.SchedulerState.EndRequestsTime; t != nil {
			endReqs = max(endReqs, accum.SecToNs(float64(*t)))
		}
	}
	w := accum.MeasureWindow{ReqStart: accum.SecToNs(reqStart), ReqEnd: accum.SecToNs(reqEnd), Start: accum.SecToNs(ms), End: accum.SecToNs(me)}
	info.RequestsStart, info.RequestsEnd = w.ReqStart, endReqs
	if endReqs == 0 {
		info.RequestsEnd = w.ReqEnd
	}

	sets := make([]*report.Histograms, len(bs))
	for i, b := range bs {
		sets[i] = b.Extras.Histograms
	}
	merged, hs, err := mergeDecoded(sets)
	if err != nil {
		return nil, refuse(s.files[0].Name, "benchmark %d: merging histograms: %v", k, err)
	}

	ex := &report.Extras{Version: report.ExtrasVersion, Exact: false, StopReason: info.StopReason, Histograms: merged,
		InexactReasons: []string{"merged from shard reports without their request records (" + why + ")", reasonHistValues, reasonMixture, reasonSum, reasonScheduler}}
	var m report.Metrics
	var x report.ExtraMetrics
	for _, l := range metric.All {
		if l.Extra == nil {
			continue
		}
		extra := func(b *report.Benchmark) *report.StatusDistributionSummary { return l.OfExtra(&b.Extras.Metrics) }
		var guide sds
		if l.Guide != nil {
			guide = func(b *report.Benchmark) *report.StatusDistributionSummary { return l.Of(&b.Metrics) }
		}
		g, p := histPair(bs, hs, l.Hist, l.Scale(), guide, extra, unitWeighted(l))
		if l.Guide != nil {
			*l.Guide(&m) = g
		}
		*l.Extra(&x) = p
	}
	only := func(key string, scale float64, f sds) *report.StatusDistributionSummary {
		_, p := histPair(bs, hs, key, scale, nil, f, false)
		return p
	}
	x.ITLPerGapMs = only(report.HistITLPerGap, 1e6, func(b *report.Benchmark) *report.StatusDistributionSummary { return b.Extras.Metrics.ITLPerGapMs })
	x.ITLPerTokenMs = only(report.HistITLPerToken, 1e6, func(b *report.Benchmark) *report.StatusDistributionSummary { return b.Extras.Metrics.ITLPerTokenMs })
	ex.Metrics = x

	comb := func(f sds, c func([]*report.DistributionSummary) report.DistributionSummary) *report.StatusDistributionSummary {
		ss := make([]*report.StatusDistributionSummary, len(bs))
		for i, b := range bs {
			ss[i] = f(b)
		}
		return statusCombine(ss, c)
	}
	mix := func(f sds) *report.StatusDistributionSummary { return comb(f, mixtureSummary) }
	sum := func(f sds) *report.StatusDistributionSummary { return comb(f, sumSummary) }
	m.RequestStreamingIterationsCount = mix(func(b *report.Benchmark) *report.StatusDistributionSummary {
		return b.Metrics.RequestStreamingIterationsCount
	})
	m.PromptTokenCount = mix(func(b *report.Benchmark) *report.StatusDistributionSummary { return b.Metrics.PromptTokenCount })
	m.OutputTokenCount = mix(func(b *report.Benchmark) *report.StatusDistributionSummary { return b.Metrics.OutputTokenCount })
	m.TotalTokenCount = mix(func(b *report.Benchmark) *report.StatusDistributionSummary { return b.Metrics.TotalTokenCount })
	m.OutputTokensPerIteration = mix(func(b *report.Benchmark) *report.StatusDistributionSummary { return b.Metrics.OutputTokensPerIteration })
	m.IterTokensPerIteration = mix(func(b *report.Benchmark) *report.StatusDistributionSummary { return b.Metrics.IterTokensPerIteration })
	m.RequestsPerSecond = sum(func(b *report.Benchmark) *report.StatusDistributionSummary { return b.Metrics.RequestsPerSecond })
	m.RequestConcurrency = sum(func(b *report.Benchmark) *report.StatusDistributionSummary { return b.Metrics.RequestConcurrency })
	m.PromptTokensPerSecond = sum(func(b *report.Benchmark) *report.StatusDistributionSummary { return b.Metrics.PromptTokensPerSecond })
	m.OutputTokensPerSecond = sum(func(b *report.Benchmark) *report.StatusDistributionSummary { return b.Metrics.OutputTokensPerSecond })
	m.TokensPerSecond = sum(func(b *report.Benchmark) *report.StatusDistributionSummary { return b.Metrics.TokensPerSecond })
	m.Text = mergeText(bs, mix, sum)
	m.Image, m.Video, m.Audio, m.ToolCall = &report.ImageMetrics{}, &report.VideoMetrics{}, &report.AudioMetrics{}, &report.ToolCallMetrics{}

	totals := &report.StatusCounts{}
	for _, b := range bs {
		if t := b.Metrics.RequestTotals; t != nil {
			totals.Successful += t.Successful
			totals.Errored += t.Errored
			totals.Incomplete += t.Incomplete
			totals.Total += t.Total
		}
	}
	m.RequestTotals = totals

	ex.Requests = report.RequestCounts{ExactCap: bs[0].Extras.Requests.ExactCap}
	ex.Errors = report.ErrorCounts{ByClass: map[string]report.Int{}, ByHTTPStatus: map[string]report.Int{}}
	var diffs []*report.DistributionSummary
	for _, b := range bs {
		g := b.Extras
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
		ex.Errors.ErrorRate = report.Float(float64(totals.Errored) / float64(totals.Total))
	}
	d := mixtureSummary(diffs)
	ex.TokenMismatch.Difference = &d
	mergePromptTokens(ex, bs)
	parts := make([]*report.Extras, len(bs))
	for i, b := range bs {
		parts[i] = b.Extras
	}
	report.MergeHonesty(ex, parts)

	for _, b := range bs {
		acc.AddSchedulerAverages(b)
	}
	out := &report.Benchmark{Type: "generative_benchmark", Metrics: m, Extras: ex}
	out.Config = acc.BenchConfig(info)
	out.SchedulerState = acc.SchedulerState(info, w)
	out.SchedulerMetrics = acc.SchedulerMetrics(info, w)
	out.StartTime, out.EndTime, out.Duration = report.FloatPtr(ms), report.FloatPtr(me), report.FloatPtr(me-ms)
	out.WarmupDuration, out.CooldownDuration = report.FloatPtr(ms-reqStart), report.FloatPtr(reqEnd-me)
	out.Requests = s.mergeSamples(bs, cfg, ms, me, k)
	finishMerged(out, bs)
	return out, nil
}

// mergeText combines metrics.text (token counts as values, rates and
// concurrency).
func mergeText(bs []*report.Benchmark, mix, sum func(sds) *report.StatusDistributionSummary) *report.TextMetrics {
	any := false
	for _, b := range bs {
		any = any || (b.Metrics.Text != nil && b.Metrics.Text.Tokens != nil)
	}
	if !any {
		return &report.TextMetrics{}
	}
	tok := func(f func(*report.MetricsSummary) *report.StatusDistributionSummary) sds {
		return func(b *report.Benchmark) *report.StatusDistributionSummary {
			if b.Metrics.Text == nil || b.Metrics.Text.Tokens == nil {
				return nil
			}
			return f(b.Metrics.Text.Tokens)
		}
	}
	return &report.TextMetrics{Tokens: &report.MetricsSummary{
		Input:             mix(tok(func(m *report.MetricsSummary) *report.StatusDistributionSummary { return m.Input })),
		InputPerSecond:    sum(tok(func(m *report.MetricsSummary) *report.StatusDistributionSummary { return m.InputPerSecond })),
		InputConcurrency:  sum(tok(func(m *report.MetricsSummary) *report.StatusDistributionSummary { return m.InputConcurrency })),
		Output:            mix(tok(func(m *report.MetricsSummary) *report.StatusDistributionSummary { return m.Output })),
		OutputPerSecond:   sum(tok(func(m *report.MetricsSummary) *report.StatusDistributionSummary { return m.OutputPerSecond })),
		OutputConcurrency: sum(tok(func(m *report.MetricsSummary) *report.StatusDistributionSummary { return m.OutputConcurrency })),
		Total:             mix(tok(func(m *report.MetricsSummary) *report.StatusDistributionSummary { return m.Total })),
		TotalPerSecond:    sum(tok(func(m *report.MetricsSummary) *report.StatusDistributionSummary { return m.TotalPerSecond })),
		TotalConcurrency:  sum(tok(func(m *report.MetricsSummary) *report.StatusDistributionSummary { return m.TotalConcurrency })),
	}}
}

// mergeSamples draws the merged request records: per status, a uniform
// sample of the configured size from the union of the shards' requests,
// drawn from their samples (each shard's sample is uniform over its own
// requests, so a shard is picked with probability proportional to the
// requests it has not yet contributed). Ids are made distinct
// (RecordID) and in_window is re-evaluated against the merged
// window.
func (s *shardSet) mergeSamples(bs []*report.Benchmark, cfg accum.Config, ms, me float64, k int) report.RequestsByStatus {
	size := cfg.SampleSize
	if size < 0 {
		size = 0
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, uint64(k)^0x6d65726765))
	out := report.RequestsByStatus{}
	for st := uint8(0); st < report.NumStatus; st++ {
		pools := make([][]*report.RequestStats, len(bs))
		pop := make([]int64, len(bs))
		for i, b := range bs {
			ss := b.SchedulerState
			switch st {
			case report.StatusSuccessful:
				pools[i], pop[i] = slices.Clone(b.Requests.Successful), int64(ss.SuccessfulRequests)
			case report.StatusErrored:
				pools[i], pop[i] = slices.Clone(b.Requests.Errored), int64(ss.ErroredRequests)
			default:
				g := b.Extras.Requests
				pools[i], pop[i] = slices.Clone(b.Requests.Incomplete), int64(ss.CancelledRequests-g.NotSent-g.NotDispatched)
			}
			pop[i] = max(pop[i], int64(len(pools[i])))
		}
		var picked []*report.RequestStats
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
		slices.SortFunc(picked, func(a, b *report.RequestStats) int {
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
			picked = []*report.RequestStats{}
		}
		out.Set(st, picked)
	}
	return out
}

// shardRequest copies a shard's sampled request with its merged id and
// merged-window flag.
func shardRequest(r *report.RequestStats, shard int, ms, me float64) *report.RequestStats {
	c := *r
	if id, err := strconv.ParseUint(r.RequestID, 10, 64); err == nil {
		nid := strconv.FormatUint(RecordID(shard, id), 10)
		c.RequestID, c.Info.RequestID = nid, nid
	}
	if r.Extras != nil {
		g := *r.Extras
		g.ID = RecordID(shard, g.ID)
		if c.RequestStartTime != nil && c.RequestEndTime != nil {
			g.InWindow = float64(*c.RequestEndTime) >= ms && float64(*c.RequestStartTime) <= me
		}
		c.Extras = &g
	}
	return &c
}

// mergePromptTokens adds the shards' prompt-token comparisons and mixes
// their overheads per request type. The shards' token warnings are not
// carried over: they judge each shard's share alone.
func mergePromptTokens(ex *report.Extras, bs []*report.Benchmark) {
	var pm report.TokenMismatch
	var pdiffs []*report.DistributionSummary
	ovs := map[string][]*report.DistributionSummary{}
	applied := map[string]report.Int{}
	for _, b := range bs {
		g := b.Extras
		if p := g.PromptTokenMismatch; p != nil {
			pm.Compared += p.Compared
			pm.Equal += p.Equal
			pm.ServerHigher += p.ServerHigher
			pm.ClientHigher += p.ClientHigher
			pdiffs = append(pdiffs, p.Difference)
		}
		for typ, o := range g.PromptOverhead {
			if o != nil {
				ovs[typ] = append(ovs[typ], o.Tokens)
				applied[typ] = o.Applied
			}
		}
	}
	if len(pdiffs) > 0 {
		d := mixtureSummary(pdiffs)
		pm.Difference = &d
		ex.PromptTokenMismatch = &pm
	}
	for typ, ds := range ovs {
		if ex.PromptOverhead == nil {
			ex.PromptOverhead = map[string]*report.PromptOverhead{}
		}
		d := mixtureSummary(ds)
		ex.PromptOverhead[typ] = &report.PromptOverhead{Applied: applied[typ], Tokens: &d}
	}
}
