package measure

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/dataset"
	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/accum"
	"github.com/goodput-dev/goodput/scorecard"
	"github.com/goodput-dev/goodput/sweep"
	"github.com/goodput-dev/goodput/telemetry"
	"github.com/goodput-dev/goodput/telemetry/promtest"
)

// TestIntegrationMockPrometheus runs a real load (concurrency 8, 17 s, 3 s
// warmup and cooldown) against the mock vLLM with its simulated DCGM
// exporter (4 GPUs, values refreshed every second, like dcgm-exporter -c
// 1000), with a real Prometheus scraping /dcgm/metrics every second. The
// observer reads the energy of the measurement window both directly
// (primary) and from Prometheus (cross-check); both must agree with the
// mock's ground truth, the exact integral of its power model, within 1 %.
func TestIntegrationMockPrometheus(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test takes about 30 s; skipped with -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	mcfg := mock.DefaultConfig()
	mcfg.GPUs = 4
	mcfg.DCGMUpdateInterval = time.Second
	srv, err := mock.New(mcfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	target := srv.URL()
	promURL, logs := promtest.Start(t, ctx, target[len("http://"):], "/dcgm/metrics")

	prom, err := telemetry.NewPrometheus(promURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for { // three scrapes, so that the window start has samples before it
		v, _, err := prom.Query(ctx, "count_over_time("+telemetry.MetricDCGMEnergy+`{gpu="0"}[1m])`, time.Now())
		if err == nil && len(v) > 0 && v[0].Value >= 3 {
			break
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("prometheus never scraped the mock: %v\n%s", err, logs.String())
		}
	}

	tel, err := Open(ctx, Config{
		DCGMURLs: []string{target + "/dcgm/metrics"}, PrometheusURL: promURL,
		Interval: 100 * time.Millisecond, Wait: 20 * time.Second, GPUCostPerHour: 2.5, PUE: 1.3, GridIntensity: 56,
	}, target)
	if err != nil {
		t.Fatalf("%v\nprometheus log:\n%s", err, logs.String())
	}
	defer tel.Close()

	clock := loadgen.NewClock()
	client, err := loadgen.NewClient(loadgen.ClientConfig{Target: target}, clock)
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdle()
	if _, err := client.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	spec, err := dataset.ParseSpec("prompt_tokens=64,output_tokens=64")
	if err != nil {
		t.Fatal(err)
	}
	warm, _ := report.ParseTransientPhase("3s")
	cool, _ := report.ParseTransientPhase("3s")
	engine := loadgen.NewEngine(client)
	obs := tel.Observer(nil, engine.Clock().Time)
	cons := loadgen.Constraints{MaxDuration: 17 * time.Second}
	runner := &sweep.Runner{
		Engine: engine, Source: dataset.NewSynthetic(spec, 1), Constraints: cons, Observer: obs,
		Report: accum.Config{Warmup: warm, Cooldown: cool, Seed: 1},
		Info:   accum.BenchmarkInfo{RunID: "integration"},
	}
	rounds, err := runner.Run(ctx, sweep.List{{Kind: loadgen.Concurrent, Streams: 8}})
	if err != nil {
		t.Fatal(err)
	}
	obs.Finish(ctx)
	b := rounds[0].Benchmark
	bt := b.Extras.Telemetry
	if bt == nil || bt.Energy == nil {
		t.Fatalf("no energy: %+v", bt)
	}
	start := engine.Clock().Time(secToNs(float64(*b.SchedulerMetrics.MeasureStartTime)))
	end := engine.Clock().Time(secToNs(float64(*b.SchedulerMetrics.MeasureEndTime)))
	e0, ok0 := srv.EnergyJ(start)
	e1, ok1 := srv.EnergyJ(end)
	if !ok0 || !ok1 {
		t.Fatalf("mock ground truth unavailable (%v, %v)", ok0, ok1)
	}
	truth := e1 - e0
	e := bt.Energy
	direct := fval(e.EnergyJ)
	if len(e.CrossChecks) != 1 {
		t.Fatalf("cross-checks %+v", e.CrossChecks)
	}
	viaProm := fval(e.CrossChecks[0].EnergyJ)
	t.Logf("window %.3f s (%s); truth %.2f J; direct %.2f J (%s, %+.3f%%); prometheus %.2f J (%s, %+.3f%%); tokens %.0f; J/token %.4f",
		float64(bt.Window.DurationS), bt.Window.Basis, truth, direct, e.Method, 100*(direct/truth-1),
		viaProm, e.CrossChecks[0].Method, 100*(viaProm/truth-1), float64(bt.Tokens.Output), fval(e.Derived.JPerOutputToken))
	t.Logf("direct warnings %q; prometheus warnings %q; window notes %q", e.Warnings, e.CrossChecks[0].Warnings, bt.Warnings)
	if e.Source != "dcgm-exporter "+target+"/dcgm/metrics" || e.Method != telemetry.MethodCounter || e.GPUs != 4 {
		t.Errorf("primary %q %s %d GPUs", e.Source, e.Method, e.GPUs)
	}
	for name, got := range map[string]float64{"direct": direct, "prometheus": viaProm} {
		if math.Abs(got/truth-1) > 0.01 {
			t.Errorf("%s energy %.2f J, want within 1%% of the mock's %.2f J", name, got, truth)
		}
	}
	// The derived figures use the client's tokens of the same window, and
	// the server block reads the mock's vLLM metrics.
	near(t, "J/output token", fval(e.Derived.JPerOutputToken), direct/math.Round(float64(bt.Tokens.Output)))
	if bt.Server == nil || bt.Server.Engine != "vllm" || bt.Server.Source != target+"/metrics" {
		t.Errorf("server block %+v (missing %+v), want vllm from %s/metrics", bt.Server, bt.Missing, target)
	} else if g := fval(bt.Server.GenerationTokens); math.Abs(g/float64(bt.Tokens.Output)-1) > 0.05 {
		t.Errorf("server generated %.0f tokens in the window, the client counted %.0f", g, float64(bt.Tokens.Output))
	}
	f, err := scorecard.Build(report.NewReport("test", nil, b))
	if err != nil {
		t.Fatal(err)
	}
	if f.Row.Energy == nil || f.Row.Carbon == nil || f.Row.Cost == nil || f.Row.Metadata.MissingAxes != nil {
		t.Errorf("scorecard row %+v", f.Row)
	}
}

// TestIntegrationDifficultMetrics: a mock whose /metrics answers HTTP 500
// three times in ten (seeded) and whose engine histograms appear only at
// the first request: --server-metrics on does not refuse the run, and every
// round has the server block with its TTFT histogram read from the
// histogram's first appearance.
func TestIntegrationDifficultMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test takes a few seconds; skipped with -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	mcfg := mock.DefaultConfig()
	mcfg.MetricsErrorRate = 0.3
	mcfg.LazyMetrics = true
	mcfg.Seed = 7
	srv, err := mock.New(mcfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	target := srv.URL()
	tel, err := Open(ctx, Config{ServerMetrics: ServerMetricsOn, Interval: 100 * time.Millisecond, Wait: 5 * time.Second}, target)
	if err != nil {
		t.Fatalf("--server-metrics on against intermittent 500s: %v", err)
	}
	defer tel.Close()
	clock := loadgen.NewClock()
	client, err := loadgen.NewClient(loadgen.ClientConfig{Target: target}, clock)
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdle()
	spec, err := dataset.ParseSpec("prompt_tokens=32,output_tokens=16")
	if err != nil {
		t.Fatal(err)
	}
	engine := loadgen.NewEngine(client)
	obs := tel.Observer(nil, engine.Clock().Time)
	runner := &sweep.Runner{
		Engine: engine, Source: dataset.NewSynthetic(spec, 1), Observer: obs,
		Constraints: loadgen.Constraints{MaxDuration: 1500 * time.Millisecond},
		Report:      accum.Config{Seed: 1},
		Info:        accum.BenchmarkInfo{RunID: "difficult"},
	}
	rounds, err := runner.Run(ctx, sweep.List{{Kind: loadgen.Concurrent, Streams: 4}, {Kind: loadgen.Concurrent, Streams: 4}})
	if err != nil {
		t.Fatal(err)
	}
	obs.Finish(ctx)
	for i, r := range rounds {
		bt := r.Benchmark.Extras.Telemetry
		if bt == nil || bt.Server == nil || bt.Server.TTFT == nil || bt.Server.TTFT.Metric == "" {
			t.Errorf("round %d: telemetry %+v", i, bt)
			continue
		}
		t.Logf("round %d: server TTFT %s count %v; warnings %q", i, bt.Server.TTFT.Metric, fval(bt.Server.TTFT.Count), bt.Server.Warnings)
	}
}
