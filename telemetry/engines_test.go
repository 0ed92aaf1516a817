package telemetry

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"
)

// goldenWindow samples a server that first exposes only idle (the engine's
// running gauge at 0) and 10 s later the golden file: every counter and
// histogram of the golden appears at the second scrape and counts from
// zero, so the window [0, 10 s] holds exactly the golden's values, and a
// gauge's mean is half its golden value (trapezoid from 0).
func goldenWindow(t *testing.T, idle, file string) ServerWindow {
	t.Helper()
	b, err := os.ReadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	sv, srv, clk := newServerRig(t, idle)
	if err := sv.Sample(context.Background()); err != nil {
		t.Fatal(err)
	}
	clk.Set(10 * time.Second)
	srv.set(string(b))
	if err := sv.Sample(context.Background()); err != nil {
		t.Fatal(err)
	}
	w, err := sv.Window(at(0), at(10))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// vllmIdle is an idle vLLM before its first request: gauges only.
const vllmIdle = "vllm:num_requests_running 0\nvllm:num_requests_waiting 0\nvllm:kv_cache_usage_perc 0\n"

func wantLatency(t *testing.T, what string, l Latency, metric string, count, mean, p50, p95 float64) {
	t.Helper()
	if l.Metric != metric || !near(l.Count, count, 1e-9) || !near(l.MeanS, mean, 1e-9) || !near(l.P50, p50, 1e-9) || !near(l.P95, p95, 1e-9) {
		t.Errorf("%s: %s count %v mean %v p50 %v p95 %v; want %s %v %v %v %v", what, l.Metric, l.Count, l.MeanS, l.P50, l.P95, metric, count, mean, p50, p95)
	}
}

// TestServerGoldenVLLM: vLLM's documented series (metrics.md of vLLM V1)
// including prefix cache, speculative decoding, iteration tokens and the
// request-phase histograms. Percentiles by hand: TTFT rank 100 of 200 is
// the top of the first bucket (0.1 s); rank 190 is half way into
// (0.25, 0.5] (180 → 200): 0.375 s.
func TestServerGoldenVLLM(t *testing.T) {
	w := goldenWindow(t, vllmIdle, "vllm.prom")
	if w.Engine != "vllm" || w.Replicas != 1 {
		t.Errorf("engine %q replicas %d", w.Engine, w.Replicas)
	}
	if w.RequestsRunning.Max != 12 || w.RequestsRunning.Mean != 6 || w.RequestsWaiting.Max != 3 {
		t.Errorf("queues %+v %+v", w.RequestsRunning, w.RequestsWaiting)
	}
	for name, c := range map[string][2]float64{
		"prompt": {w.PromptTokens, 51200}, "generation": {w.GenerationTokens, 25600}, "preemptions": {w.Preemptions, 2},
		"requests": {w.Requests, 200}, "prefix queries": {w.PrefixCacheQueries, 51200}, "prefix hits": {w.PrefixCacheHits, 38400},
		"spec accepted": {w.SpecAccepted, 9000}, "spec draft": {w.SpecDraft, 12000},
	} {
		if c[0] != c[1] {
			t.Errorf("%s = %v, want %v", name, c[0], c[1])
		}
	}
	wantLatency(t, "ttft", w.TTFT, "vllm:time_to_first_token_seconds", 200, 0.15, 0.1, 0.375)
	// ITL rank 12700 in (0.01, 0.025] (1000 → 20000): 0.01 + 0.015 × 11700/19000;
	// rank 24130 in (0.025, 0.05] (20000 → 25000).
	wantLatency(t, "itl", w.ITL, "vllm:inter_token_latency_seconds", 25400, 600.0/25400, 0.01+0.015*11700/19000, 0.025+0.025*4130/5000)
	wantLatency(t, "queue", w.QueueTime, "vllm:request_queue_time_seconds", 200, 0.15, 0.2, 0.5)
	wantLatency(t, "prefill", w.PrefillTime, "vllm:request_prefill_time_seconds", 200, 0.05, 0.15, 0.285)
	if w.InferenceTime.Count != 200 || w.DecodeTime.Count != 200 || !near(w.DecodeTime.MeanS, 1.8, 1e-9) {
		t.Errorf("inference %+v decode %+v", w.InferenceTime, w.DecodeTime)
	}
	if w.IterationTokens.Metric != "vllm:iteration_tokens_total" || w.IterationTokens.MeanS != 12 {
		t.Errorf("iteration tokens %+v", w.IterationTokens)
	}
	if hasWarning(w.Warnings, "does not expose") {
		t.Errorf("warnings %q", w.Warnings)
	}
}

// TestServerGoldenSGLang: SGLang's series (--enable-metrics); its prefix
// cache hit rate is cached_tokens over prompt_tokens.
func TestServerGoldenSGLang(t *testing.T) {
	w := goldenWindow(t, "sglang:num_running_reqs 0\nsglang:num_queue_reqs 0\nsglang:token_usage 0\n", "sglang.prom")
	if w.Engine != "sglang" || w.RequestsRunning.Max != 24 || w.RequestsWaiting.Max != 6 || w.KVCacheUsage.Max != 0.61 {
		t.Errorf("window %+v", w)
	}
	if w.PromptTokens != 64000 || w.GenerationTokens != 32000 || w.Requests != 250 || w.PrefixCacheQueries != 64000 || w.PrefixCacheHits != 16000 {
		t.Errorf("counters prompt %v gen %v requests %v prefix %v/%v", w.PromptTokens, w.GenerationTokens, w.Requests, w.PrefixCacheHits, w.PrefixCacheQueries)
	}
	// TTFT rank 125 in (0.1, 0.2] (50 → 200): 0.15.
	wantLatency(t, "ttft", w.TTFT, "sglang:time_to_first_token_seconds", 250, 0.16, 0.15, 0.2+0.2*(237.5-200)/50)
	if w.ITL.Metric != "sglang:inter_token_latency_seconds" || w.E2E.Count != 250 || !math.IsNaN(w.SpecAccepted) {
		t.Errorf("itl %+v e2e %+v spec %v", w.ITL, w.E2E, w.SpecAccepted)
	}
}

// TestServerGoldenTGI: TGI's router series: no TTFT histogram (no warning:
// TGI has none),
// tokens from the sums of its token histograms, ITL from the per-request
// mean time per token.
func TestServerGoldenTGI(t *testing.T) {
	w := goldenWindow(t, "tgi_batch_current_size 0\ntgi_queue_size 0\n", "tgi.prom")
	if w.Engine != "tgi" || w.RequestsRunning.Max != 16 || w.RequestsWaiting.Max != 4 || !math.IsNaN(w.KVCacheUsage.Max) {
		t.Errorf("window %+v", w)
	}
	if w.GenerationTokens != 19200 || w.PromptTokens != 76800 || w.Requests != 150 {
		t.Errorf("tokens %v / %v requests %v", w.GenerationTokens, w.PromptTokens, w.Requests)
	}
	wantLatency(t, "e2e", w.E2E, "tgi_request_duration", 150, 1.8, 1.5, 2+2*(142.5-120)/30)
	if w.ITL.Metric != "tgi_request_mean_time_per_token_duration" || !near(w.ITL.MeanS, 0.015, 1e-9) ||
		w.QueueTime.Metric != "tgi_request_queue_duration" || w.InferenceTime.Count != 150 {
		t.Errorf("itl %+v queue %+v inference %+v", w.ITL, w.QueueTime, w.InferenceTime)
	}
	if w.TTFT.Metric != "" || hasWarning(w.Warnings, "does not expose") {
		t.Errorf("ttft %+v warnings %q", w.TTFT, w.Warnings)
	}
}

// TestServerGoldenTriton: Triton with the TensorRT-LLM backend: queues and
// KV cache from the nv_trt_llm_* gauges by their type label, requests and
// the first-response histogram (ms → s) of the tensorrt_llm model only
// (the ensemble's other models count the same requests again).
func TestServerGoldenTriton(t *testing.T) {
	idle := "nv_trt_llm_request_metrics{model=\"tensorrt_llm\",request_type=\"scheduled\",version=\"1\"} 0\n" +
		"nv_trt_llm_request_metrics{model=\"tensorrt_llm\",request_type=\"waiting\",version=\"1\"} 0\n" +
		"nv_trt_llm_kv_cache_block_metrics{kv_cache_block_type=\"fraction\",model=\"tensorrt_llm\",version=\"1\"} 0\n"
	w := goldenWindow(t, idle, "triton-trtllm.prom")
	if w.Engine != "tensorrt-llm" || w.RequestsRunning.Max != 10 || w.RequestsWaiting.Max != 2 || w.KVCacheUsage.Max != 0.4 || w.Requests != 120 {
		t.Errorf("engine %q running %+v waiting %+v kv %+v requests %v", w.Engine, w.RequestsRunning, w.RequestsWaiting, w.KVCacheUsage, w.Requests)
	}
	if w.Metrics["requests_waiting"] != `nv_trt_llm_request_metrics{request_type="waiting"}` {
		t.Errorf("metrics %v", w.Metrics)
	}
	// Rank 60 of 120 is the top of the first bucket, 100 ms.
	wantLatency(t, "ttft", w.TTFT, `nv_inference_first_response_histogram_ms{model="tensorrt_llm"}`, 120, 0.2, 0.1, 0.5+1.5*(114-110)/10)
}

// TestServerReplicasSum: two replicas' /metrics combined give counters
// and histogram buckets equal to the sum of each replica's, queues summed
// and KV cache usage averaged; one replica failing fails the sample.
func TestServerReplicasSum(t *testing.T) {
	b, err := os.ReadFile("testdata/vllm.prom")
	if err != nil {
		t.Fatal(err)
	}
	golden := string(b)
	// The second replica: the same engine with other prompt tokens and KV
	// cache usage.
	other := strings.Replace(golden, "vllm:prompt_tokens_total{engine=\"0\",model_name=\"meta-llama/Llama-3.1-8B-Instruct\"} 51200.0",
		"vllm:prompt_tokens_total{engine=\"0\",model_name=\"meta-llama/Llama-3.1-8B-Instruct\"} 1000.0", 1)
	other = strings.Replace(other, `vllm:kv_cache_usage_perc{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 0.42`,
		`vllm:kv_cache_usage_perc{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 0.62`, 1)
	a, bsrv := newTextServer(t, vllmIdle), newTextServer(t, vllmIdle)
	clk := newFakeClock()
	sv, err := NewReplicaSampler([]string{a.URL, bsrv.URL + "/metrics"}, nil, SamplerOptions{Now: clk.Now, Interval: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := sv.Sample(ctx); err != nil {
		t.Fatal(err)
	}
	clk.Set(10 * time.Second)
	a.set(golden)
	bsrv.set(other)
	if err := sv.Sample(ctx); err != nil {
		t.Fatal(err)
	}
	w, err := sv.Window(at(0), at(10))
	if err != nil {
		t.Fatal(err)
	}
	if w.Replicas != 2 || w.PromptTokens != 51200+1000 || w.GenerationTokens != 2*25600 || w.Requests != 400 || w.PrefixCacheHits != 2*38400 {
		t.Errorf("summed counters: replicas %d prompt %v gen %v requests %v hits %v", w.Replicas, w.PromptTokens, w.GenerationTokens, w.Requests, w.PrefixCacheHits)
	}
	if w.RequestsRunning.Max != 24 || !near(w.KVCacheUsage.Max, 0.52, 1e-12) {
		t.Errorf("running %+v kv %+v", w.RequestsRunning, w.KVCacheUsage)
	}
	// Merged TTFT histogram: every bucket doubled, the same percentiles.
	wantLatency(t, "merged ttft", w.TTFT, "vllm:time_to_first_token_seconds", 400, 0.15, 0.1, 0.375)
	var got []float64
	for _, bk := range w.TTFT.Buckets {
		got = append(got, bk.Count)
	}
	if len(got) != 4 || got[0] != 200 || got[1] != 360 || got[2] != 400 || got[3] != 400 {
		t.Errorf("merged TTFT buckets %v, want 200 360 400 400", got)
	}
	bsrv.setStatus(404)
	clk.Set(15 * time.Second)
	if err := sv.Sample(ctx); err == nil || !strings.Contains(err.Error(), bsrv.URL) {
		t.Errorf("a failing replica: %v", err)
	}
}

// TestReplicaQueueReader: the drain's queue reading sums the replicas, and
// one unreadable replica is an error naming it.
func TestReplicaQueueReader(t *testing.T) {
	a := newTextServer(t, "vllm:num_requests_running 3\nvllm:num_requests_waiting 1\n")
	b := newTextServer(t, "sglang:num_running_reqs 2\nsglang:num_queue_reqs 4\n")
	q, err := NewReplicaQueueReader([]string{a.URL, b.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	run, wait, err := q.Queue(context.Background())
	if err != nil || run != 5 || wait != 5 {
		t.Errorf("queue %v running %v waiting, %v; want 5 and 5", run, wait, err)
	}
	b.setStatus(404)
	if _, _, err := q.Queue(context.Background()); err == nil || !strings.Contains(err.Error(), b.URL) {
		t.Errorf("unreadable replica: %v", err)
	}
}

// TestServerGoldenLlamaCpp: llama-server's --metrics (testdata/llamacpp.prom,
// written from the names of its handle_metrics): running and waiting are
// requests_processing and requests_deferred, prompt tokens the processed
// (2,400) plus the cached (9,600), so the prefix cache hit 9,600 of
// 12,000; speculative decoding 2,100 of 3,000 draft tokens in 750 drafts;
// its throughput gauges. It has no latency histograms, and that is no
// warning: no build of it has them.
func TestServerGoldenLlamaCpp(t *testing.T) {
	idle := "llamacpp:requests_processing 0\nllamacpp:requests_deferred 0\nllamacpp:kv_cache_usage_ratio 0\n" +
		"llamacpp:prompt_tokens_seconds 0\nllamacpp:predicted_tokens_seconds 0\n"
	w := goldenWindow(t, idle, "llamacpp.prom")
	if w.Engine != "llama.cpp" || w.RequestsRunning != (Stat{Mean: 2, Max: 4}) || w.RequestsWaiting != (Stat{Mean: 24, Max: 48}) || w.KVCacheUsage.Max != 0.25 {
		t.Errorf("engine %q running %+v waiting %+v kv %+v", w.Engine, w.RequestsRunning, w.RequestsWaiting, w.KVCacheUsage)
	}
	for name, c := range map[string][2]float64{
		"prompt": {w.PromptTokens, 12000}, "generation": {w.GenerationTokens, 6400},
		"prefix queries": {w.PrefixCacheQueries, 12000}, "prefix hits": {w.PrefixCacheHits, 9600},
		"spec draft": {w.SpecDraft, 3000}, "spec accepted": {w.SpecAccepted, 2100}, "spec drafts": {w.SpecDrafts, 750},
		"prompt tok/s max": {w.PromptThroughput.Max, 1500}, "prompt tok/s mean": {w.PromptThroughput.Mean, 750},
		"generation tok/s max": {w.GenerationThroughput.Max, 200},
	} {
		if c[0] != c[1] {
			t.Errorf("%s = %v, want %v", name, c[0], c[1])
		}
	}
	if !math.IsNaN(w.Requests) || !math.IsNaN(w.Preemptions) {
		t.Errorf("requests %v preemptions %v; llama.cpp counts neither", w.Requests, w.Preemptions)
	}
	if got := w.Metrics["prompt_tokens"]; got != "llamacpp:prompt_tokens_total + llamacpp:prompt_tokens_cached_total" {
		t.Errorf("prompt_tokens from %q", got)
	}
	for _, warn := range w.Warnings {
		if strings.HasPrefix(warn, "server does not expose ") && !strings.HasPrefix(warn, "server does not expose a ") {
			t.Errorf("a scalar figure is missing: %q", warn)
		}
	}
	if w.TTFT.Metric != "" || hasWarning(w.Warnings, "does not expose") {
		t.Errorf("ttft %+v warnings %q", w.TTFT, w.Warnings)
	}
}

// TestServerLlamaCppSteps: llama.cpp's per-decode average and its seconds
// totals read over a window. Between the scrapes decodes go 1,000 → 1,500
// and busy slots per decode (an average since the start) 2.0 → 2.5, so
// the busy slot-steps go 2,000 → 3,750: the window's 500 steps carried
// 1,750 sequences, 3.5 a step (the lifetime average says 2.5). Prefill
// time 1.0 → 1.5 s, generation 10 → 14 s; kv_cache_tokens 100 → 300 (max
// 300); n_tokens_max 400 → 512, the longest sequence so far. An upstream
// build without the KV cache series warns about nothing.
func TestServerLlamaCppSteps(t *testing.T) {
	scrape := func(decodes, busy, promptS, genS, kv, maxTok float64) string {
		return fmt.Sprintf("# TYPE llamacpp:requests_processing gauge\nllamacpp:requests_processing 2\n"+
			"# TYPE llamacpp:requests_deferred gauge\nllamacpp:requests_deferred 0\n"+
			"# TYPE llamacpp:prompt_tokens_total counter\nllamacpp:prompt_tokens_total 100\n"+
			"# TYPE llamacpp:tokens_predicted_total counter\nllamacpp:tokens_predicted_total 100\n"+
			"# TYPE llamacpp:n_decode_total counter\nllamacpp:n_decode_total %g\n"+
			"# TYPE llamacpp:n_busy_slots_per_decode gauge\nllamacpp:n_busy_slots_per_decode %g\n"+
			"# TYPE llamacpp:prompt_seconds_total counter\nllamacpp:prompt_seconds_total %g\n"+
			"# TYPE llamacpp:tokens_predicted_seconds_total counter\nllamacpp:tokens_predicted_seconds_total %g\n"+
			"%s# TYPE llamacpp:n_tokens_max counter\nllamacpp:n_tokens_max %g\n", decodes, busy, promptS, genS,
			map[bool]string{true: fmt.Sprintf("# TYPE llamacpp:kv_cache_tokens gauge\nllamacpp:kv_cache_tokens %g\n", kv)}[kv >= 0], maxTok)
	}
	window := func(a, b string) ServerWindow {
		t.Helper()
		sv, srv, clk := newServerRig(t, a)
		if err := sv.Sample(context.Background()); err != nil {
			t.Fatal(err)
		}
		clk.Set(10 * time.Second)
		srv.set(b)
		if err := sv.Sample(context.Background()); err != nil {
			t.Fatal(err)
		}
		w, err := sv.Window(at(0), at(10))
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	w := window(scrape(1000, 2, 1, 10, 100, 400), scrape(1500, 2.5, 1.5, 14, 300, 512))
	for name, c := range map[string][2]float64{
		"steps": {w.EngineSteps, 500}, "busy per step": {w.BusySlotsPerStep, 3.5},
		"prompt s": {w.PromptSeconds, 0.5}, "generation s": {w.GenerationSeconds, 4},
		"kv tokens max": {w.KVCacheTokens.Max, 300}, "context max": {w.ContextTokensMax, 512},
	} {
		if !near(c[0], c[1], 1e-9) {
			t.Errorf("%s = %v, want %v", name, c[0], c[1])
		}
	}
	if got := w.Metrics["busy_slot_steps"]; got != "llamacpp:n_busy_slots_per_decode * llamacpp:n_decode_total" {
		t.Errorf("busy_slot_steps from %q", got)
	}
	w = window(scrape(1000, 2, 1, 10, -1, 400), scrape(1000, 2, 1, 10, -1, 400))
	if !math.IsNaN(w.BusySlotsPerStep) || !math.IsNaN(w.KVCacheTokens.Max) || !math.IsNaN(w.KVCacheUsage.Max) || len(w.Warnings) != 0 {
		t.Errorf("idle upstream build: busy/step %v kv tokens %v kv %v warnings %q; want NaN, NaN, NaN, none",
			w.BusySlotsPerStep, w.KVCacheTokens.Max, w.KVCacheUsage.Max, w.Warnings)
	}
}

// TestServerLlamaCppWithoutCache: a build without the cached-tokens
// counter reads its processed prompt tokens and no prefix cache (rather
// than a cache with no hits).
func TestServerLlamaCppWithoutCache(t *testing.T) {
	b, err := os.ReadFile("testdata/llamacpp.prom")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), "llamacpp:prompt_tokens_cached_total 9600\n", "", 1)
	sv, srv, clk := newServerRig(t, "llamacpp:requests_processing 0\nllamacpp:requests_deferred 0\n")
	if err := sv.Sample(context.Background()); err != nil {
		t.Fatal(err)
	}
	clk.Set(10 * time.Second)
	srv.set(text)
	if err := sv.Sample(context.Background()); err != nil {
		t.Fatal(err)
	}
	w, err := sv.Window(at(0), at(10))
	if err != nil {
		t.Fatal(err)
	}
	if w.PromptTokens != 2400 || !math.IsNaN(w.PrefixCacheQueries) || !math.IsNaN(w.PrefixCacheHits) {
		t.Errorf("prompt %v prefix %v/%v; want 2400 and no prefix cache", w.PromptTokens, w.PrefixCacheHits, w.PrefixCacheQueries)
	}
}

// TestEngineTable: every name and alias names one row, in lower case; each
// row's prefixes lead back to it (an earlier, shorter prefix would take
// its series: nv_ comes after nv_trt_llm_); every series of a figure is
// under its row's prefixes.
func TestEngineTable(t *testing.T) {
	seen := map[string]string{}
	for _, e := range Engines() {
		for _, a := range append([]string{e.Name}, e.Aliases...) {
			if a != strings.ToLower(a) {
				t.Errorf("%s: alias %q is not lower case", e.Name, a)
			}
			if other, ok := seen[a]; ok {
				t.Errorf("%q names both %s and %s", a, other, e.Name)
			}
			seen[a] = e.Name
			if got, ok := LookupEngine(strings.ToUpper(a)); !ok || got.Name != e.Name {
				t.Errorf("LookupEngine(%q) = %q, %v", strings.ToUpper(a), got.Name, ok)
			}
		}
		for _, p := range e.Prefixes {
			if got, prefix, ok := EngineOfMetric(p + "x"); !ok || got.Name != e.Name || prefix != p {
				t.Errorf("EngineOfMetric(%q) = %q %q, want %s", p+"x", got.Name, prefix, e.Name)
			}
		}
		var refs []metricRef
		for _, rs := range e.scalars {
			refs = append(refs, rs...)
		}
		for _, rs := range e.hists {
			refs = append(refs, rs...)
		}
		for _, r := range refs {
			for _, name := range []string{r.name, r.plus} {
				if got, _, ok := EngineOfMetric(name); name != "" && (!ok || got.Name != e.Name) {
					t.Errorf("%s: series %s reads as engine %q", e.Name, name, got.Name)
				}
			}
		}
	}
	if _, ok := LookupEngine("uvicorn"); ok {
		t.Error("uvicorn names an engine")
	}
}
