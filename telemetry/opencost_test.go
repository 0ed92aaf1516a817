package telemetry

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// allocationJSON is the /allocation example of telemetry.md §5 (one step,
// aggregate=namespace) plus a second namespace.
const allocationJSON = `{"code":200,"status":"success","data":[
  { "llm-serving": {
      "name":"llm-serving",
      "properties":{"cluster":"c1","namespace":"llm-serving","node":"gpu-node-07","pod":"llama70b-0","container":"vllm","controller":"llama70b","controllerKind":"statefulset","providerID":"i-1","labels":{"app":"vllm"}},
      "window":{"start":"2026-06-01T10:00:00Z","end":"2026-06-01T11:00:00Z"},
      "start":"2026-06-01T10:00:00Z","end":"2026-06-01T11:00:00Z","minutes":60,
      "cpuCores":16,"cpuCoreRequestAverage":16,"cpuCoreUsageAverage":3.1,"cpuCoreHours":16,"cpuCost":0.51,"cpuCostAdjustment":0,"cpuEfficiency":0.19,
      "gpuCount":2,"gpuHours":2,"gpuCost":7.9,"gpuCostAdjustment":0,
      "networkTransferBytes":0,"networkReceiveBytes":0,"networkCost":0,"networkCostAdjustment":0,
      "loadBalancerCost":0,"loadBalancerCostAdjustment":0,
      "pvBytes":0,"pvByteHours":0,"pvCost":0,"pvs":null,"pvCostAdjustment":0,
      "ramBytes":2.1e11,"ramByteRequestAverage":2.1e11,"ramByteUsageAverage":9.8e10,"ramByteHours":2.1e11,"ramCost":0.9,"ramCostAdjustment":0,"ramEfficiency":0.47,
      "sharedCost":0,"externalCost":0,"totalCost":9.31,"totalEfficiency":0.22,"rawAllocationOnly":null },
    "monitoring": {"name":"monitoring","properties":{"namespace":"monitoring"},"minutes":60,"totalCost":0.69}
  }
]}`

type fakeOpenCost struct {
	*httptest.Server
	mu    sync.Mutex
	paths []string
	query url.Values
}

func newFakeOpenCost(t *testing.T, h func(w http.ResponseWriter, r *http.Request)) *fakeOpenCost {
	t.Helper()
	f := &fakeOpenCost{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.paths = append(f.paths, r.URL.Path)
		f.query = r.URL.Query()
		f.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

func jsonReply(code int, body string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = w.Write([]byte(body))
	}
}

func TestOpenCostAllocation(t *testing.T) {
	f := newFakeOpenCost(t, jsonReply(200, allocationJSON))
	oc, err := NewOpenCost(f.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := oc.Allocation(context.Background(), CostQuery{Start: t0, End: t0.Add(time.Hour), Keys: []string{"llm-serving"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.query.Get("window"); got != "2026-06-01T10:00:00Z,2026-06-01T11:00:00Z" {
		t.Errorf("window parameter %q", got)
	}
	if f.query.Get("aggregate") != "namespace" || f.query.Get("accumulate") != "true" || f.paths[0] != "/allocation" {
		t.Errorf("query %v path %v", f.query, f.paths)
	}
	if a.QueriedCost != 9.31 || a.CostPerHour != 9.31 || a.WindowCost != 9.31 || a.Minutes != 60 || a.Path != "/allocation" || len(a.ByKey) != 1 {
		t.Errorf("allocation: %+v", a)
	}

	// A 30-minute window off the minute grid: queried 10:00–10:31 (31 min),
	// both namespaces (10.00 in total), pro-rated to 30 min:
	// 10 / (31/60) per hour × 0.5 h.
	a, err = oc.Allocation(context.Background(), CostQuery{Start: t0.Add(30 * time.Second), End: t0.Add(30*time.Minute + 30*time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.query.Get("window"); got != "2026-06-01T10:00:00Z,2026-06-01T10:31:00Z" {
		t.Errorf("widened window %q", got)
	}
	wantPerHour := 10.0 / (31.0 / 60)
	if math.Abs(a.CostPerHour-wantPerHour) > 1e-12 || math.Abs(a.WindowCost-wantPerHour/2) > 1e-12 || !hasWarning(a.Warnings, "pro-rated") {
		t.Errorf("pro-rated: %+v, want %v per hour, %v for the window", a, wantPerHour, wantPerHour/2)
	}

	// Filtering by properties.namespace works with any aggregation.
	a, err = oc.Allocation(context.Background(), CostQuery{Start: t0, End: t0.Add(time.Hour), Aggregate: "pod", Namespace: "monitoring"})
	if err != nil || a.QueriedCost != 0.69 || f.query.Get("aggregate") != "pod" {
		t.Errorf("namespace filter: %+v %v", a, err)
	}
}

func TestOpenCostFallbackPath(t *testing.T) {
	f := newFakeOpenCost(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/allocation" {
			http.NotFound(w, r)
			return
		}
		jsonReply(200, allocationJSON)(w, r)
	})
	oc, _ := NewOpenCost(f.URL, nil)
	a, err := oc.Allocation(context.Background(), CostQuery{Start: t0, End: t0.Add(time.Hour), Keys: []string{"llm-serving"}})
	if err != nil || a.Path != "/allocation/compute" || a.QueriedCost != 9.31 {
		t.Errorf("fallback: %+v %v (paths %v)", a, err, f.paths)
	}
}

func TestOpenCostErrors(t *testing.T) {
	ctx := context.Background()
	q := CostQuery{Start: t0, End: t0.Add(time.Hour), Keys: []string{"llm-serving"}}
	for name, tc := range map[string]struct {
		h    func(http.ResponseWriter, *http.Request)
		want string
	}{
		"api error": {jsonReply(400, `{"code":400,"message":"Error: invalid window"}`), "API error (HTTP 400, code 400): Error: invalid window"},
		"plain text": {func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "bad window parameter", http.StatusBadRequest)
		}, `HTTP 400 with "text/plain" body: bad window parameter`},
		"bad json":   {jsonReply(200, `{"code":200,"data":[`), "decoding response"},
		"no match":   {jsonReply(200, `{"code":200,"data":[{"other":{"totalCost":1}}]}`), "no allocation matches keys=[llm-serving]"},
		"both paths": {http.NotFound, "/allocation/compute: HTTP 404"},
	} {
		f := newFakeOpenCost(t, tc.h)
		oc, _ := NewOpenCost(f.URL, nil)
		if _, err := oc.Allocation(ctx, q); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "opencost "+f.URL) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
	dead := deadURL(t)
	oc, _ := NewOpenCost(dead, nil)
	if _, err := oc.Allocation(ctx, q); err == nil || !strings.Contains(err.Error(), "connection refused") || !strings.Contains(err.Error(), dead) {
		t.Errorf("unreachable: %v", err)
	}
	if _, err := oc.Allocation(ctx, CostQuery{Start: t0, End: t0}); err == nil || !strings.Contains(err.Error(), "not after start") {
		t.Errorf("empty window: %v", err)
	}
	if _, err := NewOpenCost("opencost:9003", nil); err == nil {
		t.Error("URL without scheme accepted")
	}
}

// TestCost: the article's example (harness-articles, capacity planning):
// ~11 €/h per replica at a goodput of 3 330 tok/s is ~0.92 €/1M tokens.
func TestCost(t *testing.T) {
	f, err := Cost(CostInput{CostPerHour: 11, Window: 30 * time.Minute, GoodputTokS: 3330, Requests: 1100})
	if err != nil {
		t.Fatal(err)
	}
	// CPM = 11 × 10^6 / (3330 × 3600) = 11e6 / 11 988 000.
	if !near(f.CPM, 11e6/11988000, 1e-12) || math.Abs(f.CPM-0.9176) > 1e-4 {
		t.Errorf("CPM %v", f.CPM)
	}
	// Window cost 11 × 0.5 = 5.5; per request 5.5 / 1100 = 0.005.
	if f.WindowCost != 5.5 || !near(f.CostPerRequest, 0.005, 1e-12) {
		t.Errorf("window %v per request %v", f.WindowCost, f.CostPerRequest)
	}
	f, err = Cost(CostInput{CostPerHour: 11, Window: time.Minute})
	if err != nil || !math.IsNaN(f.CPM) || !math.IsNaN(f.CostPerRequest) {
		t.Errorf("zero goodput and requests: %+v %v", f, err)
	}
	for _, in := range []CostInput{
		{CostPerHour: -1, Window: time.Second}, {CostPerHour: math.NaN(), Window: time.Second},
		{CostPerHour: 1}, {CostPerHour: 1, Window: time.Second, GoodputTokS: math.Inf(1)},
		{CostPerHour: 1, Window: time.Second, Requests: -1},
	} {
		if _, err := Cost(in); err == nil {
			t.Errorf("Cost(%+v) accepted", in)
		}
	}
}
