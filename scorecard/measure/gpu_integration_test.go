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
	"github.com/goodput-dev/goodput/sweep"
)

// TestIntegrationMockUtilization runs a light round (constant 2 req/s) and
// a saturating one (concurrency 8) against the mock with its DCGM exporter
// (2 GPUs, refreshed every second) and checks each round's reported GPU
// utilization against the mock's own account of its busy time over the
// same measurement window (Server.BusyPct), and that the gauges that
// follow the load (framebuffer, profiling fields) are in the report.
func TestIntegrationMockUtilization(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test takes about 15 s; skipped with -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	mcfg := mock.DefaultConfig()
	mcfg.GPUs = 2
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
	tel, err := Open(ctx, Config{DCGMURLs: []string{target + "/dcgm/metrics"}, ServerMetrics: ServerMetricsOff,
		Interval: 100 * time.Millisecond, Wait: 10 * time.Second}, target)
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Close()
	client, err := loadgen.NewClient(loadgen.ClientConfig{Target: target}, loadgen.NewClock())
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdle()
	spec, err := dataset.ParseSpec("prompt_tokens=32,output_tokens=16")
	if err != nil {
		t.Fatal(err)
	}
	warm, _ := report.ParseTransientPhase("1s")
	cool, _ := report.ParseTransientPhase("1s")
	engine := loadgen.NewEngine(client)
	obs := tel.Observer(nil, engine.Clock().Time)
	runner := &sweep.Runner{
		Engine: engine, Source: dataset.NewSynthetic(spec, 1), Observer: obs,
		Constraints: loadgen.Constraints{MaxDuration: 6 * time.Second},
		Report:      accum.Config{Warmup: warm, Cooldown: cool, Seed: 1},
		Info:        accum.BenchmarkInfo{RunID: "utilization"},
	}
	rounds, err := runner.Run(ctx, sweep.List{{Kind: loadgen.Constant, Rate: 2}, {Kind: loadgen.Concurrent, Streams: 8}})
	if err != nil {
		t.Fatal(err)
	}
	obs.Finish(ctx)
	var utils []float64
	for i, r := range rounds {
		b := r.Benchmark
		bt := b.Extras.Telemetry
		if bt == nil || bt.GPU == nil {
			t.Fatalf("round %d: no GPU block: %+v", i, bt)
		}
		start := engine.Clock().Time(secToNs(float64(*b.SchedulerMetrics.MeasureStartTime)))
		end := engine.Clock().Time(secToNs(float64(*b.SchedulerMetrics.MeasureEndTime)))
		truth, ok := srv.BusyPct(start, end)
		if !ok {
			t.Fatalf("round %d: mock account unavailable", i)
		}
		u := bt.GPU.Gauge("utilization")
		if u == nil || u.GPUs != 2 || u.Mean == nil || len(u.Series) == 0 {
			t.Fatalf("round %d: utilization %+v", i, u)
		}
		got := float64(*u.Mean)
		t.Logf("round %d: window %.2f s, %.1f output tok/s, utilization %.1f %% (peak %.0f), mock busy %.1f %%",
			i, float64(bt.Window.DurationS), float64(bt.Tokens.OutputTokS), got, fval(u.Peak), truth)
		// The exposed gauge is the busy share of the second before each
		// update, sampled within 0.1 s of it: it lags the truth by about
		// half a second, a few points over a 4 s window.
		if math.Abs(got-truth) > 8 {
			t.Errorf("round %d: reported utilization %.1f %%, the mock was busy %.1f %% of the window", i, got, truth)
		}
		sm := bt.GPU.Gauge("sm_active")
		if sm == nil || math.Abs(fval(sm.Mean)-0.85*got) > 1 {
			t.Errorf("round %d: sm_active %+v, want 0.85 × utilization", i, sm)
		}
		if fb := bt.GPU.Gauge("framebuffer_used"); fb == nil || fb.Combine != "sum" || fval(fb.Mean) <= 0 {
			t.Errorf("round %d: framebuffer_used %+v", i, fb)
		}
		utils = append(utils, got)
	}
	if utils[1] <= utils[0] {
		t.Errorf("utilization does not follow the load: %.1f %% at 2 req/s, %.1f %% at concurrency 8", utils[0], utils[1])
	}
}
