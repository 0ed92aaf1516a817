package mock

import (
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("/metrics Content-Type = %q", ct)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	return fams
}

// value returns the single sample of a counter or gauge family whose labels
// include want.
func value(t *testing.T, fams map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	t.Helper()
	f, ok := fams[name]
	if !ok {
		t.Fatalf("family %s missing", name)
	}
	for _, m := range f.GetMetric() {
		if !hasLabels(m, want) {
			continue
		}
		switch f.GetType() {
		case dto.MetricType_COUNTER:
			return m.GetCounter().GetValue()
		case dto.MetricType_GAUGE:
			return m.GetGauge().GetValue()
		}
		t.Fatalf("family %s has type %v", name, f.GetType())
	}
	t.Fatalf("family %s has no sample with labels %v", name, want)
	return 0
}

func hasLabels(m *dto.Metric, want map[string]string) bool {
	got := map[string]string{}
	for _, l := range m.GetLabel() {
		got[l.GetName()] = l.GetValue()
	}
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}

func histogramOf(t *testing.T, fams map[string]*dto.MetricFamily, name string) *dto.Histogram {
	t.Helper()
	f, ok := fams[name]
	if !ok || f.GetType() != dto.MetricType_HISTOGRAM || len(f.GetMetric()) != 1 {
		t.Fatalf("histogram %s missing or malformed: %v", name, f)
	}
	m := f.GetMetric()[0]
	if !hasLabels(m, map[string]string{"model_name": "goodput-mock", "engine": "0"}) {
		t.Errorf("%s labels = %v", name, m.GetLabel())
	}
	return m.GetHistogram()
}

// TestMetricsCountWhatWasSent sends a known mix of requests and checks every
// family against counts computed by hand.
func TestMetricsCountWhatWasSent(t *testing.T) {
	cfg := fastConfig()
	cfg.OutputTokens = 3 // natural length
	cfg.ITL = 2 * time.Millisecond
	s := startServer(t, cfg)

	// 3 streamed chat requests: 3 prompt tokens each ("hello world!"),
	// exactly 4 output tokens (ignore_eos), finish length; 4 steps, 3 gaps.
	// 2 non-streaming completions: prompt "hello" = ceil(5/4) = 2 tokens,
	// natural length 3 < max_tokens 10, finish stop; 3 steps, 2 gaps.
	// 1 unknown model: rejected, counted nowhere in /metrics.
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			resp := post(t, nil, s.URL()+"/v1/chat/completions", `{`+chatMsgs+`,"max_tokens":4,"ignore_eos":true,"stream":true}`)
			if res := readSSE(resp.Body); !res.done {
				t.Errorf("stream did not finish: %v", res.err)
			}
			resp.Body.Close()
		})
	}
	for range 2 {
		wg.Go(func() {
			resp := post(t, nil, s.URL()+"/v1/completions", `{"prompt":"hello","max_tokens":10}`)
			if b := readAll(t, resp); resp.StatusCode != 200 {
				t.Errorf("status %d: %s", resp.StatusCode, b)
			}
		})
	}
	wg.Wait()
	resp := post(t, nil, s.URL()+"/v1/completions", `{"model":"other","prompt":"hello"}`)
	readAll(t, resp)

	fams := scrape(t, s.URL())
	lbl := map[string]string{"model_name": "goodput-mock", "engine": "0"}
	for _, c := range []struct {
		name string
		want float64
	}{
		{"vllm:prompt_tokens_total", 3*3 + 2*2},
		{"vllm:generation_tokens_total", 3*4 + 2*3},
		{"vllm:num_requests_running", 0},
		{"vllm:num_requests_waiting", 0},
		{"vllm:num_preemptions_total", 0},
		{"vllm:kv_cache_usage_perc", 0},
		{"vllm:gpu_cache_usage_perc", 0},
	} {
		if got := value(t, fams, c.name, lbl); got != c.want {
			t.Errorf("%s = %v, want %v", c.name, got, c.want)
		}
	}
	for reason, want := range map[string]float64{"length": 3, "stop": 2, "abort": 0, "error": 0} {
		l := map[string]string{"model_name": "goodput-mock", "finished_reason": reason}
		if got := value(t, fams, "vllm:request_success_total", l); got != want {
			t.Errorf("request_success_total{finished_reason=%q} = %v, want %v", reason, got, want)
		}
	}

	for _, c := range []struct {
		name   string
		count  uint64
		bounds []float64
		minSum float64 // lower bound of the sum from the configured delays
	}{
		{"vllm:time_to_first_token_seconds", 5, ttftBuckets, 0},
		// Each request's observed gaps sum to its last step's emission minus
		// its first's: at least (steps-1)*ITL minus the first step's
		// lateness (microseconds at TTFT 0). Half the nominal sum leaves
		// margin and still fails if ITL is not applied.
		{"vllm:inter_token_latency_seconds", 3*3 + 2*2, itlBuckets, (3*3 + 2*2) * 0.002 / 2},
		{"vllm:time_per_output_token_seconds", 3*3 + 2*2, itlBuckets, (3*3 + 2*2) * 0.002 / 2},
		// e2e runs from arrival to after the last step's deadline: exact bound.
		{"vllm:e2e_request_latency_seconds", 5, e2eBuckets, 3*3*0.002 + 2*2*0.002},
	} {
		h := histogramOf(t, fams, c.name)
		if h.GetSampleCount() != c.count {
			t.Errorf("%s count = %d, want %d", c.name, h.GetSampleCount(), c.count)
		}
		if h.GetSampleSum() < c.minSum {
			t.Errorf("%s sum = %v, want >= %v", c.name, h.GetSampleSum(), c.minSum)
		}
		bk := h.GetBucket()
		if len(bk) != len(c.bounds)+1 || !math.IsInf(bk[len(bk)-1].GetUpperBound(), 1) {
			t.Fatalf("%s has %d buckets, want vLLM's %d and +Inf", c.name, len(bk), len(c.bounds))
		}
		for i, b := range c.bounds {
			if bk[i].GetUpperBound() != b {
				t.Errorf("%s bucket %d le=%v, want %v", c.name, i, bk[i].GetUpperBound(), b)
			}
		}
		if inf := bk[len(bk)-1].GetCumulativeCount(); inf != c.count {
			t.Errorf("%s: +Inf bucket holds %d, want %d", c.name, inf, c.count)
		}
	}
	// Buckets are cumulative.
	itl := histogramOf(t, fams, "vllm:inter_token_latency_seconds")
	prev := uint64(0)
	for _, b := range itl.GetBucket() {
		if b.GetCumulativeCount() < prev {
			t.Errorf("ITL buckets are not cumulative: %v", itl.GetBucket())
		}
		prev = b.GetCumulativeCount()
	}
}

// TestMetricsWhileRunning checks the gauges with streams in flight.
func TestMetricsWhileRunning(t *testing.T) {
	cfg := fastConfig()
	cfg.TTFT = 0
	cfg.ITL = time.Hour // the second step never comes before Close
	cfg.KVCacheTokens = 100
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	// Two streams with prompt 3 tokens, each of which emits 1 token and waits.
	var bodies []*http.Response
	for range 2 {
		resp := post(t, nil, s.URL()+"/v1/chat/completions", `{`+chatMsgs+`,"max_tokens":10,"ignore_eos":true,"stream":true}`)
		bodies = append(bodies, resp)
	}
	if !waitFor(5*time.Second, func() bool { return s.metrics.generationTokens.Load() == 2 }) {
		t.Fatalf("streams did not emit their first token")
	}
	fams := scrape(t, s.URL())
	lbl := map[string]string{"model_name": "goodput-mock"}
	if got := value(t, fams, "vllm:num_requests_running", lbl); got != 2 {
		t.Errorf("running = %v, want 2", got)
	}
	// KV: (3 prompt + 1 emitted) * 2 requests / 100.
	if got := value(t, fams, "vllm:kv_cache_usage_perc", lbl); got != 0.08 {
		t.Errorf("kv_cache_usage_perc = %v, want 0.08", got)
	}
	s.Close()
	for _, r := range bodies {
		if res := readSSE(r.Body); res.done || res.err == nil {
			t.Errorf("stream ended by Close: done=%v err=%v, want an abrupt end", res.done, res.err)
		}
		r.Body.Close()
	}
	if got := s.metrics.success[reasonAbort].Load(); got != 2 {
		t.Errorf("abort count = %d, want 2", got)
	}
}

func TestAppendPyFloat(t *testing.T) {
	// Expected values are what Python's prometheus_client writes
	// (floatToGoString over repr).
	tests := []struct {
		v    float64
		want string
	}{
		{0, "0.0"},
		{1, "1.0"},
		{2.5, "2.5"},
		{0.001, "0.001"},
		{0.0001, "0.0001"},
		{0.00001, "1e-05"},
		{123456, "123456.0"},
		{1234567, "1.234567e+06"},
		{1843112, "1.843112e+06"},
		{10000000, "1e+07"},
		{7680, "7680.0"},
		{1e16, "1e+16"},
		{-3, "-3.0"},
		{math.Inf(1), "+Inf"},
		{math.Inf(-1), "-Inf"},
		{math.NaN(), "NaN"},
	}
	for _, tc := range tests {
		if got := string(appendPyFloat(nil, tc.v)); got != tc.want {
			t.Errorf("appendPyFloat(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestHistogramBuckets(t *testing.T) {
	h := newHistogram([]float64{0.01, 0.1})
	h.observeN(10*time.Millisecond, 1)   // le=0.01 is inclusive
	h.observeN(10*time.Millisecond+1, 2) // just above: le=0.1
	h.observeN(time.Second, 1)           // +Inf
	h.observeN(0, 3)                     // le=0.01
	if got := []uint64{h.counts[0].Load(), h.counts[1].Load(), h.counts[2].Load()}; got[0] != 4 || got[1] != 2 || got[2] != 1 {
		t.Errorf("bucket counts = %v, want [4 2 1]", got)
	}
	if h.count.Load() != 7 || h.sumNs.Load() != int64(10*time.Millisecond+2*(10*time.Millisecond+1)+time.Second) {
		t.Errorf("count %d sum %d", h.count.Load(), h.sumNs.Load())
	}
}
