package telemetry

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/clitest"

	"github.com/goodput-dev/goodput/mock"
	"github.com/prometheus/common/expfmt"
)

// TestReplicaSamplerTwoMocks: two mock vLLM replicas under different loads,
// sampled as one server: the window's counters and TTFT histogram buckets
// equal the sums of each replica's own /metrics changes.
func TestReplicaSamplerTwoMocks(t *testing.T) {
	var servers []*mock.Server
	for range 2 {
		srv, err := mock.New(mock.DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.Start("127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
		servers = append(servers, srv)
	}
	ctx := context.Background()
	scrapeOne := func(s *mock.Server) families {
		t.Helper()
		resp, err := http.Get(s.URL() + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		fams, err := decodeExposition(resp.Body, expfmt.ResponseFormat(resp.Header))
		if err != nil {
			t.Fatal(err)
		}
		return fams
	}
	load := func(s *mock.Server, n, tokens int) {
		t.Helper()
		for range n {
			resp, err := http.Post(s.URL()+"/v1/completions", "application/json",
				strings.NewReader(`{"model":"`+mock.DefaultModel+`","prompt":"hello there","max_tokens":`+strconv.Itoa(tokens)+`}`))
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("HTTP %d", resp.StatusCode)
			}
		}
	}
	// Warm both up so every histogram exists before the first sample.
	load(servers[0], 1, 4)
	load(servers[1], 1, 4)
	sv, err := NewReplicaSampler([]string{servers[0].URL() + "/metrics", servers[1].URL()}, nil, SamplerOptions{Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	before := [2]families{scrapeOne(servers[0]), scrapeOne(servers[1])}
	start := time.Now()
	if err := sv.Sample(ctx); err != nil {
		t.Fatal(err)
	}
	load(servers[0], 5, 8)
	load(servers[1], 3, 20)
	if err := sv.Sample(ctx); err != nil {
		t.Fatal(err)
	}
	end := time.Now()
	after := [2]families{scrapeOne(servers[0]), scrapeOne(servers[1])}
	w, err := sv.Window(start, end)
	if err != nil {
		t.Fatal(err)
	}
	delta := func(name string) float64 {
		d := 0.0
		for i := range 2 {
			for j, fams := range []families{before[i], after[i]} {
				sign := []float64{-1, 1}[j]
				for _, m := range fams[name].GetMetric() {
					d += sign * scalarValue(m)
				}
			}
		}
		return d
	}
	if gen := delta("vllm:generation_tokens_total"); w.GenerationTokens != gen || gen != 5*8+3*20 {
		t.Errorf("generation tokens %v, the replicas' own changes sum to %v (want 100)", w.GenerationTokens, gen)
	}
	if p := delta("vllm:prompt_tokens_total"); w.PromptTokens != p || w.Requests != delta("vllm:request_success_total") || w.Requests != 8 {
		t.Errorf("prompt %v (want %v), requests %v (want 8)", w.PromptTokens, p, w.Requests)
	}
	// TTFT buckets: the window's cumulative counts are the sums of each
	// replica's bucket changes.
	want := map[float64]float64{}
	for i := range 2 {
		for j, fams := range []families{before[i], after[i]} {
			sign := []float64{-1, 1}[j]
			for _, m := range fams["vllm:time_to_first_token_seconds"].GetMetric() {
				for _, b := range m.GetHistogram().GetBucket() {
					want[b.GetUpperBound()] += sign * bucketCount(b)
				}
			}
		}
	}
	if w.TTFT.Count != 8 || len(w.TTFT.Buckets) == 0 {
		t.Fatalf("TTFT %+v", w.TTFT)
	}
	for _, b := range w.TTFT.Buckets {
		if wb, ok := want[b.UpperBound]; ok && wb != b.Count {
			t.Errorf("TTFT bucket le=%g: %v, replicas sum to %v", b.UpperBound, b.Count, wb)
		}
	}
	if w.Replicas != 2 || !strings.Contains(sv.name, servers[1].URL()+"/metrics") {
		t.Errorf("replicas %d name %q", w.Replicas, sv.name)
	}
}

// TestLlamaCppMockSteps: the mock playing llama-server with 4 slots, four
// requests of 3 prompt and 16 output tokens at once after one alone: the
// window's steps carried more than two sequences each on average (the
// mock's per-decode average since the start, which counts the lone
// request's steps too, is lower), the longest sequence held was 3 + 16
// tokens, and prefill and generation took time; a figure upstream
// llama-server lacks (KV cache) is no warning.
func TestLlamaCppMockSteps(t *testing.T) {
	m, err := mock.Preset("tiny")
	if err != nil {
		t.Fatal(err)
	}
	m.MaxNumSeqs = 4
	url := clitest.Mock(t, func(cfg *mock.Config) {
		cfg.Personality = mock.PersonalityLlamaCpp
		cfg.Capacity = &m
	})
	post := func() error {
		resp, err := http.Post(url+"/v1/completions", "application/json",
			strings.NewReader(`{"model":"`+mock.DefaultModel+`","prompt":"hello there!","max_tokens":16,"ignore_eos":true,"stream":true}`))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		_, err = io.Copy(io.Discard, resp.Body)
		return err
	}
	if err := post(); err != nil {
		t.Fatal(err)
	}
	sv, err := NewServerSampler(url+"/metrics", nil, SamplerOptions{Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := sv.Sample(ctx); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	errs := make(chan error, 4)
	for range 4 {
		go func() { errs <- post() }()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	end := time.Now()
	if err := sv.Sample(ctx); err != nil {
		t.Fatal(err)
	}
	w, err := sv.Window(start, end)
	if err != nil {
		t.Fatal(err)
	}
	if w.Engine != EngineLlamaCpp || !(w.EngineSteps >= 16) || !(w.BusySlotsPerStep > 2 && w.BusySlotsPerStep <= 4) {
		t.Errorf("engine %q steps %v busy slots per step %v; want llama.cpp, at least 16, in (2, 4]", w.Engine, w.EngineSteps, w.BusySlotsPerStep)
	}
	if w.ContextTokensMax != 19 || !(w.PromptSeconds > 0) || !(w.GenerationSeconds > 0) || !(w.GenerationTokens > 60 && w.GenerationTokens <= 64) {
		t.Errorf("context max %v prompt s %v generation s %v tokens %v; want 19, > 0, > 0, about 64 (the window ends inside the last scrape interval)", w.ContextTokensMax, w.PromptSeconds, w.GenerationSeconds, w.GenerationTokens)
	}
	if len(w.Warnings) != 0 {
		t.Errorf("warnings %q", w.Warnings)
	}
}
