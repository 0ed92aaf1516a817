package mock

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestNoAbortKeepsLeftoverWork: with one slot, a long stream whose client
// leaves after its first chunk keeps the slot with NoAbort, so a request
// sent next waits in the queue (visible in /metrics) until the first would
// have finished, and every token of the first is counted; without NoAbort
// the slot is freed at once.
func TestNoAbortKeepsLeftoverWork(t *testing.T) {
	const long = 100 // steps of 5.1 ms: about 510 ms of work
	for _, noAbort := range []bool{false, true} {
		t.Run(map[bool]string{false: "abort", true: "no-abort"}[noAbort], func(t *testing.T) {
			cfg := capacityConfig(smallModel(1, 5*time.Millisecond))
			cfg.NoAbort = noAbort
			s := startServer(t, cfg)
			client := &http.Client{Transport: &http.Transport{}}
			ctx, leave := context.WithCancel(context.Background())
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+"/v1/completions",
				strings.NewReader(`{"prompt":[1,2,3,4,5,6,7,8,9,10],"max_tokens":100,"ignore_eos":true,"stream":true}`))
			start := time.Now()
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := resp.Body.Read(make([]byte, 64)); err != nil {
				t.Fatalf("first chunk: %v", err)
			}
			leave()
			resp.Body.Close()

			if !noAbort {
				if !waitFor(5*time.Second, func() bool { return s.Stats().Aborted == 1 }) {
					t.Fatalf("the request was not aborted: %+v", s.Stats())
				}
			} else {
				time.Sleep(20 * time.Millisecond) // the server has seen the client leave
			}
			next := make(chan time.Time, 1)
			go func() {
				r := post(t, client, s.URL()+"/v1/completions", `{"prompt":[1,2],"max_tokens":2,"ignore_eos":true,"stream":true}`)
				readSSE(r.Body)
				r.Body.Close()
				next <- time.Now()
			}()
			lbl := map[string]string{"model_name": DefaultModel}
			if noAbort {
				if !waitFor(5*time.Second, func() bool { return s.Stats().Waiting == 1 }) {
					t.Fatalf("the next request is not queued behind the abandoned one: %+v", s.Stats())
				}
				fams := scrape(t, s.URL())
				if r, w := value(t, fams, "vllm:num_requests_running", lbl), value(t, fams, "vllm:num_requests_waiting", lbl); r != 1 || w != 1 {
					t.Errorf("/metrics running %v waiting %v after the client left, want 1 and 1", r, w)
				}
			}
			end := <-next
			elapsed := end.Sub(start)
			if !waitFor(5*time.Second, func() bool { return s.Stats().Running == 0 }) {
				t.Fatalf("requests still running: %+v", s.Stats())
			}
			st := s.Stats()
			fams := scrape(t, s.URL())
			gen := value(t, fams, "vllm:generation_tokens_total", lbl)
			if noAbort {
				if elapsed < long*5*time.Millisecond {
					t.Errorf("next request done %v after the first started, want after the first's %d steps of 5 ms", elapsed, long)
				}
				if st.Abandoned != 1 || st.Completed != 2 || st.Aborted != 0 || gen != long+2 {
					t.Errorf("stats %+v, generation tokens %v: want the abandoned request completed with its %d tokens", st, gen, long)
				}
				if got := value(t, fams, "vllm:request_success_total", map[string]string{"finished_reason": "length"}); got != 2 {
					t.Errorf("request_success_total{length} = %v, want 2", got)
				}
			} else {
				if elapsed > long*5*time.Millisecond*3/4 {
					t.Errorf("next request done %v after the first started: its slot was not freed", elapsed)
				}
				if st.Abandoned != 0 || st.Completed != 1 || st.Aborted != 1 || gen >= long {
					t.Errorf("stats %+v, generation tokens %v: want the first aborted", st, gen)
				}
			}
		})
	}
}

// TestMetricsErrorRate: about that fraction of scrapes get a 500, the same
// scrapes for the same seed, and the others the exposition.
func TestMetricsErrorRate(t *testing.T) {
	statuses := func(seed uint64) []int {
		cfg := fastConfig()
		cfg.MetricsErrorRate, cfg.Seed = 0.3, seed
		s := startServer(t, cfg)
		var out []int
		failed := 0
		for range 200 {
			resp, err := http.Get(s.URL() + "/metrics")
			if err != nil {
				t.Fatal(err)
			}
			body := readAll(t, resp)
			if resp.StatusCode == http.StatusInternalServerError {
				failed++
			} else if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "vllm:num_requests_running") {
				t.Fatalf("scrape: HTTP %d %q", resp.StatusCode, body)
			}
			out = append(out, resp.StatusCode)
		}
		if failed < 30 || failed > 90 || s.Stats().MetricsErrors != uint64(failed) {
			t.Errorf("seed %d: %d of 200 scrapes failed (Stats says %d), want about 60", seed, failed, s.Stats().MetricsErrors)
		}
		return out
	}
	a, b, c := statuses(1), statuses(1), statuses(2)
	if fmtInts(a) != fmtInts(b) {
		t.Error("the same seed failed different scrapes")
	}
	if fmtInts(a) == fmtInts(c) {
		t.Error("seeds 1 and 2 failed the same scrapes")
	}
}

func fmtInts(v []int) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestLazyMetrics: the engine's counters and histograms appear at the first
// request; the gauges are there from the start.
func TestLazyMetrics(t *testing.T) {
	for _, lazy := range []bool{false, true} {
		cfg := fastConfig()
		cfg.LazyMetrics = lazy
		s := startServer(t, cfg)
		fams := scrape(t, s.URL())
		engine := []string{"vllm:time_to_first_token_seconds", "vllm:e2e_request_latency_seconds", "vllm:inter_token_latency_seconds",
			"vllm:prompt_tokens_total", "vllm:generation_tokens_total", "vllm:request_success_total", "vllm:num_preemptions_total"}
		for _, name := range engine {
			if _, ok := fams[name]; ok == lazy {
				t.Errorf("lazy=%v: %s present=%v before the first request", lazy, name, ok)
			}
		}
		for _, name := range []string{"vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:kv_cache_usage_perc"} {
			if _, ok := fams[name]; !ok {
				t.Errorf("lazy=%v: gauge %s missing", lazy, name)
			}
		}
		readAll(t, post(t, nil, s.URL()+"/v1/completions", `{"prompt":"hi","max_tokens":3}`))
		fams = scrape(t, s.URL())
		for _, name := range engine {
			if _, ok := fams[name]; !ok {
				t.Errorf("lazy=%v: %s missing after a request", lazy, name)
			}
		}
		if h := histogramOf(t, fams, "vllm:time_to_first_token_seconds"); h.GetSampleCount() != 1 {
			t.Errorf("lazy=%v: TTFT count %d after one request", lazy, h.GetSampleCount())
		}
	}
}

// TestChatTemplateTokens: chat completions bill N more prompt tokens (in
// usage, /metrics and the capacity model's prefill); text completions do not.
func TestChatTemplateTokens(t *testing.T) {
	cfg := fastConfig()
	cfg.ChatTemplateTokens = 5
	s := startServer(t, cfg)
	usage := func(path, body string) int {
		var r struct {
			Usage struct {
				PromptTokens int `json:"prompt_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal(readAll(t, post(t, nil, s.URL()+path, body)), &r); err != nil {
			t.Fatal(err)
		}
		return r.Usage.PromptTokens
	}
	// "abcdefgh" is 2 tokens at about 4 bytes each.
	if got := usage("/v1/chat/completions", `{"messages":[{"role":"user","content":"abcdefgh"}],"max_tokens":2}`); got != 7 {
		t.Errorf("chat usage.prompt_tokens = %d, want 2 + 5", got)
	}
	if got := usage("/v1/completions", `{"prompt":"abcdefgh","max_tokens":2}`); got != 2 {
		t.Errorf("completion usage.prompt_tokens = %d, want 2 (no chat template)", got)
	}
	if got := value(t, scrape(t, s.URL()), "vllm:prompt_tokens_total", nil); got != 9 {
		t.Errorf("vllm:prompt_tokens_total = %v, want 7 + 2", got)
	}
	// The capacity model prefills what usage bills.
	req, apiErr := parseRequest([]byte(`{"messages":[{"role":"user","content":"abcdefgh"}]}`), apiChat, &cfg, ApproxTokenCount)
	if apiErr != nil {
		t.Fatal(apiErr)
	}
	if p := makePlan(&cfg, &req, 0, newStream().rng); p.prompt != 7 {
		t.Errorf("plan prefills %d prompt tokens, want 7", p.prompt)
	}
	// The template counts against the context length, as in vLLM.
	cfg.MaxModelLen = 8
	if _, apiErr := parseRequest([]byte(`{"messages":[{"role":"user","content":"abcdefgh"}],"max_tokens":2}`), apiChat, &cfg, ApproxTokenCount); apiErr == nil || apiErr.status != http.StatusBadRequest {
		t.Errorf("7 prompt + 2 output tokens over a context of 8: %v, want a 400", apiErr)
	}
}
