package measure

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeDCGM serves a dcgm-exporter exposition for GPUs drawing constant
// powers; each GPU's energy counter is the exact integral of its power
// since the fake started, read when the request is handled.
type fakeDCGM struct {
	start  time.Time
	powerW []float64
	host   string
}

func (f *fakeDCGM) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	now := time.Now()
	var b strings.Builder
	b.WriteString("# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).\n# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n")
	for i, p := range f.powerW {
		fmt.Fprintf(&b, "DCGM_FI_DEV_POWER_USAGE{gpu=\"%d\",UUID=\"GPU-%d\",modelName=\"NVIDIA H200\",Hostname=\"%s\"} %.6f\n", i, i, f.host, p)
	}
	b.WriteString("# HELP DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION Total energy consumption since boot (in mJ).\n# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n")
	for i, p := range f.powerW {
		mj := 5e9 + p*now.Sub(f.start).Seconds()*1000
		fmt.Fprintf(&b, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"%d\",UUID=\"GPU-%d\",modelName=\"NVIDIA H200\",Hostname=\"%s\"} %.0f\n", i, i, f.host, mj)
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	_, _ = w.Write([]byte(b.String()))
}

// fakeVLLM serves vLLM metrics: 100 generated tokens/s, a KV cache at 42 %,
// and 10 TTFT observations/s, all in the (0.1, 0.25] s bucket.
type fakeVLLM struct{ start time.Time }

func (f *fakeVLLM) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	el := time.Since(f.start).Seconds()
	n := 10 * el
	var b strings.Builder
	fmt.Fprintf(&b, "# TYPE vllm:kv_cache_usage_perc gauge\nvllm:kv_cache_usage_perc{engine=\"0\",model_name=\"m\"} 0.42\n")
	fmt.Fprintf(&b, "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{engine=\"0\",model_name=\"m\"} 8\n")
	fmt.Fprintf(&b, "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{engine=\"0\",model_name=\"m\"} 0\n")
	fmt.Fprintf(&b, "# TYPE vllm:num_preemptions_total counter\nvllm:num_preemptions_total{engine=\"0\",model_name=\"m\"} 0\n")
	fmt.Fprintf(&b, "# TYPE vllm:generation_tokens_total counter\nvllm:generation_tokens_total{engine=\"0\",model_name=\"m\"} %f\n", 100*el)
	fmt.Fprintf(&b, "# TYPE vllm:prompt_tokens_total counter\nvllm:prompt_tokens_total{engine=\"0\",model_name=\"m\"} %f\n", 400*el)
	fmt.Fprintf(&b, "# TYPE vllm:time_to_first_token_seconds histogram\n")
	fmt.Fprintf(&b, "vllm:time_to_first_token_seconds_bucket{engine=\"0\",le=\"0.1\",model_name=\"m\"} 0\n")
	fmt.Fprintf(&b, "vllm:time_to_first_token_seconds_bucket{engine=\"0\",le=\"0.25\",model_name=\"m\"} %f\n", n)
	fmt.Fprintf(&b, "vllm:time_to_first_token_seconds_bucket{engine=\"0\",le=\"+Inf\",model_name=\"m\"} %f\n", n)
	fmt.Fprintf(&b, "vllm:time_to_first_token_seconds_sum{engine=\"0\",model_name=\"m\"} %f\n", 0.2*n)
	fmt.Fprintf(&b, "vllm:time_to_first_token_seconds_count{engine=\"0\",model_name=\"m\"} %f\n", n)
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	_, _ = w.Write([]byte(b.String()))
}

// fakeOpenCost prices the namespace llm-serving at perHour for whatever
// window is asked, and records the windows.
type fakeOpenCost struct {
	perHour float64
	mu      sync.Mutex
	windows []string
}

func (f *fakeOpenCost) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/allocation" {
		http.NotFound(w, r)
		return
	}
	win := r.URL.Query().Get("window")
	f.mu.Lock()
	f.windows = append(f.windows, win)
	f.mu.Unlock()
	a, z, ok := strings.Cut(win, ",")
	ta, err1 := time.Parse(time.RFC3339, a)
	tz, err2 := time.Parse(time.RFC3339, z)
	if !ok || err1 != nil || err2 != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"code":400,"message":"bad window"}`))
		return
	}
	min := tz.Sub(ta).Minutes()
	body := map[string]any{"code": 200, "data": []map[string]any{{
		"llm-serving": map[string]any{"name": "llm-serving", "properties": map[string]any{"namespace": "llm-serving"},
			"minutes": min, "totalCost": f.perHour * min / 60},
		"kube-system": map[string]any{"name": "kube-system", "properties": map[string]any{"namespace": "kube-system"},
			"minutes": min, "totalCost": 99.0},
	}}}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
}

// serve starts h on 127.0.0.1 for the test.
func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s.URL
}

// closedURL is an http URL on 127.0.0.1 where nothing listens.
func closedURL(t *testing.T) string {
	t.Helper()
	s := httptest.NewServer(http.NotFoundHandler())
	u := s.URL
	s.Close()
	return u
}

// fakePrometheus answers every query with an empty vector.
func fakePrometheusEmpty(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"status":"success","data":{"resultType":"vector","result":[]}}`))
}
