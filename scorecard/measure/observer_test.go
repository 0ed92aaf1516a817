package measure

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/scorecard"
	"github.com/goodput-dev/goodput/sweep"
	"github.com/goodput-dev/goodput/telemetry"
)

// chunked makes a record on the engine clock: chunks at the given offsets
// (s from origin) with per-chunk counts when counts is set.
func chunked(origin int64, offs []float64, counts []int32, out, prompt int, end float64, st record.Status) *record.Record {
	r := record.New()
	r.Dispatched = origin + int64((offs[0]-0.05)*1e9)
	for _, x := range offs {
		r.ChunkTimes = append(r.ChunkTimes, origin+int64(x*1e9))
	}
	r.ChunkTokens = append(r.ChunkTokens, counts...)
	r.FirstToken = r.ChunkTimes[0]
	r.End = origin + int64(end*1e9)
	r.OutputTokens, r.PromptTokens, r.Status = out, prompt, st
	return r
}

// runWindow drives the observer through one synthetic round of total
// seconds whose measurement window is [origin+a, origin+z], with three
// requests: 17 output tokens, 250 prompt tokens, 2 requests (1 successful)
// inside the window.
func runWindow(t *testing.T, ctx context.Context, o *Observer, clock *loadgen.Clock, a, z, total float64, goodput float64) *report.Benchmark {
	t.Helper()
	origin := clock.Now()
	o.BenchmarkStart(0, loadgen.Strategy{Kind: loadgen.Concurrent, Streams: 4}, loadgen.Constraints{}, origin)
	// Request 1: one token per chunk; 4 chunks inside (0.5 … 2.0 s), its
	// first token, prompt and end outside.
	o.Record(chunked(origin, []float64{0.1, 0.5, 1.0, 1.5, 2.0, 2.4}, []int32{1, 1, 1, 1, 1, 1}, 6, 100, 2.41, record.StatusSuccessful))
	// Request 2: two chunks of 5 tokens (server counts), prompt 200, ends
	// inside, successful.
	o.Record(chunked(origin, []float64{0.3, 0.6}, []int32{5, 5}, 10, 200, 0.61, record.StatusSuccessful))
	// Request 3: errored after one chunk of 3 tokens (no per-chunk counts).
	o.Record(chunked(origin, []float64{1.2}, nil, 3, 50, 1.25, record.StatusErrored))
	endAt := clock.Time(origin + int64(total*1e9))
	select {
	case <-time.After(time.Until(endAt)): // the load window passing, not a synchronisation
	case <-ctx.Done():
		t.Fatal(ctx.Err())
	}
	s := float64(origin)/1e9 + a
	e := float64(origin)/1e9 + z
	b := &report.Benchmark{
		Config:           report.BenchmarkConfig{RunID: "obs", Strategy: report.Strategy{Type: "concurrent", Streams: 4}},
		SchedulerMetrics: &report.SchedulerMetrics{MeasureStartTime: rf(s), MeasureEndTime: rf(e)},
		Extras:           &report.Extras{Version: report.ExtrasVersion},
	}
	if goodput > 0 {
		b.Extras.SLO = &report.SLOResult{Pass: true, GoodputOutputTokS: report.Float(goodput), ThroughputOutputTokS: report.Float(goodput)}
	}
	b.Extras.Metrics.TimeToFirstTokenMs = &report.StatusDistributionSummary{Successful: &report.DistributionSummary{
		Count: 2, Percentiles: report.Percentiles{P50: rf(150), P95: 180, P99: 190}}}
	o.BenchmarkEnd(0, sweep.Round{Result: loadgen.Result{Start: origin, End: origin + int64(total*1e9)}, Benchmark: b})
	return b
}

// TestObserverFakes runs the observer against a fake dcgm-exporter (2 GPUs
// at 300 W and 250 W), a fake vLLM /metrics and a fake OpenCost (10.8 €/h
// for the namespace), all on 127.0.0.1, over a synthetic 2 s measurement
// window inside a 2.5 s round.
func TestObserverFakes(t *testing.T) {
	if testing.Short() {
		t.Skip("takes about 3 s of wall time")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dcgm := &fakeDCGM{start: time.Now(), powerW: []float64{300, 250}, host: "node-1"}
	oc := &fakeOpenCost{perHour: 10.8}
	cfg := Config{
		DCGMURLs:         []string{serve(t, dcgm) + "/metrics"},
		ServerMetricsURL: serve(t, &fakeVLLM{start: time.Now()}) + "/metrics", ServerMetrics: ServerMetricsOn,
		OpenCostURL: serve(t, oc), OpenCostQuery: mustQuery("llm-serving"),
		PUE: 1.2, GridIntensity: 50, Interval: 50 * time.Millisecond, Wait: 5 * time.Second,
	}
	tel, err := Open(ctx, cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Close()
	if n, model := tel.GPUs(); n != 2 || model != "NVIDIA H200" {
		t.Errorf("GPUs %d %q", n, model)
	}
	clock := loadgen.NewClock()
	o := tel.Observer(nil, clock.Time)
	b := runWindow(t, ctx, o, clock, 0.25, 2.25, 2.5, 5)
	o.Finish(ctx)
	bt := b.Extras.Telemetry
	if bt == nil {
		t.Fatal("no telemetry written")
	}
	if bt.Window.Basis != "measurement" || math.Abs(float64(bt.Window.DurationS)-2) > 1e-6 {
		t.Errorf("window %+v", bt.Window)
	}
	// Tokens inside [0.25 s, 2.25 s], counted by hand in runWindow.
	tk := bt.Tokens
	if math.Abs(float64(tk.Output)-17) > 1e-3 || math.Abs(float64(tk.Prompt)-250) > 1e-3 || tk.Requests != 2 || tk.Successful != 1 {
		t.Errorf("tokens %+v, want 17 output, 250 prompt, 2 requests, 1 successful", tk)
	}
	// Energy: 550 W × 2 s = 1100 J. The fake's counter is exact when read;
	// the sampler stamps it at the scrape's midpoint, so each edge is off
	// by at most 550 W × half a loopback scrape (well under 10 ms): 2 %
	// leaves room for a loaded machine.
	e := bt.Energy
	if e == nil {
		t.Fatalf("no energy; missing %+v", bt.Missing)
	}
	if ej := fval(e.EnergyJ); math.Abs(ej/1100-1) > 0.02 || e.Method != "counter" || e.GPUs != 2 {
		t.Errorf("energy %.2f J (%s, %d GPUs), want 1100 J within 2%%; warnings %q", ej, e.Method, e.GPUs, e.Warnings)
	}
	if p := fval(e.MeanPowerW); math.Abs(p-550) > 1e-6 {
		t.Errorf("mean power %.3f W, want 550 (constant gauges)", p)
	}
	d := e.Derived
	ej := fval(e.EnergyJ)
	near(t, "J/output token", fval(d.JPerOutputToken), ej/17)
	near(t, "Wh/output token", fval(d.WhPerOutputToken), ej/17/3600)
	near(t, "Wh/output token PUE", fval(d.WhPerOutputTokenPUE), ej/17/3600*1.2)
	near(t, "gCO2/1M", fval(d.GCO2PerMOutputTokens), ej/17/3600*1e3*1.2*50)
	near(t, "Wh/request", fval(d.WhPerRequest), ej/3600/1)
	// Cost: OpenCost's 10.8 €/h; goodput 5 tok/s from the SLO result.
	c := bt.Cost
	if c == nil {
		t.Fatalf("no cost; missing %+v", bt.Missing)
	}
	near(t, "cost per hour", float64(c.CostPerHour), 10.8)
	near(t, "window cost", float64(c.WindowCost), 10.8*2/3600)
	near(t, "CPM", fval(c.CPM), 10.8e6/(5*3600))
	if c.CPMBasis != "goodput" || c.OpenCost == nil || c.OpenCost.Path != "/allocation" || c.Currency != "EUR" {
		t.Errorf("cost %+v", c)
	}
	// Server: the fake's constants and rates.
	s := bt.Server
	if s == nil {
		t.Fatalf("no server block; missing %+v", bt.Missing)
	}
	near(t, "KV cache mean", fval(s.KVCacheUsageMean), 0.42)
	near(t, "running mean", fval(s.RequestsRunningMean), 8)
	if g := fval(s.GenerationTokens); math.Abs(g/200-1) > 0.05 {
		t.Errorf("server generation tokens %.2f, want about 200 (100/s × 2 s)", g)
	}
	// 10 observations/s in (0.1, 0.25]: p50 = 0.1 + 0.15 × 0.5 = 175 ms.
	if s.TTFT == nil || math.Abs(fval(s.TTFT.ServerP50Ms)-175) > 1e-6 || fval(s.TTFT.ClientP50Ms) != 150 || s.TTFT.Metric != "vllm:time_to_first_token_seconds" {
		t.Errorf("ttft %+v", s.TTFT)
	}
	if len(bt.Missing) != 0 {
		t.Errorf("missing %+v", bt.Missing)
	}
	// The report with telemetry writes and reads back unchanged.
	rep := report.NewReport("test", nil, b)
	first, err := rep.MarshalJSONBytes()
	if err != nil {
		t.Fatal(err)
	}
	back, err := report.Decode(strings.NewReader(string(first)), "r.json")
	if err != nil {
		t.Fatal(err)
	}
	again, err := back.MarshalJSONBytes()
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(first) {
		t.Error("report with telemetry: write, read, write gives other bytes")
	}
	if back.Benchmarks[0].Extras.Telemetry == nil || fval(back.Benchmarks[0].Extras.Telemetry.Energy.EnergyJ) != ej {
		t.Error("telemetry lost in the report round trip")
	}
}

func mustQuery(ns string) telemetry.CostQuery {
	return telemetry.CostQuery{Aggregate: "namespace", Keys: []string{ns}}
}

func mustSel(t *testing.T, s string) telemetry.GPUSelector {
	t.Helper()
	sel, err := telemetry.ParseGPUSelector(s)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}

func mustMatchers(t *testing.T, s string) telemetry.Matchers {
	t.Helper()
	ms, err := telemetry.ParseMatchers(s)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

func nvmlBuiltIn() bool { return telemetry.NVMLBuiltIn }

func orMode(m, def ServerMetrics) ServerMetrics {
	if m == "" {
		return def
	}
	return m
}

// TestOpenFailsBeforeLoad: each unreachable or wrong source is an error
// naming it (and the metric it lacks) before any load; with Optional the
// run goes on and the source is listed as missing.
func TestOpenFailsBeforeLoad(t *testing.T) {
	ctx := context.Background()
	dead := closedURL(t)
	notDCGM := serve(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		_, _ = w.Write([]byte("# TYPE up gauge\nup 1\n"))
	}))
	dcgm := serve(t, &fakeDCGM{start: time.Now(), powerW: []float64{100}, host: "node-1"})
	prom := serve(t, http.HandlerFunc(fakePrometheusEmpty))
	oc := serve(t, &fakeOpenCost{perHour: 1})
	for _, tc := range []struct {
		name string
		cfg  Config
		want []string
	}{
		{"unreachable dcgm", Config{DCGMURLs: []string{dead + "/metrics"}}, []string{"--dcgm-url", "dcgm-exporter " + dead + "/metrics", "telemetry probe failed before the load"}},
		{"not a dcgm exporter", Config{DCGMURLs: []string{notDCGM}}, []string{"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "DCGM_FI_DEV_POWER_USAGE"}},
		{"selector matches nothing", Config{DCGMURLs: []string{dcgm}, GPUSelector: mustSel(t, "hostname=other")}, []string{`--gpu-selector "hostname=other" matches none`, "gpu 0 (GPU-0) on node-1"}},
		{"prometheus without dcgm series", Config{PrometheusURL: prom, PrometheusSelector: mustMatchers(t, `Hostname=~"gpu-.*"`)}, []string{`DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{Hostname=~"gpu-.*"}`, "--prometheus-selector"}},
		{"unreachable prometheus", Config{PrometheusURL: dead}, []string{"prometheus " + dead}},
		{"server metrics required", Config{ServerMetrics: ServerMetricsOn, ServerMetricsURL: notDCGM + "/metrics"}, []string{"--server-metrics", "no vLLM, SGLang, TGI, Triton/TensorRT-LLM or llama.cpp metrics"}},
		{"server metrics from an unreachable prometheus", Config{ServerMetrics: ServerMetricsOn, ServerMetricsPrometheus: dead, ServerMetricsSelector: mustMatchers(t, `app="vllm"`)},
			[]string{"--server-metrics", "prometheus " + dead}},
		{"server metrics prometheus without server series", Config{ServerMetrics: ServerMetricsOn, ServerMetricsPrometheus: prom, ServerMetricsSelector: mustMatchers(t, `app="vllm"`)},
			[]string{"--server-metrics", `no vLLM, SGLang, TGI, Triton/TensorRT-LLM or llama.cpp series under {app="vllm"}`}},
		{"opencost without the namespace", Config{OpenCostURL: oc, OpenCostQuery: mustQuery("other")}, []string{"--opencost", "no allocation matches", "kube-system, llm-serving"}},
		{"unreachable opencost", Config{OpenCostURL: dead}, []string{"opencost " + dead}},
		{"nvml not built", Config{NVML: true}, []string{"--nvml"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "nvml not built" && nvmlBuiltIn() {
				t.Skip("this binary has NVML support")
			}
			cfg := tc.cfg
			cfg.ServerMetrics = orMode(cfg.ServerMetrics, ServerMetricsOff)
			cfg.ProbeTimeout = 5 * time.Second
			tel, err := Open(ctx, cfg, "")
			if err == nil {
				tel.Close()
				t.Fatal("Open succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			cfg.Optional = true
			tel, err = Open(ctx, cfg, "")
			if err != nil {
				t.Fatalf("optional: %v", err)
			}
			defer tel.Close()
			m := tel.Missing()
			if len(m) != 1 || !strings.Contains(m[0].Reason, tc.want[0]) {
				t.Errorf("optional: missing %+v", m)
			}
		})
	}
}

// TestOptionalMissingInScorecard: with --telemetry-optional and the only
// energy source down, the round's telemetry and the scorecard say why the
// energy axis is null.
func TestOptionalMissingInScorecard(t *testing.T) {
	dead := closedURL(t)
	tel, err := Open(context.Background(), Config{DCGMURLs: []string{dead}, GPUCostPerHour: 2, GPUs: 1, Optional: true, ServerMetrics: ServerMetricsOff, Wait: time.Second}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Close()
	clock := loadgen.NewClock()
	o := tel.Observer(nil, clock.Time)
	b := runWindow(t, context.Background(), o, clock, 0, 0.1, 0.1, 0)
	o.Finish(context.Background())
	bt := b.Extras.Telemetry
	if bt == nil || bt.Energy != nil || bt.Cost == nil || len(bt.Missing) != 1 {
		t.Fatalf("telemetry %+v", bt)
	}
	f, err := scorecard.Build(report.NewReport("test", nil, b))
	if err != nil {
		t.Fatal(err)
	}
	if r := f.Row.Metadata.MissingAxes["energy"]; !strings.Contains(r, "energy source missing: dcgm-exporter "+dead) {
		t.Errorf("missing_axes.energy %q", r)
	}
	// No SLO: the cost divides by the window's throughput.
	if c := f.Row.Cost; c == nil || c.CPMBasis != "throughput" {
		t.Errorf("cost %+v", c)
	}
}

// TestServerMetricsAuto: by default the target's /metrics is scraped when
// it serves vLLM metrics, and only noted when it does not.
func TestServerMetricsAuto(t *testing.T) {
	vllm := serve(t, &fakeVLLM{start: time.Now()})
	plain := serve(t, http.NotFoundHandler())
	tel, err := Open(context.Background(), Config{}, vllm+"/v1")
	if err != nil {
		t.Fatal(err)
	}
	if tel.server == nil || len(tel.Missing()) != 0 {
		t.Errorf("vLLM target: server sampler %v, missing %+v", tel.server != nil, tel.Missing())
	}
	tel.Close()
	tel, err = Open(context.Background(), Config{}, plain)
	if err != nil {
		t.Fatalf("a target without metrics must not fail in auto mode: %v", err)
	}
	defer tel.Close()
	if m := tel.Missing(); tel.server != nil || len(m) != 1 || !strings.Contains(m[0].Reason, "--server-metrics auto") {
		t.Errorf("plain target: missing %+v", m)
	}
	// Nothing measured and nothing asked for: the report gets no telemetry.
	clock := loadgen.NewClock()
	o := tel.Observer(nil, clock.Time)
	b := runWindow(t, context.Background(), o, clock, 0, 0.05, 0.05, 0)
	o.Finish(context.Background())
	if tel.Active() || b.Extras.Telemetry != nil {
		t.Errorf("inactive telemetry wrote %+v", b.Extras.Telemetry)
	}
}

// TestServerMetricsPrometheus: with --server-metrics prometheus=URL,
// selector={…} each round's server block comes from Prometheus' answers,
// and names the Prometheus and the selector as its source.
func TestServerMetricsPrometheus(t *testing.T) {
	answer := func(q string) string {
		vec := func(rows ...string) string {
			return `{"status":"success","data":{"resultType":"vector","result":[` + strings.Join(rows, ",") + `]}}`
		}
		row := func(labels, v string) string { return `{"metric":{` + labels + `},"value":[1780308600,"` + v + `"]}` }
		switch {
		case strings.HasPrefix(q, "count by (__name__"):
			if !strings.Contains(q, `,job="vllm"}`) {
				return vec()
			}
			return vec(row(`"__name__":"vllm:num_requests_running"`, "2"), row(`"__name__":"vllm:generation_tokens_total"`, "2"))
		case strings.HasPrefix(q, "max(timestamp("):
			return vec(row("", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)))
		case strings.HasPrefix(q, "max by (instance) (count_over_time("):
			return vec(row(`"instance":"a:8000"`, "30"), row(`"instance":"b:8000"`, "30"))
		case strings.HasPrefix(q, `sum(increase(vllm:generation_tokens_total{job="vllm"}[`):
			return vec(row("", "17"))
		case strings.HasPrefix(q, `max_over_time(sum(vllm:num_requests_running{job="vllm"})[`):
			return vec(row("", "6"))
		}
		return vec()
	}
	prom := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(answer(r.PostForm.Get("query"))))
	}))
	tel, err := Open(context.Background(), Config{ServerMetrics: ServerMetricsOn, ServerMetricsPrometheus: prom,
		ServerMetricsSelector: mustMatchers(t, `job="vllm"`), Wait: time.Second}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Close()
	if !tel.Active() || len(tel.Lines()) != 1 || !strings.Contains(tel.Lines()[0], "server metrics (vllm) from prometheus "+prom+` {job="vllm"}`) {
		t.Errorf("active %v, lines %q", tel.Active(), tel.Lines())
	}
	clock := loadgen.NewClock()
	o := tel.Observer(nil, clock.Time)
	b := runWindow(t, context.Background(), o, clock, 0, 0.05, 0.05, 0)
	o.Finish(context.Background())
	s := b.Extras.Telemetry.Server
	if s == nil {
		t.Fatalf("no server block; missing %+v", b.Extras.Telemetry.Missing)
	}
	if s.Source != "prometheus "+prom+` {job="vllm"}` || s.Engine != "vllm" || fval(s.GenerationTokens) != 17 || s.Replicas != 2 ||
		fval(s.RequestsRunningMax) != 6 || s.RequestsRunningMean != nil || s.TTFT != nil {
		t.Errorf("server block %+v", s)
	}
}

// TestServerMetricsAutoTransient: in auto mode a server whose /metrics
// fails every try of the probe with HTTP 500 is not dropped: it is sampled
// anyway, and a benchmark without a successful scrape says the server
// metrics are missing and why.
func TestServerMetricsAutoTransient(t *testing.T) {
	down := serve(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "engine busy", http.StatusInternalServerError)
	}))
	tel, err := Open(context.Background(), Config{Interval: 20 * time.Millisecond}, down)
	if err != nil {
		t.Fatalf("a transient error in auto mode must not fail: %v", err)
	}
	defer tel.Close()
	if tel.server == nil || !tel.Active() || len(tel.Missing()) != 0 {
		t.Fatalf("server sampler %v active %v missing %+v", tel.server != nil, tel.Active(), tel.Missing())
	}
	clock := loadgen.NewClock()
	o := tel.Observer(nil, clock.Time)
	b := runWindow(t, context.Background(), o, clock, 0, 0.05, 0.05, 0)
	o.Finish(context.Background())
	tm := b.Extras.Telemetry
	if tm == nil {
		t.Fatal("no telemetry in the benchmark")
	}
	found := false
	for _, m := range tm.Missing {
		found = found || strings.HasPrefix(m.Source, "server metrics") && strings.Contains(m.Reason, "HTTP 500")
	}
	if !found {
		t.Errorf("missing %+v: want the server metrics with the HTTP 500", tm.Missing)
	}
}
