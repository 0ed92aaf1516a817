package telemetry

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeProm answers /api/v1/query from a function of the query, recording
// every query and its time parameter.
type fakeProm struct {
	*httptest.Server
	mu      sync.Mutex
	queries []string
	times   []string
}

func newFakeProm(t *testing.T, answer func(q string) (int, string)) *fakeProm {
	t.Helper()
	p := &fakeProm{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/query" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		if err := r.ParseForm(); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		q := r.PostForm.Get("query")
		p.mu.Lock()
		p.queries = append(p.queries, q)
		p.times = append(p.times, r.PostForm.Get("time"))
		p.mu.Unlock()
		code, body := answer(q)
		w.Header().Set("Content-Type", "application/json")
		if strings.HasPrefix(body, "<") {
			w.Header().Set("Content-Type", "text/html")
		}
		w.WriteHeader(code)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(p.Close)
	return p
}

// vector renders a vector result: each series is a label map and a value.
func vector(series ...any) string {
	type elem struct {
		Metric map[string]string `json:"metric"`
		Value  [2]any            `json:"value"`
	}
	res := []elem{}
	for i := 0; i < len(series); i += 2 {
		res = append(res, elem{Metric: series[i].(map[string]string), Value: [2]any{1780308600.0, fmt.Sprint(series[i+1])}})
	}
	b, _ := json.Marshal(map[string]any{"status": "success", "data": map[string]any{"resultType": "vector", "result": res}})
	return string(b)
}

func gpuLabels(i int, hostLabel string) map[string]string {
	g := exampleGPUs()[i]
	return map[string]string{"gpu": g.index, "UUID": g.uuid, hostLabel: "gpu-node-07", "modelName": "NVIDIA H200",
		"instance": "10.0.0.7:9400", "job": "dcgm-exporter", "DCGM_FI_DRIVER_VERSION": "570.124.06"}
}

// dcgmAnswers is a Prometheus holding two H200s under hostLabel.
func dcgmAnswers(hostLabel string, withCounter bool) func(string) (int, string) {
	g0, g1 := gpuLabels(0, hostLabel), gpuLabels(1, hostLabel)
	return func(q string) (int, string) {
		if !strings.Contains(q, hostLabel+"=~") || isGaugeQuery(q) {
			return 200, vector()
		}
		switch {
		case strings.HasPrefix(q, "increase("+MetricDCGMEnergy):
			if !withCounter {
				return 200, vector()
			}
			return 200, vector(g0, "360000000", g1, "300000000")
		case strings.HasPrefix(q, "avg_over_time("+MetricDCGMPower):
			return 200, vector(g0, "600", g1, "500")
		case strings.HasPrefix(q, "max_over_time(sum("):
			return 200, vector(map[string]string{}, "1200")
		case strings.HasPrefix(q, "max_over_time("+MetricDCGMPower):
			return 200, vector(g0, "700", g1, "550")
		case strings.HasPrefix(q, "count_over_time("):
			return 200, vector(g0, "600", g1, "480")
		case strings.HasPrefix(q, "changes("):
			return 200, vector(g0, "599", g1, "20")
		}
		return 400, `{"status":"error","errorType":"bad_data","error":"unexpected query in fake"}`
	}
}

// isGaugeQuery reports whether q reads a GPU gauge other than power.
func isGaugeQuery(q string) bool {
	for _, f := range dcgmGauges {
		if strings.Contains(q, f.metric+"{") {
			return true
		}
	}
	return false
}

// energyQueries drops the gauge queries from qs.
func energyQueries(qs []string) []string {
	var out []string
	for _, q := range qs {
		if !isGaugeQuery(q) {
			out = append(out, q)
		}
	}
	return out
}

func TestPrometheusGPUWindow(t *testing.T) {
	p := newFakeProm(t, dcgmAnswers("Hostname", true))
	c, err := NewPrometheus(p.URL+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := ParseMatchers(`Hostname=~"gpu-node-.*"`)
	if err != nil {
		t.Fatal(err)
	}
	start, end := t0, t0.Add(10*time.Minute)
	w, err := c.GPUWindow(context.Background(), start, end, ms)
	if err != nil {
		t.Fatal(err)
	}
	sel := `{Hostname=~"gpu-node-.*"}[600s]`
	wantQ := []string{
		"increase(" + MetricDCGMEnergy + sel + ")",
		"avg_over_time(" + MetricDCGMPower + sel + ")",
		"max_over_time(" + MetricDCGMPower + sel + ")",
		`max_over_time(sum(` + MetricDCGMPower + `{Hostname=~"gpu-node-.*"})[600s:1s])`,
		"count_over_time(" + MetricDCGMPower + sel + ")",
		"changes(" + MetricDCGMEnergy + sel + ")",
	}
	if got := energyQueries(p.queries); strings.Join(got, "\n") != strings.Join(wantQ, "\n") {
		t.Errorf("queries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantQ, "\n"))
	}
	for _, tm := range p.times {
		if tm != fmt.Sprintf("%d.000", end.Unix()) {
			t.Errorf("time parameter %q, want the window end %d.000", tm, end.Unix())
		}
	}
	// 360 000 000 + 300 000 000 mJ = 660 000 J.
	if w.Method != MethodCounter || w.EnergyJ != 660000 || w.MeanPowerW != 1100 || w.PeakPowerW != 1200 {
		t.Errorf("window: %s %v J mean %v peak %v; want counter 660000, 1100, 1200", w.Method, w.EnergyJ, w.MeanPowerW, w.PeakPowerW)
	}
	if len(w.GPUs) != 2 || w.GPUs[0].EnergyJ != 360000 || w.GPUs[1].PeakPowerW != 550 || w.GPUs[1].GPU.Hostname != "gpu-node-07" || w.GPUs[0].GPU.UUID != exampleGPUs()[0].uuid {
		t.Errorf("per GPU: %+v", w.GPUs)
	}
	// GPU 1's counter changed 20 times in 600 s: 30 s; 600 s ≥ 10 × 30 s.
	if w.UpdateInterval != 30*time.Second || hasWarning(w.Warnings, "too coarse") {
		t.Errorf("interval %v warnings %q", w.UpdateInterval, w.Warnings)
	}
	// 480 of 600 samples for GPU 1.
	if !hasWarning(w.Warnings, "gpu 1 (GPU-7c0d2b9a-1e3f-4a6b-8d2c-5f9e1b3a7c22) on gpu-node-07 has 480 of 600 samples") || w.Coverage != 0.8 {
		t.Errorf("coverage %v warnings %q", w.Coverage, w.Warnings)
	}
}

func TestPrometheusGPUWindowCoarseAndFallback(t *testing.T) {
	g0 := gpuLabels(0, "hostname")
	p := newFakeProm(t, func(q string) (int, string) {
		switch {
		case strings.HasPrefix(q, "increase("):
			return 200, vector() // no counter: fall back to power
		case strings.HasPrefix(q, "avg_over_time("), strings.HasPrefix(q, "max_over_time("):
			return 200, vector(g0, "400")
		case strings.HasPrefix(q, "count_over_time("):
			return 200, vector(g0, "60")
		case strings.HasPrefix(q, "changes("):
			return 200, vector(g0, "2") // the exporter refreshed twice: 30 s
		}
		return 400, `{"status":"error","errorType":"bad_data","error":"unexpected"}`
	})
	c, _ := NewPrometheus(p.URL, nil)
	w, err := c.GPUWindow(context.Background(), t0, t0.Add(time.Minute), nil)
	if err != nil {
		t.Fatal(err)
	}
	// 400 W × 60 s.
	if w.Method != MethodPowerIntegral || w.EnergyJ != 24000 || w.UpdateInterval != 30*time.Second ||
		!hasWarning(w.Warnings, "update interval too coarse") || !hasWarning(w.Warnings, "mean power × duration") {
		t.Errorf("window %+v", w)
	}
	if q := energyQueries(p.queries); q[len(q)-1] != "changes("+MetricDCGMPower+"{}[60s])" {
		t.Errorf("without a counter the interval comes from power changes; last query %q", q[len(q)-1])
	}
}

// TestPrometheusHostnameAlias: a selector written with Hostname finds series
// labelled hostname (dcgm-exporter after the rename), with a warning.
func TestPrometheusHostnameAlias(t *testing.T) {
	p := newFakeProm(t, dcgmAnswers("hostname", true))
	c, _ := NewPrometheus(p.URL, nil)
	ms, _ := ParseMatchers(`{Hostname=~"gpu-node-.*"}`)
	w, err := c.GPUWindow(context.Background(), t0, t0.Add(10*time.Minute), ms)
	if err != nil {
		t.Fatal(err)
	}
	if w.EnergyJ != 660000 || !hasWarning(w.Warnings, `matched with the other label spelling {hostname=~"gpu-node-.*"}`) {
		t.Errorf("energy %v warnings %q", w.EnergyJ, w.Warnings)
	}
	if w.GPUs[0].GPU.Hostname != "gpu-node-07" {
		t.Errorf("hostname not read from the lower-case label: %+v", w.GPUs[0].GPU)
	}
}

func TestPrometheusErrors(t *testing.T) {
	ctx := context.Background()
	ms, _ := ParseMatchers(`Hostname=~"x"`)
	empty := newFakeProm(t, func(string) (int, string) { return 200, vector() })
	c, _ := NewPrometheus(empty.URL, nil)
	_, err := c.GPUWindow(ctx, t0, t0.Add(time.Minute), ms)
	want := fmt.Sprintf(`prometheus %s: no series for DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{Hostname=~"x"}`, empty.URL)
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("missing metric: %v\nwant prefix %s", err, want)
	}

	bad := newFakeProm(t, func(string) (int, string) {
		return 400, `{"status":"error","errorType":"bad_data","error":"invalid parameter \"query\": 1:18: parse error: unclosed left parenthesis"}`
	})
	c, _ = NewPrometheus(bad.URL, nil)
	if _, _, err := c.Query(ctx, "sum(up", t0); err == nil || !strings.Contains(err.Error(), "HTTP 400: bad_data: invalid parameter") {
		t.Errorf("API error body: %v", err)
	}

	proxy := newFakeProm(t, func(string) (int, string) { return 502, "<html><body>Bad Gateway</body></html>" })
	c, _ = NewPrometheus(proxy.URL, nil)
	if _, _, err := c.Query(ctx, "up", t0); err == nil || !strings.Contains(err.Error(), "HTTP 502") || !strings.Contains(err.Error(), "Bad Gateway") {
		t.Errorf("non-JSON body: %v", err)
	}

	matrix := newFakeProm(t, func(string) (int, string) {
		return 200, `{"status":"success","data":{"resultType":"matrix","result":[]}}`
	})
	c, _ = NewPrometheus(matrix.URL, nil)
	if _, _, err := c.Query(ctx, "up[1m]", t0); err == nil || !strings.Contains(err.Error(), `unexpected result type "matrix"`) {
		t.Errorf("matrix result: %v", err)
	}

	dead := deadURL(t)
	c, _ = NewPrometheus(dead, nil)
	if _, err := c.GPUWindow(ctx, t0, t0.Add(time.Minute), ms); err == nil || !strings.Contains(err.Error(), "prometheus "+dead) || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("unreachable: %v", err)
	}
	if _, err := c.GPUWindow(ctx, t0, t0, ms); err == nil || !strings.Contains(err.Error(), "not after start") {
		t.Errorf("empty window: %v", err)
	}
	if _, err := NewPrometheus("prometheus:9090", nil); err == nil {
		t.Error("URL without scheme accepted")
	}
}

func TestQueryScalarAndSpecialValues(t *testing.T) {
	p := newFakeProm(t, func(q string) (int, string) {
		if q == "scalar" {
			return 200, `{"status":"success","data":{"resultType":"scalar","result":[1796200904.866,"809.085"]}}`
		}
		return 200, `{"status":"success","warnings":["w1"],"infos":["i1"],"data":{"resultType":"vector","result":[{"metric":{"gpu":"0"},"value":[1796200903,"NaN"]},{"metric":{"gpu":"1"},"value":[1796200903,"+Inf"]},{"metric":{"gpu":"2"},"value":[1796200903,"12496.63"]}]}}`
	})
	c, _ := NewPrometheus(p.URL, nil)
	v, warns, err := c.Query(context.Background(), "scalar", t0)
	if err != nil || len(v) != 1 || v[0].Value != 809.085 || len(warns) != 0 {
		t.Errorf("scalar: %v %v %v", v, warns, err)
	}
	v, warns, err = c.Query(context.Background(), "vector", t0)
	if err != nil || len(v) != 3 || v[2].Value != 12496.63 || sumValues(v) != 12496.63 || len(warns) != 1 || warns[0] != "w1" {
		t.Errorf("vector: %v %v %v", v, warns, err)
	}
}

func TestKeplerWindow(t *testing.T) {
	p := newFakeProm(t, func(q string) (int, string) {
		if strings.HasPrefix(q, "increase(kepler_container_joules_total{") && strings.Contains(q, `container_namespace="llm-serving"`) {
			return 200, vector(map[string]string{"container_name": "vllm", "container_namespace": "llm-serving", "pod_name": "llama70b-0", "mode": "dynamic"}, "5000",
				map[string]string{"container_name": "vllm", "container_namespace": "llm-serving", "pod_name": "llama70b-0", "mode": "idle"}, "1200")
		}
		if strings.HasPrefix(q, "increase(kepler_node_gpu_joules_total{") {
			return 200, vector(map[string]string{"gpu": "0", "node_name": "gpu-node-07"}, "18342.5")
		}
		return 200, vector()
	})
	c, _ := NewPrometheus(p.URL, nil)
	extra, _ := ParseMatchers(`node_name="gpu-node-07"`)
	k, err := c.KeplerWindow(context.Background(), t0, t0.Add(90*time.Second), KeplerSelector{Namespace: "llm-serving", Pod: "llama70b-0", Matchers: extra})
	if err != nil {
		t.Fatal(err)
	}
	wantTried := []string{
		`increase(kepler_pod_gpu_joules_total{node_name="gpu-node-07",pod_namespace="llm-serving",pod_name="llama70b-0"}[90s])`,
		`increase(kepler_container_gpu_joules_total{node_name="gpu-node-07",container_namespace="llm-serving",pod_name="llama70b-0"}[90s])`,
		`increase(kepler_container_joules_total{node_name="gpu-node-07",container_namespace="llm-serving",pod_name="llama70b-0"}[90s])`,
	}
	if strings.Join(p.queries, "\n") != strings.Join(wantTried, "\n") {
		t.Errorf("queries:\n%s\nwant:\n%s", strings.Join(p.queries, "\n"), strings.Join(wantTried, "\n"))
	}
	if k.Metric != "kepler_container_joules_total" || k.EnergyJ != 6200 || !strings.Contains(k.Scope, "all components") || k.Query != wantTried[2] {
		t.Errorf("kepler: %+v", k)
	}
	k, err = c.KeplerWindow(context.Background(), t0, t0.Add(90*time.Second), KeplerSelector{})
	if err != nil || k.Metric != "kepler_node_gpu_joules_total" || k.EnergyJ != 18342.5 {
		t.Errorf("node: %+v %v", k, err)
	}
	_, err = c.KeplerWindow(context.Background(), t0, t0.Add(90*time.Second), KeplerSelector{Namespace: "other"})
	if err == nil || !strings.Contains(err.Error(), `kepler_pod_gpu_joules_total{pod_namespace="other"}`) || !strings.Contains(err.Error(), "no Kepler series") {
		t.Errorf("no Kepler series: %v", err)
	}
}

func TestParseMatchers(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{``, ``, ``},
		{`Hostname=~"gpu-node-.*"`, `Hostname=~"gpu-node-.*"`, ``},
		{` { Hostname =~ "gpu-node-.*" , gpu=~"0|1", } `, `Hostname=~"gpu-node-.*",gpu=~"0|1"`, ``},
		{`a!="x\"y",b!~"z"`, `a!="x\"y",b!~"z"`, ``},
		{`pod="llama\\70b"`, `pod="llama\\70b"`, ``},
		{`Hostname=gpu-node-07`, ``, `must be double-quoted`},
		{`1gpu="0"`, ``, `expected a label name`},
		{`gpu=="0"`, ``, `must be double-quoted`},
		{`gpu<"0"`, ``, `expected =, !=, =~ or !~`},
		{`gpu="0" gpu="1"`, ``, `separate matchers with commas`},
		{`gpu="0`, ``, `unterminated string`},
		{`gpu="\q"`, ``, `invalid string`},
	} {
		ms, err := ParseMatchers(tc.in)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseMatchers(%q) error %v, want %q", tc.in, err, tc.err)
			}
		case err != nil:
			t.Errorf("ParseMatchers(%q): %v", tc.in, err)
		case ms.String() != tc.want:
			t.Errorf("ParseMatchers(%q) = %s, want %s", tc.in, ms, tc.want)
		}
	}
}

func TestPromDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		90 * time.Second: "90s", 1500 * time.Millisecond: "1500ms", time.Hour: "3600s", 0: "1ms",
	} {
		if got := promDuration(d); got != want {
			t.Errorf("promDuration(%v) = %s, want %s", d, got, want)
		}
	}
}
