package sweep

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/telemetry"
)

// busyThenIdle serves a busy exposition for its first k scrapes, then an
// idle one.
type busyThenIdle struct {
	mu         sync.Mutex
	k, n       int
	busy, idle string
}

func (s *busyThenIdle) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	s.n++
	body := s.idle
	if s.n <= s.k {
		body = s.busy
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	_, _ = io.WriteString(w, body)
}

// mockExposition returns the built-in mock's idle /metrics and the same
// text with 2 requests running and 3 waiting.
func mockExposition(t *testing.T) (busy, idle string) {
	t.Helper()
	srv, err := mock.New(mock.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	resp, err := http.Get(srv.URL() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	idle = string(b)
	busy = idle
	for _, g := range []struct{ name, v string }{{"vllm:num_requests_running", "2"}, {"vllm:num_requests_waiting", "3"}} {
		re := regexp.MustCompile(`(?m)^(` + regexp.QuoteMeta(g.name) + `(\{[^}]*\})?) 0(\.0)?$`)
		if !re.MatchString(busy) {
			t.Fatalf("the mock's /metrics has no idle %s:\n%s", g.name, idle)
		}
		busy = re.ReplaceAllString(busy, "${1} "+g.v)
	}
	return busy, idle
}

// TestDrainReadsEveryEngine: the drain reads the queue of every engine
// goodput names, from one exposition per engine, through
// telemetry.QueueReader: busy for three polls (the running and waiting
// requests it read), then idle after 0.3 s; with a shorter bound the round
// is marked busy with the engine's own figures.
func TestDrainReadsEveryEngine(t *testing.T) {
	mockBusy, mockIdle := mockExposition(t)
	engines := []struct {
		name, busy, idle string
		running, waiting float64
	}{
		{"vllm", "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{engine=\"0\",model_name=\"m\"} 4\n# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{engine=\"0\",model_name=\"m\"} 2\n",
			"vllm:num_requests_running{engine=\"0\",model_name=\"m\"} 0\nvllm:num_requests_waiting{engine=\"0\",model_name=\"m\"} 0\n", 4, 2},
		{"sglang", "sglang:num_running_reqs{model_name=\"m\"} 8\nsglang:num_queue_reqs{model_name=\"m\"} 5\n",
			"sglang:num_running_reqs{model_name=\"m\"} 0\nsglang:num_queue_reqs{model_name=\"m\"} 0\n", 8, 5},
		{"tgi", "# TYPE tgi_batch_current_size gauge\ntgi_batch_current_size 16\n# TYPE tgi_queue_size gauge\ntgi_queue_size 4\n",
			"tgi_batch_current_size 0\ntgi_queue_size 0\n", 16, 4},
		// Triton with TensorRT-LLM: by request type, the ensemble's
		// other models left out.
		{"triton tensorrt-llm", "nv_trt_llm_request_metrics{model=\"tensorrt_llm\",request_type=\"scheduled\",version=\"1\"} 10\n" +
			"nv_trt_llm_request_metrics{model=\"tensorrt_llm\",request_type=\"waiting\",version=\"1\"} 2\n" +
			"nv_trt_llm_request_metrics{model=\"tensorrt_llm\",request_type=\"context\",version=\"1\"} 7\n",
			"nv_trt_llm_request_metrics{model=\"tensorrt_llm\",request_type=\"scheduled\",version=\"1\"} 0\n" +
				"nv_trt_llm_request_metrics{model=\"tensorrt_llm\",request_type=\"waiting\",version=\"1\"} 0\n", 10, 2},
		// Triton without the backend's gauges: its pending requests.
		{"triton", "nv_inference_pending_request_count{model=\"tensorrt_llm\",version=\"1\"} 6\nnv_inference_pending_request_count{model=\"ensemble\",version=\"1\"} 6\n",
			"nv_inference_pending_request_count{model=\"tensorrt_llm\",version=\"1\"} 0\nnv_inference_pending_request_count{model=\"ensemble\",version=\"1\"} 0\n", 0, 6},
		// llama-server --metrics: 4 slots busy, 48 tasks deferred.
		{"llama.cpp", "# TYPE llamacpp:requests_processing gauge\nllamacpp:requests_processing 4\n# TYPE llamacpp:requests_deferred gauge\nllamacpp:requests_deferred 48\n",
			"llamacpp:requests_processing 0\nllamacpp:requests_deferred 0\n", 4, 48},
		{"goodput mock", mockBusy, mockIdle, 2, 3},
	}
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			ctx := context.Background()
			read := func(k int, maxWait time.Duration) report.DrainWait {
				srv := httptest.NewServer(&busyThenIdle{k: k, busy: e.busy, idle: e.idle})
				t.Cleanup(srv.Close)
				q, err := telemetry.NewQueueReader(srv.URL, srv.Client())
				if err != nil {
					t.Fatal(err)
				}
				d, _ := newDrain(q, 0, maxWait)
				w, err := d.Wait(ctx, nil, time.Time{})
				if err != nil {
					t.Fatal(err)
				}
				return w
			}
			w := read(3, time.Minute)
			if w.Method != report.DrainGauges || w.Busy || w.WaitedS != 0.3 || *w.Running != 0 || *w.Waiting != 0 {
				t.Errorf("drain %+v; want idle by gauges after 0.3 s", w)
			}
			w = read(100, 250*time.Millisecond)
			if w.Method != report.DrainGauges || !w.Busy || *w.Running != report.Float(e.running) || *w.Waiting != report.Float(e.waiting) {
				t.Errorf("bounded drain %+v; want busy with %v running, %v waiting", w, e.running, e.waiting)
			}
		})
	}
}
