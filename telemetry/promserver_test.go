package telemetry

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"
)

// vllmProm is a Prometheus holding two vLLM replicas under
// {namespace="llm",app="vllm"}, each scraped `scrapes` times in the window,
// answering hand-written vectors for a 20 s window.
func vllmProm(t *testing.T, scrapes string) *fakeProm {
	sel := `{namespace="llm",app="vllm"}`
	names := []string{"vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:kv_cache_usage_perc",
		"vllm:prompt_tokens_total", "vllm:generation_tokens_total", "vllm:request_success_total",
		"vllm:prefix_cache_queries_total", "vllm:prefix_cache_hits_total",
		"vllm:time_to_first_token_seconds_bucket", "vllm:time_to_first_token_seconds_sum", "vllm:time_to_first_token_seconds_count",
		"vllm:e2e_request_latency_seconds_bucket", "process_cpu_seconds_total"}
	answers := map[string]string{
		`max by (instance) (count_over_time(vllm:num_requests_running` + sel + `[20s]))`: vector(
			map[string]string{"instance": "10.0.0.1:8000"}, scrapes, map[string]string{"instance": "10.0.0.2:8000"}, scrapes),
		`avg_over_time(sum(vllm:num_requests_running` + sel + `)[20s:1s])`: vector(map[string]string{}, "12"),
		`max_over_time(sum(vllm:num_requests_running` + sel + `)[20s:1s])`: vector(map[string]string{}, "16"),
		`avg_over_time(sum(vllm:num_requests_waiting` + sel + `)[20s:1s])`: vector(map[string]string{}, "1.5"),
		`max_over_time(sum(vllm:num_requests_waiting` + sel + `)[20s:1s])`: vector(map[string]string{}, "4"),
		`avg_over_time(avg(vllm:kv_cache_usage_perc` + sel + `)[20s:1s])`:  vector(map[string]string{}, "0.4"),
		`max_over_time(avg(vllm:kv_cache_usage_perc` + sel + `)[20s:1s])`:  vector(map[string]string{}, "0.6"),
		`sum(increase(vllm:prompt_tokens_total` + sel + `[20s]))`:          vector(map[string]string{}, "5000"),
		`sum(increase(vllm:generation_tokens_total` + sel + `[20s]))`:      vector(map[string]string{}, "1200"),
		`sum(increase(vllm:request_success_total` + sel + `[20s]))`:        vector(map[string]string{}, "40"),
		`sum(increase(vllm:prefix_cache_queries_total` + sel + `[20s]))`:   vector(map[string]string{}, "5000"),
		`sum(increase(vllm:prefix_cache_hits_total` + sel + `[20s]))`:      vector(map[string]string{}, "2000"),
		`sum by (le) (increase(vllm:time_to_first_token_seconds_bucket` + sel + `[20s]))`: vector(
			map[string]string{"le": "0.1"}, "10", map[string]string{"le": "0.25"}, "30",
			map[string]string{"le": "0.5"}, "38", map[string]string{"le": "+Inf"}, "40"),
		`sum(increase(vllm:time_to_first_token_seconds_count` + sel + `[20s]))`: vector(map[string]string{}, "40"),
		`sum(increase(vllm:time_to_first_token_seconds_sum` + sel + `[20s]))`:   vector(map[string]string{}, "8"),
		`sum by (le) (increase(vllm:e2e_request_latency_seconds_bucket` + sel + `[20s]))`: vector(
			map[string]string{"le": "1"}, "20", map[string]string{"le": "2"}, "40", map[string]string{"le": "+Inf"}, "40"),
		`sum(increase(vllm:e2e_request_latency_seconds_count` + sel + `[20s]))`: vector(map[string]string{}, "40"),
		`sum(increase(vllm:e2e_request_latency_seconds_sum` + sel + `[20s]))`:   vector(map[string]string{}, "44"),
	}
	return newFakeProm(t, func(q string) (int, string) {
		if strings.HasPrefix(q, "count by (__name__") {
			if !strings.HasSuffix(q, `({__name__=~"vllm:.+|sglang:.+|tgi_.+|nv_.+|llamacpp:.+",namespace="llm",app="vllm"})`) {
				return 200, vector()
			}
			var series []any
			for _, n := range names {
				for _, inst := range []string{"10.0.0.1:8000", "10.0.0.2:8000"} {
					series = append(series, map[string]string{"__name__": n, "instance": inst}, "1")
				}
			}
			return 200, vector(series...)
		}
		if a, ok := answers[q]; ok {
			return 200, a
		}
		return 400, `{"status":"error","errorType":"bad_data","error":"unexpected query in fake: ` + strings.ReplaceAll(q, `"`, `\"`) + `"}`
	})
}

// TestPrometheusServerWindow: the per-round figures from hand-written
// Prometheus answers, computed by hand.
func TestPrometheusServerWindow(t *testing.T) {
	fp := vllmProm(t, "20")
	p, err := NewPrometheus(fp.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := ParseMatchers(`{namespace="llm",app="vllm"}`)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	end := time.Unix(1780308600, 0)
	start := end.Add(-20 * time.Second)
	ps, err := p.ServerSeries(ctx, ms, end)
	if err != nil {
		t.Fatal(err)
	}
	if ps.Engine != "vllm" || ps.Probe() != `vllm:num_requests_running{namespace="llm",app="vllm"}` {
		t.Fatalf("engine %q, probe %q", ps.Engine, ps.Probe())
	}
	w, err := p.ServerWindow(ctx, start, end, ps)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want float64
	}{
		{"running mean", w.RequestsRunning.Mean, 12}, {"running max", w.RequestsRunning.Max, 16},
		{"waiting mean", w.RequestsWaiting.Mean, 1.5}, {"waiting max", w.RequestsWaiting.Max, 4},
		{"kv mean", w.KVCacheUsage.Mean, 0.4}, {"kv max", w.KVCacheUsage.Max, 0.6},
		{"prompt", w.PromptTokens, 5000}, {"generation", w.GenerationTokens, 1200}, {"requests", w.Requests, 40},
		{"prefix queries", w.PrefixCacheQueries, 5000}, {"prefix hits", w.PrefixCacheHits, 2000},
		// 40 first tokens: 10 ≤ 0.1 s, 20 in (0.1, 0.25], 8 in (0.25, 0.5], 2 above.
		{"ttft count", w.TTFT.Count, 40}, {"ttft mean", w.TTFT.MeanS, 0.2},
		{"ttft p50", w.TTFT.P50, 0.1 + 0.15*10/20}, // rank 20: 10 into the second bucket's 20
		{"ttft p95", w.TTFT.P95, 0.5},              // rank 38: the top of the third bucket
		{"ttft p99", w.TTFT.P99, 0.5},              // rank 39.6: in +Inf, the highest finite bound
		{"e2e mean", w.E2E.MeanS, 1.1}, {"e2e p50", w.E2E.P50, 1}, {"e2e p95", w.E2E.P95, 1.9},
		{"replicas", float64(w.Replicas), 2}, {"coverage", w.Coverage, 1},
	}
	for _, c := range checks {
		if !near(c.got, c.want, 1e-9) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	for _, v := range []float64{w.Preemptions, w.SpecAccepted, w.SpecDraft, w.ITL.Count} {
		if !math.IsNaN(v) {
			t.Errorf("a figure without series = %v, want NaN", v)
		}
	}
	if w.Metrics["ttft"] != "vllm:time_to_first_token_seconds" || w.Metrics["prompt_tokens"] != "vllm:prompt_tokens_total" {
		t.Errorf("metrics %v", w.Metrics)
	}
	if want := []string{"server does not expose a itl histogram (looked for vllm:inter_token_latency_seconds, vllm:time_per_output_token_seconds, sglang:inter_token_latency_seconds, sglang:time_per_output_token_seconds, tgi_request_mean_time_per_token_duration)"}; strings.Join(w.Warnings, "|") != want[0] {
		t.Errorf("warnings %q, want %q", w.Warnings, want)
	}
	for i, q := range fp.queries {
		if fp.times[i] != "1780308600.000" {
			t.Errorf("query %s at %s, want the window end", q, fp.times[i])
		}
	}
}

// TestPrometheusServerWindowScrapes: a window with fewer than two scrapes
// leaves the figures out with the reason; one with few is marked inexact.
func TestPrometheusServerWindowScrapes(t *testing.T) {
	ms := Matchers{{Name: "namespace", Op: "=", Value: "llm"}, {Name: "app", Op: "=", Value: "vllm"}}
	end := time.Unix(1780308600, 0)
	for _, tc := range []struct {
		scrapes, want string
		fails         bool
	}{
		{"1", "holds 1 scrape(s)", true},
		{"4", "inexact: the window (20s) holds 4 scrapes", false},
	} {
		fp := vllmProm(t, tc.scrapes)
		p, _ := NewPrometheus(fp.URL, nil)
		ps, err := p.ServerSeries(context.Background(), ms, end)
		if err != nil {
			t.Fatal(err)
		}
		w, err := p.ServerWindow(context.Background(), end.Add(-20*time.Second), end, ps)
		if tc.fails {
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "left out") {
				t.Errorf("%s scrapes: err %v, want %q", tc.scrapes, err, tc.want)
			}
			continue
		}
		if err != nil || !strings.Contains(strings.Join(w.Warnings, "|"), tc.want) || !near(w.PromptTokens, 5000, 1e-9) {
			t.Errorf("%s scrapes: err %v, warnings %q, want %q and the figures", tc.scrapes, err, w.Warnings, tc.want)
		}
	}
}

// TestPrometheusServerSeriesEngines: the engine and names come from the
// series under the selector; none is an error naming the selector.
func TestPrometheusServerSeriesEngines(t *testing.T) {
	fp := newFakeProm(t, func(q string) (int, string) {
		switch {
		case strings.Contains(q, `app="sglang"`):
			return 200, vector(map[string]string{"__name__": "sglang:num_running_reqs"}, "1",
				map[string]string{"__name__": "sglang:prompt_tokens_total"}, "1",
				map[string]string{"__name__": "sglang:cached_tokens_total"}, "1",
				map[string]string{"__name__": "sglang:time_to_first_token_seconds_bucket"}, "1")
		case strings.Contains(q, `app="triton"`):
			return 200, vector(map[string]string{"__name__": "nv_trt_llm_request_metrics", "request_type": "waiting"}, "1",
				map[string]string{"__name__": "nv_inference_first_response_histogram_ms_bucket", "model": "tensorrt_llm"}, "1")
		}
		return 200, vector()
	})
	p, _ := NewPrometheus(fp.URL, nil)
	ctx, now := context.Background(), time.Now()
	ps, err := p.ServerSeries(ctx, Matchers{{Name: "app", Op: "=", Value: "sglang"}}, now)
	if err != nil || ps.Engine != "sglang" || ps.scalars[srvPrefixHits] == nil || ps.scalars[srvPrefixHits].name != "sglang:cached_tokens_total" ||
		ps.hists[histTTFT] == nil || ps.scalars[srvKV] != nil {
		t.Errorf("sglang: %+v, %v", ps, err)
	}
	ps, err = p.ServerSeries(ctx, Matchers{{Name: "app", Op: "=", Value: "triton"}}, now)
	if err != nil || ps.Engine != "tensorrt-llm" || ps.scalars[srvRunning] != nil || ps.scalars[srvWaiting] == nil ||
		ps.Probe() != `nv_trt_llm_request_metrics{app="triton",request_type="waiting"}` ||
		ps.selector(*ps.hists[histTTFT], "_bucket") != `nv_inference_first_response_histogram_ms_bucket{app="triton",model="tensorrt_llm"}` {
		t.Errorf("triton: %+v, %v", ps, err)
	}
	// A reference that adds two families selects both by name.
	r := scalarRefs(srvPrompt)
	if got := ps.selector(r[len(r)-1], ""); got != `{__name__=~"llamacpp:prompt_tokens_total|llamacpp:prompt_tokens_cached_total",app="triton"}` {
		t.Errorf("llama.cpp prompt tokens selector %s", got)
	}
	_, err = p.ServerSeries(ctx, Matchers{{Name: "app", Op: "=", Value: "none"}}, now)
	if err == nil || !strings.Contains(err.Error(), `no vLLM, SGLang, TGI, Triton/TensorRT-LLM or llama.cpp series under {app="none"}`) {
		t.Errorf("no series: %v", err)
	}
}

// TestPrometheusServerWindowLlamaCpp: llama.cpp's busy slots per decode
// is an average since the start, so the window's busy slot-steps are the
// increase of its product with the decodes, over a subquery: 1,750 over
// 500 decodes is 3.5 sequences a step.
func TestPrometheusServerWindowLlamaCpp(t *testing.T) {
	sel := `{app="llama"}`
	answers := map[string]string{
		`max by (instance) (count_over_time(llamacpp:requests_processing` + sel + `[20s]))`: vector(
			map[string]string{"instance": "10.0.0.1:8080"}, "20"),
		`sum(increase(llamacpp:n_decode_total` + sel + `[20s]))`:                                                    vector(map[string]string{}, "500"),
		`sum(increase((llamacpp:n_busy_slots_per_decode` + sel + ` * llamacpp:n_decode_total` + sel + `)[20s:1s]))`: vector(map[string]string{}, "1750"),
		`sum(increase(llamacpp:prompt_seconds_total` + sel + `[20s]))`:                                              vector(map[string]string{}, "0.5"),
	}
	names := []string{"llamacpp:requests_processing", "llamacpp:requests_deferred", "llamacpp:n_decode_total",
		"llamacpp:n_busy_slots_per_decode", "llamacpp:prompt_seconds_total"}
	fp := newFakeProm(t, func(q string) (int, string) {
		if strings.HasPrefix(q, "count by") {
			var args []any
			for _, n := range names {
				args = append(args, map[string]string{"__name__": n}, "1")
			}
			return 200, vector(args...)
		}
		if a, ok := answers[q]; ok {
			return 200, a
		}
		return 200, vector()
	})
	p, _ := NewPrometheus(fp.URL, nil)
	ctx, end := context.Background(), time.Unix(1780308600, 0)
	ps, err := p.ServerSeries(ctx, Matchers{{Name: "app", Op: "=", Value: "llama"}}, end)
	if err != nil || ps.Engine != "llama.cpp" {
		t.Fatalf("series %+v, %v", ps, err)
	}
	w, err := p.ServerWindow(ctx, end.Add(-20*time.Second), end, ps)
	if err != nil {
		t.Fatal(err)
	}
	if w.EngineSteps != 500 || w.BusySlotsPerStep != 3.5 || w.PromptSeconds != 0.5 {
		t.Errorf("steps %v busy/step %v prompt s %v; want 500, 3.5, 0.5", w.EngineSteps, w.BusySlotsPerStep, w.PromptSeconds)
	}
}
