package telemetry

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/telemetry/promtest"
)

// TestPrometheusIntegration runs a real Prometheus (Debian package
// prometheus) scraping a fake dcgm-exporter every second, and checks that
// the energy of a 15 s window from Prometheus (increase()) and from direct
// scraping both agree with the fake counter's true value within 1 %.
func TestPrometheusIntegration(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test takes about 25 s; skipped with -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// Power 400 ± 20 W with a 10 s period (and 80 % of it on the second
	// GPU); the counter is its exact integral at each request.
	model := powerModel{base: time.Now(), meanW: 400, ampW: 20, periodS: 10}
	exporter := httptest.NewServer(model.handler())
	defer exporter.Close()
	target := exporter.Listener.Addr().String()
	promURL, logs := promtest.Start(t, ctx, target, "/metrics")
	poll := func(what string, cond func() (bool, error)) {
		t.Helper()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		var last error
		for {
			ok, err := cond()
			if ok {
				return
			}
			last = err
			select {
			case <-tick.C:
			case <-ctx.Done():
				t.Fatalf("waiting for %s: %v (last error: %v)\nprometheus log:\n%s", what, ctx.Err(), last, logs.String())
			}
		}
	}
	poll("prometheus /-/ready", func() (bool, error) {
		resp, err := http.Get(promURL + "/-/ready")
		if err != nil {
			return false, err
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, fmt.Errorf("HTTP %d", resp.StatusCode)
	})

	prom, err := NewPrometheus(promURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	// lastScrape is the timestamp of Prometheus's newest sample.
	lastScrape := func() (float64, int, error) {
		v, _, err := prom.Query(ctx, `timestamp(`+MetricDCGMEnergy+`{gpu="0"})`, time.Now())
		if err != nil || len(v) == 0 {
			return 0, 0, err
		}
		c, _, err := prom.Query(ctx, `count_over_time(`+MetricDCGMEnergy+`{gpu="0"}[1m])`, time.Now())
		if err != nil || len(c) == 0 {
			return 0, 0, err
		}
		return v[0].Value, int(c[0].Value), nil
	}

	src, err := NewDCGMExporter("http://"+target+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	direct, err := NewGPUSampler([]GPUSource{src}, SamplerOptions{Interval: 250 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := direct.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer direct.Stop()

	var phase float64
	poll("three scrapes in prometheus", func() (bool, error) {
		ts, n, err := lastScrape()
		phase = ts - math.Floor(ts)
		return n >= 3, err
	})
	// Put both window edges half-way between Prometheus scrapes, so that
	// increase() extrapolates 0.5 s at each edge.
	now := float64(time.Now().UnixNano()) / 1e9
	s := math.Floor(now) + phase + 0.5
	for s < now+0.2 {
		s++
	}
	start := time.Unix(0, int64(s*1e9))
	end := start.Add(15 * time.Second)
	select {
	case <-time.After(time.Until(end)):
	case <-ctx.Done():
		t.Fatal(ctx.Err())
	}
	poll("a prometheus scrape after the window end", func() (bool, error) {
		ts, _, err := lastScrape()
		return ts > float64(end.UnixNano())/1e9+0.2, err
	})
	if err := direct.WaitCovered(ctx, end); err != nil {
		t.Fatal(err)
	}

	truth := 1.8 * (model.energyJ(end) - model.energyJ(start))
	pw, err := prom.GPUWindow(ctx, start, end, nil)
	if err != nil {
		t.Fatalf("prometheus window: %v\nprometheus log:\n%s", err, logs.String())
	}
	dw, err := direct.Window(start, end, GPUSelector{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("truth %.2f J; prometheus %.2f J (%s, %+.3f%%); direct %.2f J (%s, %+.3f%%)",
		truth, pw.EnergyJ, pw.Method, 100*(pw.EnergyJ/truth-1), dw.EnergyJ, dw.Method, 100*(dw.EnergyJ/truth-1))
	t.Logf("prometheus warnings %q; direct warnings %q", pw.Warnings, dw.Warnings)
	for name, w := range map[string]EnergyWindow{"prometheus": pw, "direct": dw} {
		if w.Method != MethodCounter || len(w.GPUs) != 2 || math.Abs(w.EnergyJ/truth-1) > 0.01 {
			t.Errorf("%s: %s %.2f J over %d GPUs; want counter within 1%% of %.2f J", name, w.Method, w.EnergyJ, len(w.GPUs), truth)
		}
		// Mean power: 1.8 × ~400 W.
		if math.Abs(w.MeanPowerW/(truth/15)-1) > 0.02 {
			t.Errorf("%s: mean power %.2f W, want within 2%% of %.2f W", name, w.MeanPowerW, truth/15)
		}
	}
}
