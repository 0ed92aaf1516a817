package mock

import (
	"sync/atomic"
	"time"
)

// llamaCounters are what llama-server's /metrics counts beyond vLLM's
// (Config.Personality "llamacpp"); they are kept for every personality,
// a few atomic adds per request.
type llamaCounters struct {
	promptProcessed atomic.Uint64 // prompt tokens prefilled (not found in the prefix cache)
	promptNs        atomic.Int64  // admission to first token, summed
	predicted       atomic.Uint64 // output tokens of ended requests
	predictedNs     atomic.Int64  // first to last token of ended requests, summed
	decodes         atomic.Uint64 // steps generated (without a capacity model)
	seqMax          atomic.Int64  // the longest sequence a request held: prompt plus output tokens
}

// firstStep counts a request's prefill when its first step is emitted.
func (c *llamaCounters) firstStep(prompt, cached int, took time.Duration) {
	c.promptProcessed.Add(uint64(prompt - cached))
	c.promptNs.Add(int64(took))
	c.held(prompt)
}

// held records that a request holds n tokens (its prompt, cached ones
// included, and its output so far).
func (c *llamaCounters) held(n int) {
	for {
		m := c.seqMax.Load()
		if int64(n) <= m || c.seqMax.CompareAndSwap(m, int64(n)) {
			return
		}
	}
}

// appendLlamaCppExposition writes llama-server's /metrics (--metrics):
// its llamacpp:* names, without labels.
//
//   - prompt_tokens_total: prompt tokens prefilled, cached ones excluded
//     (upstream has no counter of the cached ones: they are in each
//     response's usage and timings), at each request's first step;
//     prompt_seconds_total the admission-to-first-token times.
//   - tokens_predicted_total and tokens_predicted_seconds_total: output
//     tokens and first-to-last-token times, counted when a request ends
//     (as llama-server counts them).
//   - n_decode_total: decode steps (the engine's steps with a capacity
//     model, else every request's steps, each with one busy slot);
//     n_busy_slots_per_decode: the sequences a step carried, averaged
//     over every step since the start (a gauge, as llama-server's);
//     n_tokens_max: the longest sequence a request held (prompt and
//     output so far), typed a counter as llama-server types it.
//   - prompt_tokens_seconds, predicted_tokens_seconds: the totals'
//     throughputs (tokens per second).
//   - requests_processing and requests_deferred: admitted requests not yet
//     ended, less those in the capacity model's waiting queue, and those
//     (without a capacity model none waits).
func (s *Server) appendLlamaCppExposition(b []byte) []byte {
	c := &s.llama
	deferred := s.waitingGauge()
	processing := max(s.metrics.running.Load()-deferred, 0)
	decodes, busy := c.decodes.Load(), c.decodes.Load()
	if e := s.engine; e != nil {
		decodes, busy = uint64(max(e.planned.Load()+1, 0)), uint64(e.busySlots.Load())
	}
	prompt, promptS := float64(c.promptProcessed.Load()), float64(c.promptNs.Load())/1e9
	predicted, predictedS := float64(c.predicted.Load()), float64(c.predictedNs.Load())/1e9
	rate := func(n, s float64) float64 {
		if s <= 0 {
			return 0
		}
		return n / s
	}
	for _, f := range []struct {
		name, typ, help string
		v               float64
	}{
		{"prompt_tokens_total", "counter", "Number of prompt tokens processed.", prompt},
		{"prompt_seconds_total", "counter", "Prompt process time", promptS},
		{"tokens_predicted_total", "counter", "Number of generation tokens processed.", predicted},
		{"tokens_predicted_seconds_total", "counter", "Predict process time", predictedS},
		{"n_decode_total", "counter", "Total number of llama_decode() calls", float64(decodes)},
		{"n_tokens_max", "counter", "Largest observed n_tokens.", float64(c.seqMax.Load())},
		{"prompt_tokens_seconds", "gauge", "Average prompt throughput in tokens/s.", rate(prompt, promptS)},
		{"predicted_tokens_seconds", "gauge", "Average generation throughput in tokens/s.", rate(predicted, predictedS)},
		{"requests_processing", "gauge", "Number of requests processing.", float64(processing)},
		{"requests_deferred", "gauge", "Number of requests deferred.", float64(deferred)},
		{"n_busy_slots_per_decode", "gauge", "Average number of busy slots per llama_decode() call", float64(busy) / float64(max(decodes, 1))},
	} {
		name := "llamacpp:" + f.name
		b = appendHeader(b, name, f.help, f.typ)
		b = append(b, name...)
		b = append(b, ' ')
		b = appendPyFloat(b, f.v)
		b = append(b, '\n')
	}
	return b
}

// llamaTimings are llama-server's per-response timings.
type llamaTimings struct {
	promptN, predictedN, cacheN int
	promptMs, predictedMs       float64
}

// appendTimings appends `,"timings":{...}` when the personality sends
// them.
func (r *renderer) appendTimings(b []byte) []byte {
	if !r.timings {
		return b
	}
	t := &r.timing
	b = append(b, `,"timings":{"cache_n":`...)
	b = appendInt(b, int64(t.cacheN))
	b = append(b, `,"prompt_n":`...)
	b = appendInt(b, int64(t.promptN))
	b = append(b, `,"prompt_ms":`...)
	b = appendPyFloat(b, t.promptMs)
	b = append(b, `,"prompt_per_token_ms":`...)
	b = appendPyFloat(b, perToken(t.promptMs, t.promptN))
	b = append(b, `,"prompt_per_second":`...)
	b = appendPyFloat(b, perSecond(t.promptMs, t.promptN))
	b = append(b, `,"predicted_n":`...)
	b = appendInt(b, int64(t.predictedN))
	b = append(b, `,"predicted_ms":`...)
	b = appendPyFloat(b, t.predictedMs)
	b = append(b, `,"predicted_per_token_ms":`...)
	b = appendPyFloat(b, perToken(t.predictedMs, t.predictedN))
	b = append(b, `,"predicted_per_second":`...)
	b = appendPyFloat(b, perSecond(t.predictedMs, t.predictedN))
	return append(b, '}')
}

func perToken(ms float64, n int) float64 {
	if n <= 0 {
		return 0
	}
	return ms / float64(n)
}

func perSecond(ms float64, n int) float64 {
	if ms <= 0 {
		return 0
	}
	return 1e3 * float64(n) / ms
}

// setTimings fills the response's timings: the prompt from admission to
// the first step, the prediction from the first step to the last.
func (r *renderer) setTimings(admitted, first, last time.Time) {
	r.timing = llamaTimings{
		promptN: r.prompt - r.cached, cacheN: r.cached, predictedN: r.tokens,
		promptMs:    float64(first.Sub(admitted).Microseconds()) / 1e3,
		predictedMs: float64(last.Sub(first).Microseconds()) / 1e3,
	}
}
