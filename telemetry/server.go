package telemetry

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
)

// serverQuantity is one server-side figure and the metric names that carry
// it, vLLM first, then SGLang (telemetry.md §3); the first name present in a
// scrape is used.
type serverQuantity struct {
	key   string
	kind  colKind
	mean  bool // gauges: average across label sets (engines) instead of summing
	names []string
}

// Fixed server columns, in series column order.
const (
	srvKV = iota
	srvRunning
	srvWaiting
	srvPreempt
	srvPrompt
	srvGen
	srvFixedCols
)

// serverScalars is an immutable lookup table, indexed by the constants above.
var serverScalars = [srvFixedCols]serverQuantity{
	srvKV:      {"kv_cache_usage", gaugeCol, true, []string{"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc", "sglang:token_usage"}},
	srvRunning: {"requests_running", gaugeCol, false, []string{"vllm:num_requests_running", "sglang:num_running_reqs"}},
	srvWaiting: {"requests_waiting", gaugeCol, false, []string{"vllm:num_requests_waiting", "sglang:num_queue_reqs"}},
	srvPreempt: {"preemptions", counterCol, false, []string{"vllm:num_preemptions_total", "sglang:num_retracted_requests_total"}},
	srvPrompt:  {"prompt_tokens", counterCol, false, []string{"vllm:prompt_tokens_total", "sglang:prompt_tokens_total"}},
	srvGen:     {"generation_tokens", counterCol, false, []string{"vllm:generation_tokens_total", "sglang:generation_tokens_total"}},
}

// Server histograms.
const (
	histTTFT = iota
	histITL
	histE2E
	numHists
)

// serverHistograms is an immutable lookup table of histogram names.
var serverHistograms = [numHists][]string{
	histTTFT: {"vllm:time_to_first_token_seconds", "sglang:time_to_first_token_seconds"},
	histITL: {"vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds",
		"sglang:inter_token_latency_seconds", "sglang:time_per_output_token_seconds"},
	histE2E: {"vllm:e2e_request_latency_seconds", "sglang:e2e_request_latency_seconds"},
}

// histCols maps one histogram's buckets to series columns.
type histCols struct {
	les      []float64       // sorted upper bounds
	col      map[float64]int // upper bound → column
	sumCol   int
	countCol int
}

// ServerSampler samples an inference server's /metrics (vLLM, or SGLang
// where its names differ) with the same mechanism as GPUSampler, and answers
// queries over past windows: KV cache usage, queue depths, preemptions,
// token counters and server-side latency percentiles.
//
// Series with several label sets (data-parallel engines, several models) are
// combined at each scrape: queue depths and counters are summed, KV cache
// usage is averaged (each engine reports the fraction of its own cache).
// Counters are summed before reset detection, so a restart of one engine
// reads as a reset of the sum. A counter or histogram absent from the first
// scrapes and present later (vLLM creates its histograms at the first
// request) counts from zero from its first appearance.
type ServerSampler struct {
	opts     SamplerOptions
	clock    clock
	url      *url.URL
	name     string
	client   *http.Client
	loop     poller
	sampleMu sync.Mutex

	mu     sync.Mutex
	s      *series
	hists  [numHists]histCols
	used   map[string]string // quantity key → metric name seen last
	engine string
	errs   errorLog
	lastOK int64
	notify chan struct{} // closed and replaced after every sample
}

// NewServerSampler returns a sampler for the server's metrics URL, e.g.
// http://127.0.0.1:8000/metrics (path /metrics added when absent). A nil
// client means http.DefaultClient.
func NewServerSampler(metricsURL string, client *http.Client, opts SamplerOptions) (*ServerSampler, error) {
	u, err := parseMetricsURL("server metrics URL", metricsURL)
	if err != nil {
		return nil, err
	}
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if client == nil {
		client = http.DefaultClient
	}
	kinds := make([]colKind, srvFixedCols)
	for i, q := range serverScalars {
		kinds[i] = q.kind
	}
	sv := &ServerSampler{opts: o, clock: newClock(o.Now), url: u, name: "server metrics " + u.Redacted(),
		client: client, s: newSeries(o.MaxPoints, kinds...), used: map[string]string{}, notify: make(chan struct{})}
	for i := range sv.hists {
		sv.hists[i] = histCols{col: map[float64]int{}, sumCol: -1, countCol: -1}
	}
	return sv, nil
}

// Start takes a first sample, returning its error (unreachable URL, no vLLM
// or SGLang metrics), then samples every Interval until ctx ends or Stop.
// Each scrape retries transient errors (HTTP 5xx, time-outs, connection
// errors; see retry.go) within the interval.
func (sv *ServerSampler) Start(ctx context.Context) error {
	return sv.loop.start(ctx, sv.opts.Interval, sv.Sample, sv.periodic)
}

// StartAnyway samples every Interval until ctx ends or Stop, like Start,
// without a first sample: for a server whose probe failed for a transient
// reason (Transient), so that the windows get whatever scrapes succeed
// later and say what is missing, instead of the source being dropped.
func (sv *ServerSampler) StartAnyway(ctx context.Context) error {
	return sv.loop.run(ctx, sv.opts.Interval, sv.periodic)
}

func (sv *ServerSampler) periodic(ctx context.Context) error { return sv.sample(ctx, sv.opts.Interval) }

// Stop ends background sampling and waits for it.
func (sv *ServerSampler) Stop() { sv.loop.stop() }

// Sample scrapes the server once, now, retrying transient errors until
// ctx's deadline (one Timeout when it has none): a probe before the run.
func (sv *ServerSampler) Sample(ctx context.Context) error {
	return sv.sample(ctx, probeBound(ctx, sv.opts.Timeout))
}

func (sv *ServerSampler) sample(ctx context.Context, bound time.Duration) error {
	sv.sampleMu.Lock()
	defer sv.sampleMu.Unlock()
	var fams families
	var t int64
	tries, err := retry(ctx, bound, sv.opts.Timeout, func(rctx context.Context) error {
		t0 := sv.clock.nanos()
		var err error
		fams, err = scrape(rctx, sv.client, sv.url)
		t1 := sv.clock.nanos()
		t = t0 + (t1-t0)/2
		return err
	})
	if err == nil && !hasServerMetrics(fams) {
		err = fmt.Errorf("no vLLM or SGLang metrics found (looked for %s, %s, …); is this the inference server's /metrics URL, and for SGLang was it started with --enable-metrics?",
			serverScalars[srvRunning].names[0], serverScalars[srvRunning].names[1])
	}
	sv.mu.Lock()
	defer sv.mu.Unlock()
	defer func() {
		close(sv.notify)
		sv.notify = make(chan struct{})
	}()
	if err != nil {
		if tries > 1 {
			err = fmt.Errorf("%w (tried %d times)", err, tries)
		}
		err = fmt.Errorf("%s: %w", sv.name, err)
		sv.errs.add(t, err)
		return err
	}
	sv.lastOK = t
	sv.ingest(t, fams)
	return nil
}

func hasServerMetrics(fams families) bool {
	for _, q := range serverScalars {
		for _, n := range q.names {
			if fams[n] != nil {
				return true
			}
		}
	}
	for _, names := range serverHistograms {
		for _, n := range names {
			if fams[n] != nil {
				return true
			}
		}
	}
	return false
}

// ingest turns one scrape into one point (sv.mu held).
func (sv *ServerSampler) ingest(t int64, fams families) {
	// Make sure every histogram bucket has a column before building the row.
	type histVals struct {
		buckets    map[float64]float64
		sum, count float64
	}
	var hv [numHists]*histVals
	for h, names := range serverHistograms {
		mf, name := firstFamily(fams, names)
		if mf == nil {
			continue
		}
		sv.used[histKey(h)] = name
		v := &histVals{buckets: map[float64]float64{}}
		for _, m := range mf.GetMetric() {
			hg := m.GetHistogram()
			if hg == nil {
				continue
			}
			for _, b := range hg.GetBucket() {
				v.buckets[b.GetUpperBound()] += bucketCount(b)
			}
			v.sum += hg.GetSampleSum()
			v.count += histCount(hg)
		}
		if _, ok := v.buckets[math.Inf(1)]; !ok {
			v.buckets[math.Inf(1)] = v.count
		}
		hc := &sv.hists[h]
		created := hc.sumCol < 0 && sv.s.len() > 0 // appeared after the first scrape
		for le := range v.buckets {
			if _, ok := hc.col[le]; !ok {
				hc.col[le] = sv.s.addColumn(counterCol)
				hc.les = append(hc.les, le)
				sort.Float64s(hc.les)
			}
		}
		if hc.sumCol < 0 {
			hc.sumCol = sv.s.addColumn(counterCol)
			hc.countCol = sv.s.addColumn(counterCol)
		}
		if created {
			for _, c := range hc.col {
				sv.s.zeroHistory(c)
			}
			sv.s.zeroHistory(hc.sumCol)
			sv.s.zeroHistory(hc.countCol)
		}
		hv[h] = v
	}

	row := make([]float64, len(sv.s.cols))
	for i := range row {
		row[i] = math.NaN()
	}
	for i, q := range serverScalars {
		mf, name := firstFamily(fams, q.names)
		if mf == nil {
			continue
		}
		if _, seen := sv.used[q.key]; !seen && sv.s.len() > 0 {
			sv.s.zeroHistory(i) // a counter that appeared counts from zero
		}
		sv.used[q.key] = name
		if sv.engine == "" {
			sv.engine, _, _ = strings.Cut(name, ":")
		}
		sum, n := 0.0, 0
		for _, m := range mf.GetMetric() {
			if v := scalarValue(m); !math.IsNaN(v) {
				sum += v
				n++
			}
		}
		if n == 0 {
			continue
		}
		if q.mean {
			sum /= float64(n)
		}
		row[i] = sum
	}
	for h, v := range hv {
		if v == nil {
			continue
		}
		hc := &sv.hists[h]
		for le, c := range v.buckets {
			row[hc.col[le]] = c
		}
		row[hc.sumCol] = v.sum
		row[hc.countCol] = v.count
	}
	sv.s.add(t, row)
}

func firstFamily(fams families, names []string) (*dto.MetricFamily, string) {
	for _, n := range names {
		if mf := fams[n]; mf != nil {
			return mf, n
		}
	}
	return nil, ""
}

func histKey(h int) string { return [numHists]string{"ttft", "itl", "e2e"}[h] }

func bucketCount(b *dto.Bucket) float64 {
	if b.CumulativeCountFloat != nil {
		return b.GetCumulativeCountFloat()
	}
	return float64(b.GetCumulativeCount())
}

func histCount(h *dto.Histogram) float64 {
	if h.SampleCountFloat != nil {
		return h.GetSampleCountFloat()
	}
	return float64(h.GetSampleCount())
}

// Stat summarises a gauge over a window. NaN when the server does not
// expose it.
type Stat struct {
	Mean float64 // time-weighted mean (trapezoid between samples)
	Max  float64 // highest sampled value
}

// Latency is a server-side latency histogram over a window. Percentiles are
// computed from the change of the cumulative buckets over the window with
// HistogramQuantile (linear interpolation inside a bucket, as PromQL's
// histogram_quantile); the server's buckets are coarse (0.25 → 0.5 → 0.75 s
// for vLLM TTFT), so these are cross-checks for client-side figures.
type Latency struct {
	Metric        string   // exposed name used, "" when absent
	Count         float64  // observations in the window
	MeanS         float64  // Δsum / Δcount, seconds
	P50, P95, P99 float64  // seconds
	Buckets       []Bucket // cumulative bucket deltas over the window
}

// ServerWindow is what the server reported about one window.
type ServerWindow struct {
	Start, End time.Time
	// Engine is "vllm" or "sglang", from the metric names seen.
	Engine string
	// Metrics maps each figure (kv_cache_usage, requests_running,
	// requests_waiting, preemptions, prompt_tokens, generation_tokens, ttft,
	// itl, e2e) to the exposed metric name used.
	Metrics map[string]string
	// KVCacheUsage is the fraction 0..1 of KV cache in use (vLLM
	// kv_cache_usage_perc, SGLang token_usage), averaged over engines.
	KVCacheUsage Stat
	// RequestsRunning and RequestsWaiting are summed over engines.
	RequestsRunning, RequestsWaiting Stat
	// Preemptions is the counter change (vLLM num_preemptions_total, SGLang
	// num_retracted_requests_total); NaN when not exposed.
	Preemptions float64
	// PromptTokens and GenerationTokens are counter changes, a cross-check
	// of the client's token counts.
	PromptTokens, GenerationTokens float64
	// TTFT, ITL and E2E are the server-side latency histograms.
	TTFT, ITL, E2E Latency
	// Coverage is the fraction of the window spanned by scrapes.
	Coverage float64
	Warnings []string
}

// Window returns the server figures over [start, end]; counters and
// histogram buckets are interpolated at the edges like energy counters.
func (sv *ServerSampler) Window(start, end time.Time) (ServerWindow, error) {
	if !end.After(start) {
		return ServerWindow{}, fmt.Errorf("server window: end %s is not after start %s", end.Format(time.RFC3339Nano), start.Format(time.RFC3339Nano))
	}
	a, b := sv.clock.nanosOf(start), sv.clock.nanosOf(end)
	sv.mu.Lock()
	defer sv.mu.Unlock()
	w := ServerWindow{Start: start, End: end, Engine: sv.engine, Metrics: map[string]string{}}
	for k, v := range sv.used {
		w.Metrics[k] = v
	}
	nan := math.NaN()
	w.KVCacheUsage, w.RequestsRunning, w.RequestsWaiting = Stat{nan, nan}, Stat{nan, nan}, Stat{nan, nan}
	w.Preemptions, w.PromptTokens, w.GenerationTokens = nan, nan, nan
	w.TTFT, w.ITL, w.E2E = emptyLatency(), emptyLatency(), emptyLatency()
	s := sv.s
	ca, cb, ok := s.span(a, b)
	if !ok {
		if s.len() == 0 {
			if _, msg := sv.errs.lastAt(); msg != "" {
				return ServerWindow{}, fmt.Errorf("server window: %s has not been scraped successfully (last error: %s)", sv.name, msg)
			}
			return ServerWindow{}, fmt.Errorf("server window: %s has not been scraped successfully", sv.name)
		}
		w.Warnings = append(w.Warnings, fmt.Sprintf("missing samples: no scrape of %s inside the window", sv.name))
		return w, nil
	}
	w.Coverage = float64(cb-ca) / float64(b-a)
	if w.Coverage < 1 {
		w.Warnings = append(w.Warnings, fmt.Sprintf("partial coverage: scrapes of %s span %.1f%% of the window", sv.name, 100*w.Coverage))
	}
	if msg, ok := sv.errs.warning(sv.name, a, b); ok {
		w.Warnings = append(w.Warnings, msg)
	}
	lo, hi := s.bracket(ca, cb)
	if gap, at := s.maxGap(lo, hi); gap > 3*int64(sv.opts.Interval) {
		w.Warnings = append(w.Warnings, fmt.Sprintf("missing samples: no scrape of %s for %v from %s",
			sv.name, time.Duration(gap).Round(time.Millisecond), time.Unix(0, at).Format(time.RFC3339)))
	}
	gauge := func(c int) Stat {
		if !s.valid(c, lo, hi) {
			return Stat{nan, nan}
		}
		return Stat{Mean: s.mean(c, ca, cb), Max: s.peakIn(c, ca, cb)}
	}
	counter := func(c int) float64 {
		if !s.valid(c, lo, hi) {
			return nan
		}
		if r := s.resetsIn(c, s.t[lo], s.t[hi]); len(r) > 0 {
			w.Warnings = append(w.Warnings, fmt.Sprintf("counter reset: %s dropped at %s (server restart?); the post-reset value was added",
				sv.used[serverScalars[c].key], time.Unix(0, r[0]).Format(time.RFC3339)))
		}
		return s.delta(c, ca, cb)
	}
	w.KVCacheUsage = gauge(srvKV)
	w.RequestsRunning = gauge(srvRunning)
	w.RequestsWaiting = gauge(srvWaiting)
	w.Preemptions = counter(srvPreempt)
	w.PromptTokens = counter(srvPrompt)
	w.GenerationTokens = counter(srvGen)
	for i, q := range serverScalars {
		if _, seen := sv.used[q.key]; !seen {
			w.Warnings = append(w.Warnings, fmt.Sprintf("server does not expose %s (looked for %s)", q.key, strings.Join(q.names, ", ")))
		} else if !s.valid(i, lo, hi) {
			w.Warnings = append(w.Warnings, fmt.Sprintf("missing samples: %s absent from some scrapes in the window", sv.used[q.key]))
		}
	}
	lats := [numHists]*Latency{&w.TTFT, &w.ITL, &w.E2E}
	for h := range serverHistograms {
		*lats[h] = sv.latency(h, lo, hi, ca, cb)
		if lats[h].Metric == "" {
			w.Warnings = append(w.Warnings, fmt.Sprintf("server does not expose a %s histogram (looked for %s)", histKey(h), strings.Join(serverHistograms[h], ", ")))
		}
	}
	return w, nil
}

func emptyLatency() Latency {
	nan := math.NaN()
	return Latency{Count: nan, MeanS: nan, P50: nan, P95: nan, P99: nan}
}

// latency computes one histogram's window figures (sv.mu held).
func (sv *ServerSampler) latency(h, lo, hi int, a, b int64) Latency {
	l := emptyLatency()
	hc := sv.hists[h]
	if hc.sumCol < 0 || !sv.s.valid(hc.countCol, lo, hi) {
		return l
	}
	l.Metric = sv.used[histKey(h)]
	for _, le := range hc.les {
		c := hc.col[le]
		if !sv.s.valid(c, lo, hi) {
			continue // a bucket layout change: skip buckets not present throughout
		}
		l.Buckets = append(l.Buckets, Bucket{UpperBound: le, Count: sv.s.delta(c, a, b)})
	}
	l.Count = sv.s.delta(hc.countCol, a, b)
	if l.Count > 0 {
		l.MeanS = sv.s.delta(hc.sumCol, a, b) / l.Count
	}
	l.P50 = HistogramQuantile(0.50, l.Buckets)
	l.P95 = HistogramQuantile(0.95, l.Buckets)
	l.P99 = HistogramQuantile(0.99, l.Buckets)
	return l
}

// WaitCovered blocks until a successful scrape at or after t exists, or ctx
// ends, so that a window ending at t is interpolated rather than clamped.
// A scrape after t that failed every try ends the wait with its error.
func (sv *ServerSampler) WaitCovered(ctx context.Context, t time.Time) error {
	tn := sv.clock.nanosOf(t)
	for {
		sv.mu.Lock()
		last, _ := sv.s.last()
		ch := sv.notify
		failed, msg := sv.errs.lastAt()
		sv.mu.Unlock()
		if last >= tn {
			return nil
		}
		if failed >= tn {
			return fmt.Errorf("the scrape after %s failed: %s", t.Format(time.RFC3339Nano), msg)
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("waiting for a scrape of %s after %s: %w", sv.name, t.Format(time.RFC3339Nano), ctx.Err())
		case <-sv.loop.stoppedCh():
			return fmt.Errorf("waiting for a scrape of %s after %s: %w", sv.name, t.Format(time.RFC3339Nano), errStopped)
		}
	}
}
