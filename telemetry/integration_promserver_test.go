package telemetry

import (
	"context"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/telemetry/promtest"
	"github.com/prometheus/common/expfmt"
)

// TestPrometheusServerTwoMocks runs a real Prometheus scraping two mock
// vLLM replicas (job "vllm", every 100 ms) and reads a window's server
// figures by the selector {job="vllm"}: its counters and TTFT count are
// the sums of both mocks' own changes, up to increase()'s extrapolation to
// the window edges (the load sits in the middle, so the sampled change is
// exact and the extrapolation can only add, at most the window over the
// span its samples cover).
func TestPrometheusServerTwoMocks(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test takes about 15 s; skipped with -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var servers []*mock.Server
	var targets []string
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
		targets = append(targets, strings.TrimPrefix(srv.URL(), "http://"))
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
	// Warm both up so that every histogram exists before Prometheus scrapes.
	load(servers[0], 1, 4)
	load(servers[1], 1, 4)
	const interval = 100 * time.Millisecond
	promURL, logs := promtest.StartScrape(t, ctx, promtest.Scrape{Job: "vllm", Interval: interval, Targets: targets})
	p, err := NewPrometheus(promURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	sel := Matchers{{Name: "job", Op: "=", Value: "vllm"}}
	// scrapedAfter waits until Prometheus holds a sample of both replicas
	// at or after at.
	scrapedAfter := func(what string, at time.Time) {
		t.Helper()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			v, _, err := p.Query(ctx, `timestamp(vllm:num_requests_running{job="vllm"})`, time.Now())
			if err == nil && len(v) == 2 && math.Min(v[0].Value, v[1].Value) >= float64(at.UnixNano())/1e9 {
				return
			}
			select {
			case <-tick.C:
			case <-ctx.Done():
				t.Fatalf("waiting for %s: %v (last %v, %v)\nprometheus log:\n%s", what, ctx.Err(), v, err, logs.String())
			}
		}
	}
	scrapedAfter("the first scrapes", time.Now().Add(3*interval))

	const pad = 2500 * time.Millisecond
	start := time.Now()
	time.Sleep(pad)
	before := [2]families{scrapeOne(servers[0]), scrapeOne(servers[1])}
	load(servers[0], 5, 8)
	load(servers[1], 3, 20)
	after := [2]families{scrapeOne(servers[0]), scrapeOne(servers[1])}
	time.Sleep(pad)
	end := time.Now()
	scrapedAfter("a scrape after the window end", end)

	ps, err := p.ServerSeries(ctx, sel, end)
	if err != nil {
		t.Fatalf("%v\nprometheus log:\n%s", err, logs.String())
	}
	w, err := p.ServerWindow(ctx, start, end, ps)
	if err != nil {
		t.Fatalf("%v\nprometheus log:\n%s", err, logs.String())
	}
	delta := func(name string, hist bool) float64 {
		d := 0.0
		for i := range 2 {
			for j, fams := range []families{before[i], after[i]} {
				sign := []float64{-1, 1}[j]
				for _, m := range fams[name].GetMetric() {
					if hist {
						d += sign * histCount(m.GetHistogram())
					} else {
						d += sign * scalarValue(m)
					}
				}
			}
		}
		return d
	}
	d := end.Sub(start)
	most := float64(d) / float64(d-3*interval)
	t.Logf("window %v, %d replicas, coverage %.2f, warnings %q", d.Round(time.Millisecond), w.Replicas, w.Coverage, w.Warnings)
	for _, c := range []struct {
		name string
		got  float64
		want float64
	}{
		{"generation tokens", w.GenerationTokens, delta("vllm:generation_tokens_total", false)},
		{"prompt tokens", w.PromptTokens, delta("vllm:prompt_tokens_total", false)},
		{"requests", w.Requests, delta("vllm:request_success_total", false)},
		{"TTFT count", w.TTFT.Count, delta("vllm:time_to_first_token_seconds", true)},
	} {
		t.Logf("%s: prometheus %.3f, the mocks' own changes sum to %.0f (%+.2f%%)", c.name, c.got, c.want, 100*(c.got/c.want-1))
		if !(c.got >= c.want*(1-1e-9) && c.got <= c.want*most) {
			t.Errorf("%s = %v, want the mocks' %v (at most ×%.3f by extrapolation)", c.name, c.got, c.want, most)
		}
	}
	if w.GenerationTokens < 5*8+3*20 || w.Requests < 8 {
		t.Errorf("generation %v, requests %v: want both replicas' (100 tokens, 8 requests)", w.GenerationTokens, w.Requests)
	}
	if w.Engine != "vllm" || w.Replicas != 2 || w.Metrics["ttft"] != "vllm:time_to_first_token_seconds" ||
		!(w.TTFT.P50 > 0) || !(w.RequestsRunning.Max >= 0) || !(w.KVCacheUsage.Mean >= 0) {
		t.Errorf("window %+v", w)
	}
}
