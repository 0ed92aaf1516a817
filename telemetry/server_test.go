package telemetry

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

func TestHistogramQuantile(t *testing.T) {
	inf := math.Inf(1)
	b := []Bucket{{0.1, 40}, {0.25, 70}, {0.5, 96}, {inf, 100}}
	for _, tc := range []struct {
		q    float64
		want float64
	}{
		// rank 50 → bucket (0.1, 0.25] holding 30, 10 into it: 0.1 + 0.15·10/30.
		{0.5, 0.15},
		// rank 95 → bucket (0.25, 0.5] holding 26, 25 into it.
		{0.95, 0.25 + 0.25*25/26},
		// rank 99 → +Inf bucket → highest finite bound.
		{0.99, 0.5},
		// rank 20 → first bucket, lower bound 0: 0.1·20/40.
		{0.2, 0.05},
		{-1, math.Inf(-1)},
		{2, inf},
	} {
		if got := HistogramQuantile(tc.q, b); !near(got, tc.want, 1e-12) {
			t.Errorf("q=%v: %v, want %v", tc.q, got, tc.want)
		}
	}
	// Unsorted input and a non-monotonic count are handled like PromQL.
	if got := HistogramQuantile(0.5, []Bucket{{inf, 100}, {0.25, 69}, {0.1, 40}, {0.5, 68}}); !near(got, 0.1+0.15*10/29, 1e-12) {
		t.Errorf("unsorted/non-monotonic: %v", got)
	}
	for name, bs := range map[string][]Bucket{
		"no +Inf":    {{0.1, 1}, {0.2, 2}},
		"one bucket": {{inf, 3}},
		"no samples": {{0.1, 0}, {inf, 0}},
		"empty":      nil,
	} {
		if got := HistogramQuantile(0.5, bs); !math.IsNaN(got) {
			t.Errorf("%s: %v, want NaN", name, got)
		}
	}
}

// vllmState is what the fake vLLM /metrics serves.
type vllmState struct {
	running, waiting [2]float64 // per engine
	kv               [2]float64
	prompt, gen      float64
	preempt          float64
	ttft             [4]float64 // cumulative counts for le 0.1, 0.25, 0.5, +Inf
	ttftSum          float64
}

const model = "meta-llama/Llama-3.1-70B-Instruct"

// vllmText renders the state in vLLM's exposition (telemetry.md §3).
func vllmText(s vllmState) string {
	var b strings.Builder
	for i, e := range []string{"0", "1"} {
		if i == 0 {
			b.WriteString("# HELP vllm:num_requests_running Number of requests in model execution batches.\n# TYPE vllm:num_requests_running gauge\n")
		}
		fmt.Fprintf(&b, "vllm:num_requests_running{engine=%q,model_name=%q} %g\n", e, model, s.running[i])
	}
	b.WriteString("# TYPE vllm:num_requests_waiting gauge\n")
	for i, e := range []string{"0", "1"} {
		fmt.Fprintf(&b, "vllm:num_requests_waiting{engine=%q,model_name=%q} %g\n", e, model, s.waiting[i])
	}
	b.WriteString("# TYPE vllm:kv_cache_usage_perc gauge\n")
	for i, e := range []string{"0", "1"} {
		fmt.Fprintf(&b, "vllm:kv_cache_usage_perc{engine=%q,model_name=%q} %g\n", e, model, s.kv[i])
	}
	fmt.Fprintf(&b, "# HELP vllm:prompt_tokens_total Number of prefill tokens processed.\n# TYPE vllm:prompt_tokens_total counter\nvllm:prompt_tokens_total{engine=\"0\",model_name=%q} %g\n", model, s.prompt)
	fmt.Fprintf(&b, "# HELP vllm:generation_tokens_total Number of generation tokens processed.\n# TYPE vllm:generation_tokens_total counter\nvllm:generation_tokens_total{engine=\"0\",model_name=%q} %g\n", model, s.gen)
	fmt.Fprintf(&b, "# TYPE vllm:generation_tokens_created gauge\nvllm:generation_tokens_created{engine=\"0\",model_name=%q} 1.7e+09\n", model)
	fmt.Fprintf(&b, "# TYPE vllm:num_preemptions_total counter\nvllm:num_preemptions_total{engine=\"0\",model_name=%q} %g\n", model, s.preempt)
	b.WriteString("# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.\n# TYPE vllm:time_to_first_token_seconds histogram\n")
	for i, le := range []string{"0.1", "0.25", "0.5", "+Inf"} {
		fmt.Fprintf(&b, "vllm:time_to_first_token_seconds_bucket{engine=\"0\",le=%q,model_name=%q} %g\n", le, model, s.ttft[i])
	}
	fmt.Fprintf(&b, "vllm:time_to_first_token_seconds_sum{engine=\"0\",model_name=%q} %g\n", model, s.ttftSum)
	fmt.Fprintf(&b, "vllm:time_to_first_token_seconds_count{engine=\"0\",model_name=%q} %g\n", model, s.ttft[3])
	fmt.Fprintf(&b, "vllm:request_success_total{engine=\"0\",finished_reason=\"length\",model_name=%q} 1712.0\n", model)
	return b.String()
}

func newServerRig(t *testing.T, body string) (*ServerSampler, *textServer, *fakeClock) {
	t.Helper()
	srv := newTextServer(t, body)
	clk := newFakeClock()
	sv, err := NewServerSampler(srv.URL, nil, SamplerOptions{Now: clk.Now, Interval: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return sv, srv, clk
}

// TestServerWindowVLLM: gauges, counters and TTFT percentiles from bucket
// deltas, all by hand.
func TestServerWindowVLLM(t *testing.T) {
	s0 := vllmState{
		running: [2]float64{4, 6}, waiting: [2]float64{0, 0}, kv: [2]float64{0.4, 0.6},
		prompt: 7.2e6, gen: 1.843112e+06, preempt: 10,
		ttft: [4]float64{812, 1903, 2000, 2048}, ttftSum: 391.7,
	}
	// 10 s later: TTFT bucket deltas 40, 70, 96, 100 (cumulative).
	s1 := vllmState{
		running: [2]float64{10, 20}, waiting: [2]float64{1, 3}, kv: [2]float64{0.6, 0.8},
		prompt: 7.2e6 + 20000, gen: 1.843112e+06 + 5000, preempt: 13,
		ttft: [4]float64{852, 1973, 2096, 2148}, ttftSum: 391.7 + 25,
	}
	sv, srv, clk := newServerRig(t, vllmText(s0))
	if err := sv.Sample(context.Background()); err != nil {
		t.Fatal(err)
	}
	clk.Set(10 * time.Second)
	srv.set(vllmText(s1))
	if err := sv.Sample(context.Background()); err != nil {
		t.Fatal(err)
	}
	w, err := sv.Window(at(0), at(10))
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, got, want float64) {
		t.Helper()
		if !near(got, want, 1e-9) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if w.Engine != "vllm" || w.Coverage != 1 {
		t.Errorf("engine %q coverage %v", w.Engine, w.Coverage)
	}
	// Running: 10 → 30 summed over engines; linear, so mean 20.
	check("running mean", w.RequestsRunning.Mean, 20)
	check("running max", w.RequestsRunning.Max, 30)
	check("waiting mean", w.RequestsWaiting.Mean, 2)
	check("waiting max", w.RequestsWaiting.Max, 4)
	// KV averaged over engines: 0.5 → 0.7.
	check("kv mean", w.KVCacheUsage.Mean, 0.6)
	check("kv max", w.KVCacheUsage.Max, 0.7)
	check("prompt tokens", w.PromptTokens, 20000)
	check("generation tokens", w.GenerationTokens, 5000)
	check("preemptions", w.Preemptions, 3)
	check("ttft count", w.TTFT.Count, 100)
	check("ttft mean", w.TTFT.MeanS, 0.25)
	check("ttft p50", w.TTFT.P50, 0.15)
	check("ttft p95", w.TTFT.P95, 0.25+0.25*25/26)
	check("ttft p99", w.TTFT.P99, 0.5)
	if w.TTFT.Metric != "vllm:time_to_first_token_seconds" || w.Metrics["kv_cache_usage"] != "vllm:kv_cache_usage_perc" {
		t.Errorf("metric names: %q, %v", w.TTFT.Metric, w.Metrics)
	}
	// No ITL or e2e histogram in this exposition: NaN and named in a warning.
	if !math.IsNaN(w.ITL.P50) || !hasWarning(w.Warnings, "itl histogram") || !hasWarning(w.Warnings, "vllm:inter_token_latency_seconds") {
		t.Errorf("ITL %v warnings %q", w.ITL, w.Warnings)
	}
	// Half the window: counters and buckets interpolated at the edge, so
	// every delta halves and the percentiles stay the same; the queue
	// gauges use only the readings inside the window (the one at 10 s:
	// 10 + 20 running), not the interpolation to the edge (issue 32).
	w, err = sv.Window(at(5), at(10))
	if err != nil {
		t.Fatal(err)
	}
	check("half-window generation tokens", w.GenerationTokens, 2500)
	check("half-window ttft p50", w.TTFT.P50, 0.15)
	check("half-window running mean", w.RequestsRunning.Mean, 30)
	check("half-window running max", w.RequestsRunning.Max, 30)
}

// TestServerWindowSGLang: SGLang names, including the older ITL name.
func TestServerWindowSGLang(t *testing.T) {
	text := func(run, gen, retracted, itlLow, itlAll float64) string {
		return fmt.Sprintf(`# TYPE sglang:num_running_reqs gauge
sglang:num_running_reqs{model_name="m"} %g
# TYPE sglang:num_queue_reqs gauge
sglang:num_queue_reqs{model_name="m"} 2
# TYPE sglang:token_usage gauge
sglang:token_usage{model_name="m"} 0.28
# TYPE sglang:generation_tokens_total counter
sglang:generation_tokens_total{model_name="m"} %g
# TYPE sglang:prompt_tokens_total counter
sglang:prompt_tokens_total{model_name="m"} 100
# TYPE sglang:num_retracted_requests_total counter
sglang:num_retracted_requests_total{model_name="m"} %g
# TYPE sglang:time_per_output_token_seconds histogram
sglang:time_per_output_token_seconds_bucket{le="0.02",model_name="m"} %g
sglang:time_per_output_token_seconds_bucket{le="+Inf",model_name="m"} %g
sglang:time_per_output_token_seconds_sum{model_name="m"} 1
sglang:time_per_output_token_seconds_count{model_name="m"} %g
`, run, gen, retracted, itlLow, itlAll, itlAll)
	}
	sv, srv, clk := newServerRig(t, text(8, 1000, 0, 0, 0))
	if err := sv.Sample(context.Background()); err != nil {
		t.Fatal(err)
	}
	clk.Set(4 * time.Second)
	srv.set(text(8, 1800, 2, 80, 100))
	if err := sv.Sample(context.Background()); err != nil {
		t.Fatal(err)
	}
	w, err := sv.Window(at(0), at(4))
	if err != nil {
		t.Fatal(err)
	}
	// ITL: 80 of 100 ≤ 0.02 s; p50 = 0.02·50/80.
	if w.Engine != "sglang" || w.GenerationTokens != 800 || w.Preemptions != 2 || w.RequestsRunning.Mean != 8 ||
		w.KVCacheUsage.Max != 0.28 || !near(w.ITL.P50, 0.0125, 1e-12) || w.ITL.Metric != "sglang:time_per_output_token_seconds" {
		t.Errorf("sglang window: %+v", w)
	}
}

func TestServerSamplerErrors(t *testing.T) {
	sv, _, _ := newServerRig(t, "# TYPE up gauge\nup 1\n")
	err := sv.Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), "no vLLM, SGLang, TGI, Triton/TensorRT-LLM or llama.cpp metrics") || !strings.Contains(err.Error(), "vllm:num_requests_running") ||
		!strings.Contains(err.Error(), "SGLang --enable-metrics, llama.cpp --metrics") {
		t.Errorf("no server metrics: %v", err)
	}
	sv.Stop()
	dead := deadURL(t)
	sv, err = NewServerSampler(dead, nil, SamplerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := sv.Sample(context.Background()); err == nil || !strings.Contains(err.Error(), dead+"/metrics") || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("unreachable server: %v", err)
	}
	if _, err := sv.Window(t0, t0.Add(time.Second)); err == nil || !strings.Contains(err.Error(), "not been scraped") {
		t.Errorf("window without data: %v", err)
	}
	if _, err := NewServerSampler("localhost:8000/metrics", nil, SamplerOptions{}); err == nil {
		t.Error("URL without scheme accepted")
	}
}

// A server restart inside a window: the counters drop (a reset, with the
// post-reset value added) and vLLM's labelled TTFT histogram is missing
// until its first new observation. The window says so, and does not
// claim the server never exposed a TTFT histogram (issue 32, item 9).
func TestServerWindowRestart(t *testing.T) {
	before := vllmState{prompt: 5000, gen: 900, ttft: [4]float64{10, 20, 30, 40}, ttftSum: 8}
	after := vllmState{prompt: 300, gen: 40, ttft: [4]float64{1, 2, 3, 4}, ttftSum: 0.8}
	restarted := vllmText(after)
	restarted = restarted[:strings.Index(restarted, "# HELP vllm:time_to_first_token_seconds")] // no observation yet
	sv, srv, clk := newServerRig(t, vllmText(before))
	for i, body := range []string{vllmText(before), restarted, vllmText(after)} {
		clk.Set(time.Duration(5*i) * time.Second)
		srv.set(body)
		if err := sv.Sample(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	w, err := sv.Window(at(0), at(10))
	if err != nil {
		t.Fatal(err)
	}
	if !near(w.PromptTokens, 300, 1e-9) || !hasWarning(w.Warnings, "counter reset") {
		t.Errorf("prompt tokens %v (want the 300 after the reset), warnings %q", w.PromptTokens, w.Warnings)
	}
	if w.TTFT.Metric != "" || hasWarning(w.Warnings, "does not expose a ttft") ||
		!hasWarning(w.Warnings, "vllm:time_to_first_token_seconds absent from some scrapes in the window (a server restart?)") {
		t.Errorf("TTFT %+v, warnings %q", w.TTFT, w.Warnings)
	}
}
