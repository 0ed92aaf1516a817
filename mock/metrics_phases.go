package mock

import "time"

// phaseHistograms are vLLM's request-phase histograms, observed once per
// request that finished with stop or length (as e2e):
//   - vllm:request_queue_time_seconds: arrival to admission into the
//     engine's batch (the start of the step that took it from the waiting
//     queue); 0 without a capacity model, which has no queue;
//   - vllm:request_prefill_time_seconds: admission to the first token's
//     emission;
//   - vllm:request_decode_time_seconds: first token to the end;
//   - vllm:request_inference_time_seconds: admission to the end (prefill
//     plus decode).
//
// Buckets are vLLM's request latency buckets (as e2e).
type phaseHistograms struct {
	queue, prefill, decode, inference *histogram
}

func newPhaseHistograms() phaseHistograms {
	return phaseHistograms{queue: newHistogram(e2eBuckets), prefill: newHistogram(e2eBuckets),
		decode: newHistogram(e2eBuckets), inference: newHistogram(e2eBuckets)}
}

// observe records one finished request; first is zero when no token was
// emitted (then prefill and decode are left out).
func (p *phaseHistograms) observe(arrival, admitted, first, end time.Time) {
	admitted = clampTime(admitted, arrival, end)
	p.queue.observeN(admitted.Sub(arrival), 1)
	p.inference.observeN(end.Sub(admitted), 1)
	if first.IsZero() {
		return
	}
	first = clampTime(first, admitted, end)
	p.prefill.observeN(first.Sub(admitted), 1)
	p.decode.observeN(end.Sub(first), 1)
}

// append writes the four histograms in vLLM's exposition.
func (p *phaseHistograms) append(b []byte, model string) []byte {
	b = appendHistogram(b, "vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", model, p.queue)
	b = appendHistogram(b, "vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.", model, p.inference)
	b = appendHistogram(b, "vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", model, p.prefill)
	b = appendHistogram(b, "vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", model, p.decode)
	return b
}

// admittedAt is when the request entered the engine's batch: the start of
// the step that admitted it under a capacity model, else its arrival (no
// queue).
func (s *Server) admittedAt(st *stream, arrival time.Time) time.Time {
	if s.engine == nil || st.csched.q == nil {
		return arrival
	}
	if ns := st.csched.q.admitted.Load(); ns >= 0 {
		return s.engine.origin.Add(time.Duration(ns))
	}
	return arrival
}

// clampTime returns t within [lo, hi].
func clampTime(t, lo, hi time.Time) time.Time {
	if t.Before(lo) {
		t = lo
	}
	if t.After(hi) {
		t = hi
	}
	return t
}

// iterationTokenBuckets are vLLM's buckets of vllm:iteration_tokens_total.
var iterationTokenBuckets = []float64{1, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128, 136, 144, 152, 160, 168, 176, 184, 192, 200,
	208, 216, 224, 232, 240, 248, 256, 512, 1024, 2048, 4096, 8192, 16384}

// newCountHistogram is a histogram of counts (tokens) rather than
// durations: a count n is stored as n seconds, so that the exposition's
// bounds and sum read as counts.
func newCountHistogram(bounds []float64) *histogram { return newHistogram(bounds) }

// observeCount records one observation of count n in a count histogram.
func observeCount(h *histogram, n int) { h.observeN(time.Duration(n)*time.Second, 1) }
