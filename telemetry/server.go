package telemetry

import (
	"context"
	"errors"
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

// metricRef names one exposed series: a family, optionally only its series
// with one label value (Triton's nv_trt_llm_request_metrics{request_type=
// "waiting"}), optionally a histogram's sum read as a counter (TGI's token
// histograms), optionally plus a second counter family when the engine
// splits the figure in two (llama.cpp's prompt tokens processed and
// cached), or times a second family when the engine exposes a figure as
// an average per event and the events' counter (llama.cpp's busy slots per
// decode and decodes: their product counts busy slot-steps), with a factor
// to the quantity's unit (Triton's ms → s). mayLack marks a series that
// some builds of its engine do not expose: its absence is no warning.
type metricRef struct {
	name         string
	label, value string
	histSum      bool
	plus, times  string
	scale        float64
	mayLack      bool
}

func ref(name string) metricRef { return metricRef{name: name, scale: 1} }
func refL(name, label, value string) metricRef {
	return metricRef{name: name, label: label, value: value, scale: 1}
}
func refSum(name string) metricRef { return metricRef{name: name, histSum: true, scale: 1} }
func refPlus(name, plus string) metricRef {
	return metricRef{name: name, plus: plus, scale: 1}
}
func refTimes(name, times string) metricRef {
	return metricRef{name: name, times: times, scale: 1}
}

// someBuilds marks r as absent from some builds of its engine.
func someBuilds(r metricRef) metricRef { r.mayLack = true; return r }

// String is the series as a PromQL selector would name it.
func (r metricRef) String() string {
	switch {
	case r.label != "":
		return r.name + "{" + r.label + `="` + r.value + `"}`
	case r.histSum:
		return r.name + "_sum"
	case r.plus != "":
		return r.name + " + " + r.plus
	case r.times != "":
		return r.name + " * " + r.times
	}
	return r.name
}

// matches reports whether series m belongs to the reference.
func (r metricRef) matches(m *dto.Metric) bool {
	return r.label == "" || label(m, r.label) == r.value
}

// value reads series m in the quantity's unit (NaN when it has none).
func (r metricRef) valueOf(m *dto.Metric) float64 {
	if r.histSum {
		if h := m.GetHistogram(); h != nil {
			return h.GetSampleSum() * r.scale
		}
		return math.NaN()
	}
	return scalarValue(m) * r.scale
}

// sum adds the reference's series in the scrape (both families of a plus
// reference; a times reference's products, series by series in the
// scrape's order, which is each replica's); n counts the series read.
func (r metricRef) sum(fams families) (sum float64, n int) {
	if r.times != "" {
		return r.product(fams)
	}
	for _, name := range []string{r.name, r.plus} {
		if name == "" || fams[name] == nil {
			continue
		}
		for _, m := range fams[name].GetMetric() {
			if !r.matches(m) {
				continue
			}
			if v := r.valueOf(m); !math.IsNaN(v) {
				sum += v
				n++
			}
		}
	}
	return sum, n
}

// product sums the products of a times reference's two families, the
// i-th series of one with the i-th of the other; none when the families
// differ in length.
func (r metricRef) product(fams families) (sum float64, n int) {
	a, b := fams[r.name], fams[r.times]
	if a == nil || b == nil || len(a.GetMetric()) != len(b.GetMetric()) {
		return 0, 0
	}
	for i, m := range a.GetMetric() {
		if !r.matches(m) {
			continue
		}
		x, y := r.valueOf(m), scalarValue(b.GetMetric()[i])
		if !math.IsNaN(x) && !math.IsNaN(y) {
			sum += x * y
			n++
		}
	}
	return sum, n
}

// present reports whether the scrape has a series of the reference (of
// its first family, for a plus or times reference).
func (r metricRef) present(fams families) *dto.MetricFamily {
	mf := fams[r.name]
	if mf == nil {
		return nil
	}
	if r.label == "" {
		return mf
	}
	for _, m := range mf.GetMetric() {
		if r.matches(m) {
			return mf
		}
	}
	return nil
}

func refNames(refs []metricRef) []string {
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = r.String()
	}
	return out
}

// engineOf names the engine behind an exposed metric name (the engine
// table's prefixes), else the name's part before a colon.
func engineOf(name string) string {
	if e, _, ok := EngineOfMetric(name); ok {
		return e.Name
	}
	name, _, _ = strings.Cut(name, ":")
	return name
}

// serverQuantity is one server-side figure and the series that carry it,
// in the engine table's order (telemetry.md §3); the first present in a
// scrape is used.
type serverQuantity struct {
	key      string
	kind     colKind
	mean     bool // gauges: average across label sets (engines) instead of summing
	optional bool // not every deployment has it: no warning when absent
	refs     []metricRef
}

// Fixed server columns, in series column order.
const (
	srvKV = iota
	srvRunning
	srvWaiting
	srvPreempt
	srvPrompt
	srvGen
	srvRequests
	srvPrefixQueries
	srvPrefixHits
	srvSpecAccepted
	srvSpecDraft
	srvSpecDrafts
	srvPromptTput
	srvGenTput
	srvSteps
	srvBusySlotSteps
	srvPromptSeconds
	srvGenSeconds
	srvKVTokens
	srvContextMax
	srvFixedCols
)

// serverScalars is an immutable lookup table, indexed by the constants
// above; each figure's series are the engine table's, in its order.
var serverScalars = func() [srvFixedCols]serverQuantity {
	qs := [srvFixedCols]serverQuantity{
		srvKV:            {key: "kv_cache_usage", kind: gaugeCol, mean: true},
		srvRunning:       {key: "requests_running", kind: gaugeCol},
		srvWaiting:       {key: "requests_waiting", kind: gaugeCol},
		srvPreempt:       {key: "preemptions", kind: counterCol, optional: true},
		srvPrompt:        {key: "prompt_tokens", kind: counterCol},
		srvGen:           {key: "generation_tokens", kind: counterCol},
		srvRequests:      {key: "requests_succeeded", kind: counterCol, optional: true},
		srvPrefixQueries: {key: "prefix_cache_queries", kind: counterCol, optional: true},
		srvPrefixHits:    {key: "prefix_cache_hits", kind: counterCol, optional: true},
		srvSpecAccepted:  {key: "spec_decode_accepted_tokens", kind: counterCol, optional: true},
		srvSpecDraft:     {key: "spec_decode_draft_tokens", kind: counterCol, optional: true},
		srvSpecDrafts:    {key: "spec_decode_drafts", kind: counterCol, optional: true},
		srvPromptTput:    {key: "prompt_throughput", kind: gaugeCol, optional: true},
		srvGenTput:       {key: "generation_throughput", kind: gaugeCol, optional: true},
		srvSteps:         {key: "engine_steps", kind: counterCol, optional: true},
		srvBusySlotSteps: {key: "busy_slot_steps", kind: counterCol, optional: true},
		srvPromptSeconds: {key: "prompt_seconds", kind: counterCol, optional: true},
		srvGenSeconds:    {key: "generation_seconds", kind: counterCol, optional: true},
		srvKVTokens:      {key: "kv_cache_tokens", kind: gaugeCol, optional: true},
		srvContextMax:    {key: "context_tokens_max", kind: gaugeCol, optional: true},
	}
	for i := range qs {
		qs[i].refs = scalarRefs(i)
	}
	return qs
}()

// Server histograms.
const (
	histTTFT = iota
	histITL
	histE2E
	histQueue
	histInference
	histPrefill
	histDecode
	histIterTokens
	numHists
)

// serverHistogram is one server histogram: its key and series.
type serverHistogram struct {
	key      string
	optional bool
	refs     []metricRef
}

// serverHistograms is an immutable lookup table of the histograms' keys and
// series (the engine table's); the four after E2E are optional (vLLM's
// request phases, tokens per engine step).
var serverHistograms = func() [numHists]serverHistogram {
	hs := [numHists]serverHistogram{
		histTTFT: {key: "ttft"}, histITL: {key: "itl"}, histE2E: {key: "e2e"},
		histQueue: {key: "queue_time", optional: true}, histInference: {key: "inference_time", optional: true},
		histPrefill: {key: "prefill_time", optional: true}, histDecode: {key: "decode_time", optional: true},
		histIterTokens: {key: "iteration_tokens", optional: true},
	}
	for h := range hs {
		hs[h].refs = histRefs(h)
	}
	return hs
}()

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
	urls     []*url.URL
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
	return NewReplicaSampler([]string{metricsURL}, client, opts)
}

// NewReplicaSampler returns a sampler over the /metrics of every replica of
// a deployment. Each sample scrapes them all at once and combines them as
// one server: counters and histogram buckets summed, queue depths summed,
// KV cache usage averaged. A sample in which any replica fails is an error
// and stores nothing, so that a missing replica never reads as a counter
// reset. The replicas should run the same engine version (the same
// histogram buckets).
func NewReplicaSampler(metricsURLs []string, client *http.Client, opts SamplerOptions) (*ServerSampler, error) {
	if len(metricsURLs) == 0 {
		return nil, fmt.Errorf("server metrics: no URL")
	}
	var urls []*url.URL
	var names []string
	for _, raw := range metricsURLs {
		u, err := parseMetricsURL("server metrics URL", raw)
		if err != nil {
			return nil, err
		}
		urls = append(urls, u)
		names = append(names, u.Redacted())
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
	sv := &ServerSampler{opts: o, clock: newClock(o.Now), urls: urls, name: "server metrics " + strings.Join(names, ", "),
		client: client, s: newSeries(o.MaxPoints, kinds...), used: map[string]string{}, notify: make(chan struct{})}
	for i := range sv.hists {
		sv.hists[i] = histCols{col: map[float64]int{}, sumCol: -1, countCol: -1}
	}
	return sv, nil
}

// Replicas returns the number of /metrics URLs sampled.
func (sv *ServerSampler) Replicas() int { return len(sv.urls) }

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
	scraped := make([]families, len(sv.urls))
	errs := make([]error, len(sv.urls))
	tries := make([]int, len(sv.urls))
	t0 := sv.clock.nanos()
	var wg sync.WaitGroup
	for i, u := range sv.urls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tries[i], errs[i] = retry(ctx, bound, sv.opts.Timeout, func(rctx context.Context) error {
				var err error
				scraped[i], err = scrape(rctx, sv.client, u)
				return err
			})
			if errs[i] == nil && !hasServerMetrics(scraped[i]) {
				names, hints := MetricsEngines()
				errs[i] = fmt.Errorf("no %s metrics found (looked for %s, …); is this the inference server's /metrics URL, and was it started with its metrics on (%s)?",
					names, strings.Join(refNames(serverScalars[srvRunning].refs), ", "), hints)
			}
			if errs[i] != nil && len(sv.urls) > 1 {
				errs[i] = fmt.Errorf("%s: %w", u.Redacted(), errs[i])
			}
		}()
	}
	wg.Wait()
	t1 := sv.clock.nanos()
	t := t0 + (t1-t0)/2
	err := errors.Join(errs...)
	maxTries := 0
	for _, n := range tries {
		maxTries = max(maxTries, n)
	}
	var fams families
	if err == nil {
		fams = mergeFamilies(scraped)
	}
	sv.mu.Lock()
	defer sv.mu.Unlock()
	defer func() {
		close(sv.notify)
		sv.notify = make(chan struct{})
	}()
	if err != nil {
		if maxTries > 1 {
			err = fmt.Errorf("%w (tried %d times)", err, maxTries)
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
		for _, r := range q.refs {
			if r.present(fams) != nil {
				return true
			}
		}
	}
	for _, h := range serverHistograms {
		for _, r := range h.refs {
			if r.present(fams) != nil {
				return true
			}
		}
	}
	return false
}

// mergeFamilies combines the scrapes of several replicas into one: the
// series of each family are put together, so that summing over label sets
// sums over replicas.
func mergeFamilies(all []families) families {
	if len(all) == 1 {
		return all[0]
	}
	out := families{}
	for _, fams := range all {
		for name, mf := range fams {
			if have := out[name]; have != nil {
				have.Metric = append(have.Metric, mf.GetMetric()...)
				continue
			}
			cp := &dto.MetricFamily{Name: mf.Name, Help: mf.Help, Type: mf.Type, Unit: mf.Unit,
				Metric: append([]*dto.Metric(nil), mf.GetMetric()...)}
			out[name] = cp
		}
	}
	return out
}

// firstRef returns the first reference present in the scrape.
func firstRef(fams families, refs []metricRef) (*dto.MetricFamily, metricRef, bool) {
	for _, r := range refs {
		if mf := r.present(fams); mf != nil {
			return mf, r, true
		}
	}
	return nil, metricRef{}, false
}

// ingest turns one scrape into one point (sv.mu held).
func (sv *ServerSampler) ingest(t int64, fams families) {
	// Make sure every histogram bucket has a column before building the row.
	type histVals struct {
		buckets    map[float64]float64
		sum, count float64
	}
	var hv [numHists]*histVals
	for h, sh := range serverHistograms {
		mf, r, ok := firstRef(fams, sh.refs)
		if !ok {
			continue
		}
		sv.used[histKey(h)] = r.String()
		v := &histVals{buckets: map[float64]float64{}}
		for _, m := range mf.GetMetric() {
			hg := m.GetHistogram()
			if hg == nil || !r.matches(m) {
				continue
			}
			for _, b := range hg.GetBucket() {
				v.buckets[b.GetUpperBound()*r.scale] += bucketCount(b)
			}
			v.sum += hg.GetSampleSum() * r.scale
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
		_, r, ok := firstRef(fams, q.refs)
		if !ok {
			continue
		}
		if _, seen := sv.used[q.key]; !seen && sv.s.len() > 0 {
			sv.s.zeroHistory(i) // a counter that appeared counts from zero
		}
		sv.used[q.key] = r.String()
		if sv.engine == "" {
			sv.engine = engineOf(r.name)
		}
		sum, n := r.sum(fams)
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

func histKey(h int) string { return serverHistograms[h].key }

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
	// Engine is the engine table's name of the engine whose metric names
	// were seen (EngineVLLM …).
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
	// Requests is the change of the succeeded-requests counter.
	Requests float64
	// PrefixCacheQueries and PrefixCacheHits are counter changes in tokens
	// (vLLM prefix_cache_queries/hits; SGLang cached_tokens over
	// prompt_tokens); NaN when not exposed.
	PrefixCacheQueries, PrefixCacheHits float64
	// SpecAccepted and SpecDraft are the speculative-decoding accepted and
	// draft token counter changes, SpecDrafts the number of drafts; NaN
	// without speculative decoding.
	SpecAccepted, SpecDraft, SpecDrafts float64
	// PromptThroughput and GenerationThroughput are the server's own
	// tokens/s gauges (llama.cpp's prompt_tokens_seconds and
	// predicted_tokens_seconds), summed over engines; NaN when absent.
	PromptThroughput, GenerationThroughput Stat
	// EngineSteps is the change of the engine's step (decode call)
	// counter, BusySlotsPerStep the mean sequences in a step over the
	// window (llama.cpp's n_decode_total, and the change of its busy
	// slots per decode times decodes over EngineSteps); NaN when absent.
	EngineSteps, BusySlotsPerStep float64
	// PromptSeconds and GenerationSeconds are the server's prefill and
	// generation time summed over requests (llama.cpp's
	// prompt_seconds_total and tokens_predicted_seconds_total, counted
	// when a prefill ends and when a request ends); NaN when absent.
	PromptSeconds, GenerationSeconds float64
	// KVCacheTokens are the tokens in the KV cache (llama.cpp builds that
	// expose kv_cache_tokens); ContextTokensMax is the longest sequence
	// a slot held since the server started (llama.cpp's n_tokens_max);
	// NaN when absent.
	KVCacheTokens    Stat
	ContextTokensMax float64
	// TTFT, ITL and E2E are the server-side latency histograms.
	TTFT, ITL, E2E Latency
	// QueueTime, InferenceTime, PrefillTime and DecodeTime are the
	// request-phase histograms (seconds); IterationTokens is tokens per
	// engine step (its "seconds" fields are tokens). Metric is "" when
	// the server has none.
	QueueTime, InferenceTime, PrefillTime, DecodeTime, IterationTokens Latency
	// Replicas is the number of /metrics URLs combined.
	Replicas int
	// Coverage is the fraction of the window spanned by scrapes.
	Coverage float64
	Warnings []string
}

// newServerWindow returns a window with every figure NaN.
func newServerWindow(start, end time.Time, engine string, replicas int) ServerWindow {
	w := ServerWindow{Start: start, End: end, Engine: engine, Metrics: map[string]string{}, Replicas: replicas}
	f := newServerFigures()
	f.fill(&w)
	w.Warnings = nil
	return w
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
	w := newServerWindow(start, end, sv.engine, len(sv.urls))
	for k, v := range sv.used {
		w.Metrics[k] = v
	}
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
	f := newServerFigures()
	for k, v := range sv.used {
		f.used[k] = v
	}
	for i, q := range serverScalars {
		if !s.valid(i, lo, hi) {
			_, seen := sv.used[q.key]
			f.partial[i] = seen
			continue
		}
		if q.kind == gaugeCol {
			// Only readings inside the window: the edges' interpolation
			// would mix in the queue of the rounds before and after.
			mean, peak, ok := s.readingsIn(i, ca, cb)
			if !ok {
				mean, peak = s.mean(i, ca, cb), s.peakIn(i, ca, cb)
			}
			f.gauges[i] = Stat{Mean: mean, Max: peak}
			continue
		}
		if r := s.resetsIn(i, s.t[lo], s.t[hi]); len(r) > 0 {
			w.Warnings = append(w.Warnings, fmt.Sprintf("counter reset: %s dropped at %s (server restart?); the post-reset value was added",
				sv.used[q.key], time.Unix(0, r[0]).Format(time.RFC3339)))
		}
		f.counters[i] = s.delta(i, ca, cb)
	}
	for h := range serverHistograms {
		f.hists[h] = sv.histDelta(h, lo, hi, ca, cb)
	}
	f.fill(&w)
	return w, nil
}

// serverFigures are one window's figures as either source reads them (the
// sampler's scrapes, or Prometheus' queries), before fill turns them into
// a ServerWindow: the one place where the per-window figures are computed.
type serverFigures struct {
	used     map[string]string     // quantity key → exposed name used
	gauges   [srvFixedCols]Stat    // gauge quantities; NaN when absent
	counters [srvFixedCols]float64 // counter changes; NaN when absent
	partial  [srvFixedCols]bool    // exposed, but absent from some scrapes of the window
	hists    [numHists]histDelta
}

// histDelta is one histogram's change over a window.
type histDelta struct {
	metric     string   // exposed name used; "" when absent
	buckets    []Bucket // cumulative bucket changes, sorted by upper bound
	count, sum float64  // NaN when unknown
	// gap is the exposed name of a histogram the server had but left out
	// of some scrapes in the window (a restart: a labelled histogram
	// reappears only with its first observation).
	gap string
}

func newServerFigures() serverFigures {
	nan := math.NaN()
	f := serverFigures{used: map[string]string{}}
	for i := range f.gauges {
		f.gauges[i], f.counters[i] = Stat{nan, nan}, nan
	}
	for h := range f.hists {
		f.hists[h] = histDelta{count: nan, sum: nan}
	}
	return f
}

// fill sets w's figures from f, and warns about what the server does not
// expose.
func (f *serverFigures) fill(w *ServerWindow) {
	for k, v := range f.used {
		w.Metrics[k] = v
	}
	w.KVCacheUsage = f.gauges[srvKV]
	w.RequestsRunning = f.gauges[srvRunning]
	w.RequestsWaiting = f.gauges[srvWaiting]
	w.Preemptions = f.counters[srvPreempt]
	w.PromptTokens = f.counters[srvPrompt]
	w.GenerationTokens = f.counters[srvGen]
	w.Requests = f.counters[srvRequests]
	w.PrefixCacheQueries, w.PrefixCacheHits = f.counters[srvPrefixQueries], f.counters[srvPrefixHits]
	w.SpecAccepted, w.SpecDraft, w.SpecDrafts = f.counters[srvSpecAccepted], f.counters[srvSpecDraft], f.counters[srvSpecDrafts]
	w.PromptThroughput, w.GenerationThroughput = f.gauges[srvPromptTput], f.gauges[srvGenTput]
	w.EngineSteps = f.counters[srvSteps]
	w.BusySlotsPerStep = math.NaN()
	if w.EngineSteps > 0 {
		w.BusySlotsPerStep = f.counters[srvBusySlotSteps] / w.EngineSteps
	}
	w.PromptSeconds, w.GenerationSeconds = f.counters[srvPromptSeconds], f.counters[srvGenSeconds]
	w.KVCacheTokens, w.ContextTokensMax = f.gauges[srvKVTokens], f.gauges[srvContextMax].Max
	eng, known := engineNamed(w.Engine)
	for i, q := range serverScalars {
		if _, seen := f.used[q.key]; !seen {
			if !q.optional && (!known || eng.expects(eng.scalars[i])) {
				w.Warnings = append(w.Warnings, fmt.Sprintf("server does not expose %s (looked for %s)", q.key, strings.Join(refNames(q.refs), ", ")))
			}
		} else if f.partial[i] {
			w.Warnings = append(w.Warnings, fmt.Sprintf("missing samples: %s absent from some scrapes in the window", f.used[q.key]))
		}
	}
	lats := [numHists]*Latency{&w.TTFT, &w.ITL, &w.E2E, &w.QueueTime, &w.InferenceTime, &w.PrefillTime, &w.DecodeTime, &w.IterationTokens}
	for h, sh := range serverHistograms {
		*lats[h] = f.hists[h].latency()
		if g := f.hists[h].gap; g != "" {
			w.Warnings = append(w.Warnings, fmt.Sprintf("missing samples: %s absent from some scrapes in the window (a server restart?): no server %s for it", g, histKey(h)))
			continue
		}
		if lats[h].Metric == "" && !sh.optional && (!known || eng.expects(eng.hists[h])) {
			w.Warnings = append(w.Warnings, fmt.Sprintf("server does not expose a %s histogram (looked for %s)", histKey(h), strings.Join(refNames(sh.refs), ", ")))
		}
	}
}

func emptyLatency() Latency {
	nan := math.NaN()
	return Latency{Count: nan, MeanS: nan, P50: nan, P95: nan, P99: nan}
}

// latency computes the histogram's window figures: mean Δsum/Δcount and
// quantiles interpolated in the bucket changes.
func (d histDelta) latency() Latency {
	l := emptyLatency()
	if d.metric == "" {
		return l
	}
	l.Metric, l.Buckets, l.Count = d.metric, d.buckets, d.count
	if l.Count > 0 {
		l.MeanS = d.sum / l.Count
	}
	l.P50 = HistogramQuantile(0.50, l.Buckets)
	l.P95 = HistogramQuantile(0.95, l.Buckets)
	l.P99 = HistogramQuantile(0.99, l.Buckets)
	return l
}

// histDelta reads one histogram's change over the window (sv.mu held).
func (sv *ServerSampler) histDelta(h, lo, hi int, a, b int64) histDelta {
	d := histDelta{count: math.NaN(), sum: math.NaN()}
	hc := sv.hists[h]
	if hc.sumCol < 0 {
		return d
	}
	if !sv.s.valid(hc.countCol, lo, hi) {
		d.gap = sv.used[histKey(h)]
		return d
	}
	d.metric = sv.used[histKey(h)]
	for _, le := range hc.les {
		c := hc.col[le]
		if !sv.s.valid(c, lo, hi) {
			continue // a bucket layout change: skip buckets not present throughout
		}
		d.buckets = append(d.buckets, Bucket{UpperBound: le, Count: sv.s.delta(c, a, b)})
	}
	d.count = sv.s.delta(hc.countCol, a, b)
	d.sum = sv.s.delta(hc.sumCol, a, b)
	return d
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
