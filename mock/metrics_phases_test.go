package mock

import (
	"io"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestPhaseHistograms: under a capacity model with two slots, six
// concurrent requests queue; each finished request is observed once in
// every phase histogram, queue + inference = e2e and prefill + decode =
// inference per request (so in their sums), and the queue is not empty.
// Without a capacity model there is no queue (and no engine steps).
func TestPhaseHistograms(t *testing.T) {
	for _, capacity := range []bool{true, false} {
		cfg := DefaultConfig()
		if capacity {
			cfg = capacityConfig(smallModel(2, 5*time.Millisecond))
		}
		s := startServer(t, cfg)
		var wg sync.WaitGroup
		for range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := http.Post(s.URL()+"/v1/completions", "application/json", strings.NewReader(`{"prompt":"a b c","max_tokens":8}`))
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}()
		}
		wg.Wait()
		fams := scrape(t, s.URL())
		hist := func(name string) (count, sum float64) {
			h := fams[name].GetMetric()[0].GetHistogram()
			return float64(h.GetSampleCount()), h.GetSampleSum()
		}
		e2eN, e2e := hist("vllm:e2e_request_latency_seconds")
		qN, q := hist("vllm:request_queue_time_seconds")
		iN, inf := hist("vllm:request_inference_time_seconds")
		pN, pre := hist("vllm:request_prefill_time_seconds")
		dN, dec := hist("vllm:request_decode_time_seconds")
		if e2eN != 6 || qN != 6 || iN != 6 || pN != 6 || dN != 6 {
			t.Fatalf("capacity %v: counts e2e %v queue %v inference %v prefill %v decode %v, want 6", capacity, e2eN, qN, iN, pN, dN)
		}
		// e2e and the phases read the clock a few µs apart.
		if math.Abs(q+inf-e2e) > 6*2e-3 || math.Abs(pre+dec-inf) > 1e-9 {
			t.Errorf("capacity %v: queue %v + inference %v vs e2e %v; prefill %v + decode %v vs inference %v", capacity, q, inf, e2e, pre, dec, inf)
		}
		if capacity && !(q > 0) || !capacity && q != 0 {
			t.Errorf("capacity %v: queue time sum %v", capacity, q)
		}
		// Tokens per engine step: 6 prompts of 3 tokens prefilled, 7 more
		// tokens decoded per request (the first comes with the prefill).
		it := fams["vllm:iteration_tokens_total"]
		if !capacity {
			if it != nil {
				t.Error("iteration tokens without an engine")
			}
			continue
		}
		if it == nil {
			t.Fatal("no vllm:iteration_tokens_total with a capacity model")
		}
		h := it.GetMetric()[0].GetHistogram()
		if h.GetSampleCount() == 0 || h.GetSampleSum() < 6*7 {
			t.Errorf("iteration tokens: %d steps, %v tokens", h.GetSampleCount(), h.GetSampleSum())
		}
	}
}
