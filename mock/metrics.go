package mock

import (
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Bucket boundaries (seconds) of vLLM's latency histograms.
var (
	ttftBuckets = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5,
		0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560}
	itlBuckets = []float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5,
		0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80}
	e2eBuckets = []float64{0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50,
		60, 120, 240, 480, 960, 1920, 7680}
)

// finished_reason label values of vllm:request_success_total, in exposition order.
const (
	reasonStop = iota
	reasonLength
	reasonAbort
	reasonError
	numReasons
)

var reasonNames = [numReasons]string{"stop", "length", "abort", "error"}

// histogram is a fixed-bucket histogram updated with atomics. Bucket counts
// are per bucket (not cumulative); the exposition accumulates them.
type histogram struct {
	bounds   []float64 // upper bounds in seconds, without +Inf
	boundsNs []int64
	counts   []atomic.Uint64 // len(bounds)+1, the last one for +Inf
	count    atomic.Uint64
	sumNs    atomic.Int64
}

func newHistogram(bounds []float64) *histogram {
	h := &histogram{bounds: bounds, boundsNs: make([]int64, len(bounds)), counts: make([]atomic.Uint64, len(bounds)+1)}
	for i, b := range bounds {
		h.boundsNs[i] = int64(math.Round(b * 1e9))
	}
	return h
}

// observeN records n observations of d.
func (h *histogram) observeN(d time.Duration, n uint64) {
	if n == 0 {
		return
	}
	ns := int64(d)
	i := 0
	for i < len(h.boundsNs) && ns > h.boundsNs[i] {
		i++
	}
	h.counts[i].Add(n)
	h.count.Add(n)
	h.sumNs.Add(ns * int64(n))
}

// metrics is the state behind /metrics. Everything is an atomic updated at
// most a few times per write batch; there is no lock.
type metrics struct {
	running          atomic.Int64 // requests between admission and their end
	kvTokens         atomic.Int64 // prompt + emitted tokens of running requests
	promptTokens     atomic.Uint64
	generationTokens atomic.Uint64
	success          [numReasons]atomic.Uint64
	ttft             *histogram
	itl              *histogram // vllm:inter_token_latency_seconds and vllm:time_per_output_token_seconds
	e2e              *histogram
	phases           phaseHistograms
}

func newMetrics() *metrics {
	return &metrics{ttft: newHistogram(ttftBuckets), itl: newHistogram(itlBuckets), e2e: newHistogram(e2eBuckets), phases: newPhaseHistograms()}
}

// appendExposition writes the Prometheus text exposition, in the style of
// vLLM's Python prometheus_client: counters named with _total in HELP and TYPE,
// floats formatted like Python, labels engine and model_name.
//
// What each family means here:
//   - vllm:num_requests_running: without a capacity model, admitted
//     completion requests not yet ended; with one, the sequences in the
//     engine's batch (prefilling or decoding), as of the last step.
//   - vllm:num_requests_waiting: 0 without a capacity model (no queue); with
//     one, the requests in its waiting queue, as of the last step.
//   - vllm:kv_cache_usage_perc, vllm:gpu_cache_usage_perc: see Config.KVCacheTokens.
//   - vllm:num_preemptions_total: always 0; the mock never preempts (its
//     capacity model has no KV-cache limit).
//   - vllm:prompt_tokens_total: prompt tokens of requests whose first step was reached.
//   - vllm:generation_tokens_total: output tokens generated (for streams: written).
//   - vllm:request_success_total{finished_reason}: stop and length for normal
//     ends, abort for injected disconnects, clients gone and server close,
//     error for injected stream errors.
//   - vllm:time_to_first_token_seconds: first step's emission time - arrival.
//   - vllm:inter_token_latency_seconds and vllm:time_per_output_token_seconds
//     (the same observations under the new and the deprecated name): one per
//     step after the first, the time since the previous step's emission (0 for
//     steps written in the same write as the previous one).
//   - vllm:e2e_request_latency_seconds: arrival to the end of the last write,
//     for requests that finished with stop or length.
//
// For non-streaming requests "emission" is the moment the mock reached the
// step's deadline; the body is written once, after the last step.
//
// Without series only the gauges are written (Config.LazyMetrics before
// the first request).
func (m *metrics) appendExposition(b []byte, model string, kvCacheTokens int, g gauges, series bool) []byte {
	labels := `engine="0",model_name="` + escapeLabel(model) + `"`
	kv := float64(g.kvTokens) / float64(kvCacheTokens)
	kv = min(max(kv, 0), 1)

	b = appendGauge(b, "vllm:num_requests_running", "Number of requests in model execution batches.", labels, float64(g.running))
	b = appendGauge(b, "vllm:num_requests_waiting", "Number of requests waiting to be processed.", labels, float64(g.waiting))
	b = appendGauge(b, "vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", labels, kv)
	b = appendGauge(b, "vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage.", labels, kv)
	if !series {
		return b
	}
	b = appendCounter(b, "vllm:num_preemptions_total", "Cumulative number of preemption from the engine.", labels, 0)
	b = appendCounter(b, "vllm:prompt_tokens_total", "Number of prefill tokens processed.", labels, float64(m.promptTokens.Load()))
	b = appendCounter(b, "vllm:generation_tokens_total", "Number of generation tokens processed.", labels, float64(m.generationTokens.Load()))

	b = appendHeader(b, "vllm:request_success_total", "Count of successfully processed requests.", "counter")
	for r := range numReasons {
		b = append(b, "vllm:request_success_total{"...)
		b = append(b, `engine="0",finished_reason="`...)
		b = append(b, reasonNames[r]...)
		b = append(b, `",model_name="`...)
		b = append(b, escapeLabel(model)...)
		b = append(b, "\"} "...)
		b = appendPyFloat(b, float64(m.success[r].Load()))
		b = append(b, '\n')
	}

	b = appendHistogram(b, "vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", model, m.ttft)
	b = appendHistogram(b, "vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", model, m.itl)
	b = appendHistogram(b, "vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds.", model, m.itl)
	b = appendHistogram(b, "vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", model, m.e2e)
	b = m.phases.append(b, model)
	if g.iterTokens != nil {
		b = appendHistogram(b, "vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.", model, g.iterTokens)
	}
	return b
}

// gauges are the scheduler gauges of the exposition.
type gauges struct {
	running, waiting, kvTokens int64
	iterTokens                 *histogram // the engine's tokens per step; nil without a capacity model
}

// gauges reads the scheduler gauges: the engine's with a capacity model,
// else the handlers' own counts.
func (s *Server) gauges() gauges {
	if e := s.engine; e != nil {
		return gauges{running: e.running.Load(), waiting: e.waiting.Load(), kvTokens: e.kvTokens.Load(), iterTokens: e.iterTokens}
	}
	return gauges{running: s.metrics.running.Load(), kvTokens: s.metrics.kvTokens.Load()}
}

func appendHeader(b []byte, name, help, typ string) []byte {
	b = append(b, "# HELP "...)
	b = append(b, name...)
	b = append(b, ' ')
	b = append(b, help...)
	b = append(b, "\n# TYPE "...)
	b = append(b, name...)
	b = append(b, ' ')
	b = append(b, typ...)
	return append(b, '\n')
}

func appendSample(b []byte, name, labels string, v float64) []byte {
	b = append(b, name...)
	b = append(b, '{')
	b = append(b, labels...)
	b = append(b, "} "...)
	b = appendPyFloat(b, v)
	return append(b, '\n')
}

func appendGauge(b []byte, name, help, labels string, v float64) []byte {
	return appendSample(appendHeader(b, name, help, "gauge"), name, labels, v)
}

func appendCounter(b []byte, name, help, labels string, v float64) []byte {
	return appendSample(appendHeader(b, name, help, "counter"), name, labels, v)
}

func appendHistogram(b []byte, name, help, model string, h *histogram) []byte {
	b = appendHeader(b, name, help, "histogram")
	modelLabel := `model_name="` + escapeLabel(model) + `"`
	// Read count first: concurrent observations may land between the loads,
	// and count <= the +Inf bucket keeps the exposition consistent for parsers.
	count := h.count.Load()
	var cum uint64
	for i := 0; i <= len(h.bounds); i++ {
		cum += h.counts[i].Load()
		b = append(b, name...)
		b = append(b, `_bucket{engine="0",le="`...)
		if i == len(h.bounds) {
			b = append(b, "+Inf"...)
		} else {
			b = appendPyFloat(b, h.bounds[i])
		}
		b = append(b, "\","...)
		b = append(b, modelLabel...)
		b = append(b, "} "...)
		if i == len(h.bounds) {
			cum = max(cum, count)
		}
		b = appendPyFloat(b, float64(cum))
		b = append(b, '\n')
	}
	b = appendSample(b, name+"_count", `engine="0",`+modelLabel, float64(count))
	return appendSample(b, name+"_sum", `engine="0",`+modelLabel, float64(h.sumNs.Load())/1e9)
}

// escapeLabel escapes a Prometheus label value.
func escapeLabel(s string) string {
	if !strings.ContainsAny(s, "\\\"\n") {
		return s
	}
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

// appendPyFloat formats v as Python's prometheus_client does (floatToGoString):
// Python's repr ("1.0", "0.005", "1e-05"), switched to Go-style exponent form
// for positive values with more than six digits before the point
// ("1.843112e+06"), and "+Inf", "-Inf", "NaN".
func appendPyFloat(b []byte, v float64) []byte {
	switch {
	case math.IsInf(v, 1):
		return append(b, "+Inf"...)
	case math.IsInf(v, -1):
		return append(b, "-Inf"...)
	case math.IsNaN(v):
		return append(b, "NaN"...)
	}
	// Python's repr: shortest round-trip digits; fixed notation when
	// 1e-4 <= |v| < 1e16, else exponent notation with at least two exponent digits.
	a := math.Abs(v)
	if v != 0 && (a < 1e-4 || a >= 1e16) {
		s := strconv.FormatFloat(v, 'e', -1, 64) // e.g. 1e-05, 1.5e+16
		return append(b, s...)
	}
	start := len(b)
	b = strconv.AppendFloat(b, v, 'f', -1, 64)
	s := b[start:]
	dot := -1
	for i, c := range s {
		if c == '.' {
			dot = i
			break
		}
	}
	if dot < 0 {
		b = append(b, '.', '0')
		s = b[start:]
		dot = len(s) - 2
	}
	if v > 0 && dot > 6 {
		// mantissa = s[0] "." s[1:dot] s[dot+1:], trailing '0' and '.' stripped.
		digits := make([]byte, 0, len(s))
		digits = append(digits, s[0], '.')
		digits = append(digits, s[1:dot]...)
		digits = append(digits, s[dot+1:]...)
		for len(digits) > 0 && (digits[len(digits)-1] == '0' || digits[len(digits)-1] == '.') {
			digits = digits[:len(digits)-1]
		}
		b = append(b[:start], digits...)
		b = append(b, "e+0"...)
		b = strconv.AppendInt(b, int64(dot-1), 10)
	}
	return b
}
