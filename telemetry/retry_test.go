package telemetry

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// flakyServer serves body with the statuses of pattern in turn, one per
// request, cycling: a deterministic stand-in for a server whose /metrics
// answers HTTP 500 now and then.
type flakyServer struct {
	*httptest.Server
	mu      sync.Mutex
	body    string
	pattern []int
	hits    int
}

func newFlakyServer(t *testing.T, body string, pattern ...int) *flakyServer {
	t.Helper()
	s := &flakyServer{body: body, pattern: pattern}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		status := s.pattern[s.hits%len(s.pattern)]
		s.hits++
		body := s.body
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		w.WriteHeader(status)
		if status == http.StatusOK {
			_, _ = w.Write([]byte(body))
		} else {
			_, _ = w.Write([]byte("Internal Server Error"))
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *flakyServer) set(body string) {
	s.mu.Lock()
	s.body = body
	s.mu.Unlock()
}

func (s *flakyServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits
}

// TestServerProbeRetries: a server that fails two scrapes of every three
// is probed and sampled without a failed read; a permanent error (404) is
// not retried.
func TestServerProbeRetries(t *testing.T) {
	srv := newFlakyServer(t, vllmText(vllmState{ttft: [4]float64{1, 2, 3, 4}}), 500, 503, 200)
	clk := newFakeClock()
	sv, err := NewServerSampler(srv.URL, nil, SamplerOptions{Now: clk.Now, Interval: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := sv.Sample(ctx); err != nil {
		t.Fatalf("probe against 500, 503, 200: %v", err)
	}
	if n := srv.count(); n != 3 {
		t.Errorf("probe made %d requests, want 3", n)
	}
	clk.Set(10 * time.Second)
	if err := sv.sample(context.Background(), time.Second); err != nil {
		t.Fatalf("periodic scrape against 500, 503, 200: %v", err)
	}
	w, err := sv.Window(at(0), at(10))
	if err != nil {
		t.Fatal(err)
	}
	if hasWarning(w.Warnings, "failed") || w.Coverage != 1 {
		t.Errorf("retried scrapes left warnings %q, coverage %v", w.Warnings, w.Coverage)
	}

	// A bound shorter than the first backoff: one try, and the failure
	// is recorded for the window.
	clk.Set(20 * time.Second)
	err = sv.sample(context.Background(), 50*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "HTTP 500") {
		t.Errorf("scrape bounded below the backoff: %v", err)
	}

	nf := newFlakyServer(t, "", 404)
	sv, err = NewServerSampler(nf.URL, nil, SamplerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := sv.Sample(context.Background()); err == nil || !strings.Contains(err.Error(), "HTTP 404") {
		t.Errorf("404: %v", err)
	}
	if n := nf.count(); n != 1 {
		t.Errorf("a 404 was tried %d times, want once", n)
	}

	// Always failing: scrapeTries tries, and the error says so.
	bad := newFlakyServer(t, "", 500)
	sv, err = NewServerSampler(bad.URL, nil, SamplerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := sv.Sample(context.Background()); err == nil || !strings.Contains(err.Error(), "tried 4 times") {
		t.Errorf("persistent 500: %v", err)
	}
	if n := bad.count(); n != scrapeTries {
		t.Errorf("persistent 500 tried %d times, want %d", n, scrapeTries)
	}
}

// TestDCGMProbeRetries: the startup probe of a dcgm-exporter that answers
// HTTP 500 once succeeds.
func TestDCGMProbeRetries(t *testing.T) {
	srv := newFlakyServer(t, dcgmText("Hostname", "n", exampleGPUs()), 500, 200)
	src, err := NewDCGMExporter(srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rs, err := ProbeGPUs(ctx, src)
	if err != nil || len(rs) != len(exampleGPUs()) {
		t.Fatalf("probe: %d readings, %v", len(rs), err)
	}
}

// TestServerLateSeries: histograms and counters that appear after the
// first scrape (vLLM creates them at its first request) count from zero.
func TestServerLateSeries(t *testing.T) {
	gauges := "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 0\n# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting 0\n# TYPE vllm:kv_cache_usage_perc gauge\nvllm:kv_cache_usage_perc 0\n"
	sv, srv, clk := newServerRig(t, gauges)
	if err := sv.Sample(context.Background()); err != nil {
		t.Fatal(err)
	}
	clk.Set(10 * time.Second)
	srv.set(vllmText(vllmState{prompt: 640, gen: 160, ttft: [4]float64{4, 8, 10, 10}, ttftSum: 1.5}))
	if err := sv.Sample(context.Background()); err != nil {
		t.Fatal(err)
	}
	w, err := sv.Window(at(0), at(10))
	if err != nil {
		t.Fatal(err)
	}
	if w.TTFT.Metric != "vllm:time_to_first_token_seconds" || w.TTFT.Count != 10 || !near(w.TTFT.MeanS, 0.15, 1e-12) {
		t.Errorf("late TTFT histogram: %+v", w.TTFT)
	}
	if w.PromptTokens != 640 || w.GenerationTokens != 160 {
		t.Errorf("late counters: prompt %v generation %v, want 640 and 160", w.PromptTokens, w.GenerationTokens)
	}
	if hasWarning(w.Warnings, "ttft histogram") || hasWarning(w.Warnings, "absent from some scrapes") {
		t.Errorf("warnings %q", w.Warnings)
	}
	// ITL never appeared: still reported as not exposed.
	if !hasWarning(w.Warnings, "itl histogram") {
		t.Errorf("no ITL warning in %q", w.Warnings)
	}
}

// TestQueueReader: vLLM's gauges summed over engines, TGI's names, an
// intermittent 500 retried, and an exposition without the gauges refused.
func TestQueueReader(t *testing.T) {
	srv := newFlakyServer(t, vllmText(vllmState{running: [2]float64{3, 4}, waiting: [2]float64{0, 5}}), 500, 200)
	q, err := NewQueueReader(srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if run, wait, err := q.Queue(context.Background()); err != nil || run != 7 || wait != 5 {
		t.Errorf("vLLM: running %v waiting %v, %v; want 7, 5", run, wait, err)
	}
	srv.set("# TYPE tgi_queue_size gauge\ntgi_queue_size 2\n# TYPE tgi_batch_current_size gauge\ntgi_batch_current_size 6\n")
	if run, wait, err := q.Queue(context.Background()); err != nil || run != 6 || wait != 2 {
		t.Errorf("TGI: running %v waiting %v, %v; want 6, 2", run, wait, err)
	}
	srv.set("# TYPE up gauge\nup 1\n")
	if _, _, err := q.Queue(context.Background()); err == nil || !strings.Contains(err.Error(), "sglang:num_queue_reqs") {
		t.Errorf("no gauges: %v", err)
	}
}
