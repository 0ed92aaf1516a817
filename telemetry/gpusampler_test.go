package telemetry

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// rig drives a GPUSampler over fake dcgm-exporters on a fake clock.
type rig struct {
	t   *testing.T
	clk *fakeClock
	s   *GPUSampler
	srv []*textServer
}

func newRig(t *testing.T, nsrv int) *rig {
	t.Helper()
	r := &rig{t: t, clk: newFakeClock()}
	var sources []GPUSource
	for range nsrv {
		srv := newTextServer(t, "")
		r.srv = append(r.srv, srv)
		src, err := NewDCGMExporter(srv.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, src)
	}
	s, err := NewGPUSampler(sources, SamplerOptions{Now: r.clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	r.s = s
	return r
}

// step sets the clock to sec seconds and the exporters' bodies, then samples.
func (r *rig) step(sec float64, bodies ...string) error {
	r.t.Helper()
	r.clk.Set(time.Duration(sec * float64(time.Second)))
	for i, b := range bodies {
		r.srv[i].set(b)
	}
	return r.s.Sample(context.Background())
}

func (r *rig) mustStep(sec float64, bodies ...string) {
	r.t.Helper()
	if err := r.step(sec, bodies...); err != nil {
		r.t.Fatalf("sample at %gs: %v", sec, err)
	}
}

func (r *rig) window(a, b float64, sel GPUSelector) EnergyWindow {
	r.t.Helper()
	w, err := r.s.Window(at(a), at(b), sel)
	if err != nil {
		r.t.Fatal(err)
	}
	return w
}

func twoGPUs(e0, p0, e1, p1 float64) []fakeGPU {
	g := exampleGPUs()
	g[0].energyMJ, g[0].powerW = e0, p0
	g[1].energyMJ, g[1].powerW = e1, p1
	return g
}

// TestGPUWindowCounterInterpolation: energy from counter deltas with the
// counter interpolated at both window edges; mean and peak power; all
// expected values worked out by hand.
func TestGPUWindowCounterInterpolation(t *testing.T) {
	r := newRig(t, 1)
	const e0, e1 = 48213377120.0, 47990312455.0
	// GPU 0 gains 6 124 800, 5 980 200, 6 000 000 mJ per 10 s;
	// GPU 1 gains 5 980 200, 6 100 000, 5 900 000 mJ.
	steps := []struct {
		sec      float64
		g0E, g0P float64
		g1E, g1P float64
	}{
		{0, e0, 600, e1, 500},
		{10, e0 + 6124800, 620, e1 + 5980200, 500},
		{20, e0 + 12105000, 580, e1 + 12080200, 520},
		{30, e0 + 18105000, 600, e1 + 17980200, 540},
	}
	for _, s := range steps {
		r.mustStep(s.sec, dcgmText("Hostname", "gpu-node-07", twoGPUs(s.g0E, s.g0P, s.g1E, s.g1P)))
	}
	w := r.window(5, 25, GPUSelector{})

	// GPU 0: E(5) = e0 + 3 062 400; E(25) = e0 + 12 105 000 + 3 000 000
	//   → 12 042 600 mJ = 12 042.6 J.
	// GPU 1: E(5) = e1 + 2 990 100; E(25) = e1 + 12 080 200 + 2 950 000
	//   → 12 040 100 mJ = 12 040.1 J.
	// Power GPU 0: p(5)=610, p(25)=590; trapezoids 5·615 + 10·600 + 5·585
	//   = 12 000 W·s over 20 s → 600 W; peak 620 (sample at 10 s).
	// Power GPU 1: p(5)=500, p(25)=530; 5·500 + 10·510 + 5·525 = 10 225
	//   → 511.25 W; peak 530 (edge value at 25 s).
	// Summed power at 5, 10, 20, 25 s: 1110, 1120, 1100, 1120 → peak 1120.
	want := []struct{ e, mean, peak float64 }{{12042.6, 600, 620}, {12040.1, 511.25, 530}}
	if len(w.GPUs) != 2 {
		t.Fatalf("GPUs = %d, want 2", len(w.GPUs))
	}
	for i, g := range w.GPUs {
		if g.Method != MethodCounter || !near(g.EnergyJ, want[i].e, 1e-9) || !near(g.MeanPowerW, want[i].mean, 1e-9) || !near(g.PeakPowerW, want[i].peak, 1e-9) {
			t.Errorf("GPU %d: method %s energy %.4f J mean %.4f W peak %.4f W; want counter %.4f %.4f %.4f",
				i, g.Method, g.EnergyJ, g.MeanPowerW, g.PeakPowerW, want[i].e, want[i].mean, want[i].peak)
		}
	}
	if w.Method != MethodCounter || !near(w.EnergyJ, 24082.7, 1e-9) || !near(w.MeanPowerW, 1111.25, 1e-9) || !near(w.PeakPowerW, 1120, 1e-9) {
		t.Errorf("total: %s %.4f J mean %.4f W peak %.4f W; want counter 24082.7 J, 1111.25 W, 1120 W", w.Method, w.EnergyJ, w.MeanPowerW, w.PeakPowerW)
	}
	if w.Coverage != 1 || w.UpdateInterval != 10*time.Second {
		t.Errorf("coverage %v interval %v; want 1 and 10s", w.Coverage, w.UpdateInterval)
	}
	if w.GPUs[0].GPU.Hostname != "gpu-node-07" || w.GPUs[0].GPU.UUID != "GPU-3b1f6c2e-8d4a-4f1b-9c7e-2a5d9e0f1a11" || w.GPUs[0].GPU.Model != "NVIDIA H200" {
		t.Errorf("GPU identity = %+v", w.GPUs[0].GPU)
	}
	// The power series: one point per second of the 20 s window (21),
	// summed and interpolated: 1110 W at 5 s, 1120 at 10, 600+510 = 1110
	// at 15, 1100 at 20, 1120 at 25.
	if len(w.Power) != 21 {
		t.Fatalf("%d power points, want 21", len(w.Power))
	}
	for _, p := range []struct {
		i    int
		sec  float64
		watt float64
	}{{0, 5, 1110}, {5, 10, 1120}, {10, 15, 1110}, {15, 20, 1100}, {20, 25, 1120}} {
		got := w.Power[p.i]
		if !got.T.Equal(at(p.sec)) || !near(got.W, p.watt, 1e-9) {
			t.Errorf("power point %d: %v %.4f W, want %v %.4f W", p.i, got.T, got.W, at(p.sec), p.watt)
		}
	}
	// A 20 s window with a 10 s update interval is too coarse.
	if !hasWarning(w.Warnings, "update interval too coarse") {
		t.Errorf("no coarse-interval warning: %q", w.Warnings)
	}

	// Selecting one GPU by index gives its figures alone.
	w1 := r.window(5, 25, GPUSelector{Indexes: []string{"1"}})
	if len(w1.GPUs) != 1 || !near(w1.EnergyJ, 12040.1, 1e-9) {
		t.Errorf("gpu=1: %d GPUs, %.4f J; want 1 GPU, 12040.1 J", len(w1.GPUs), w1.EnergyJ)
	}
	// Window edges on samples need no interpolation: 0..30 s.
	if w := r.window(0, 30, GPUSelector{}); !near(w.EnergyJ, (18105000+17980200)/1000.0, 1e-9) {
		t.Errorf("0..30 s energy = %.4f J, want %.4f", w.EnergyJ, (18105000+17980200)/1000.0)
	}
}

// TestGPUWindowCounterReset: a drop of the counter is a reset; the
// post-reset value is added.
func TestGPUWindowCounterReset(t *testing.T) {
	r := newRig(t, 1)
	one := func(e, p float64) string {
		return dcgmText("hostname", "n1", []fakeGPU{{index: "0", uuid: "GPU-a", energyMJ: e, powerW: p}})
	}
	r.mustStep(0, one(1_000_000, 100))
	r.mustStep(10, one(2_000_000, 100))
	r.mustStep(20, one(400_000, 100)) // driver reloaded: restarted from 0
	r.mustStep(30, one(1_400_000, 100))
	// Reset-free cumulative: 0, 1e6, 1.4e6, 2.4e6 mJ.
	if w := r.window(0, 30, GPUSelector{}); !near(w.EnergyJ, 2400, 1e-12) || !hasWarning(w.Warnings, "counter reset") {
		t.Errorf("0..30 s: %.3f J, warnings %q; want 2400 J and a reset warning", w.EnergyJ, w.Warnings)
	}
	// E(5) = 0.5e6, E(25) = 1.4e6 + 0.5e6 → 1.4e6 mJ.
	if w := r.window(5, 25, GPUSelector{}); !near(w.EnergyJ, 1400, 1e-12) {
		t.Errorf("5..25 s: %.3f J, want 1400", w.EnergyJ)
	}
	// A window after the reset has no reset warning.
	if w := r.window(21, 29, GPUSelector{}); hasWarning(w.Warnings, "counter reset") || !near(w.EnergyJ, 800, 1e-12) {
		t.Errorf("21..29 s: %.3f J warnings %q; want 800 J, no reset warning", w.EnergyJ, w.Warnings)
	}
}

// TestGPUWindowPowerIntegralFallback: without the counter, energy is the
// trapezoid integral of power.
func TestGPUWindowPowerIntegralFallback(t *testing.T) {
	r := newRig(t, 1)
	one := func(p float64) string {
		return dcgmText("Hostname", "n1", []fakeGPU{{index: "0", uuid: "GPU-a", energyMJ: math.NaN(), powerW: p}})
	}
	r.mustStep(0, one(100))
	r.mustStep(10, one(200))
	r.mustStep(20, one(300))
	// 10·150 + 10·250 = 4000 J.
	w := r.window(0, 20, GPUSelector{})
	if w.Method != MethodPowerIntegral || !near(w.EnergyJ, 4000, 1e-12) || !near(w.MeanPowerW, 200, 1e-12) || !near(w.PeakPowerW, 300, 1e-12) {
		t.Errorf("0..20 s: %s %.3f J mean %.3f peak %.3f; want power-integral 4000 J, 200 W, 300 W", w.Method, w.EnergyJ, w.MeanPowerW, w.PeakPowerW)
	}
	// p(5)=150, p(15)=250: 5·175 + 5·225 = 2000 J.
	if w := r.window(5, 15, GPUSelector{}); !near(w.EnergyJ, 2000, 1e-12) || !hasWarning(w.Warnings, "trapezoid integral") {
		t.Errorf("5..15 s: %.3f J warnings %q; want 2000 J and a fallback note", w.EnergyJ, w.Warnings)
	}
}

// TestGPUWindowHostnameSpellings: Hostname (old releases) and hostname
// (current main) both identify the host, and the selector matches either.
func TestGPUWindowHostnameSpellings(t *testing.T) {
	r := newRig(t, 2)
	gOld := []fakeGPU{{index: "0", uuid: "GPU-old", energyMJ: 0, powerW: 100}}
	gNew := []fakeGPU{{index: "0", uuid: "GPU-new", energyMJ: 0, powerW: 200}}
	r.mustStep(0, dcgmText("Hostname", "old-node", gOld), dcgmText("hostname", "new-node", gNew))
	gOld[0].energyMJ, gNew[0].energyMJ = 1_000_000, 2_000_000
	r.mustStep(10, dcgmText("Hostname", "old-node", gOld), dcgmText("hostname", "new-node", gNew))
	for _, tc := range []struct {
		sel  string
		want float64
	}{{"hostname=old-node", 1000}, {"host=NEW-NODE", 2000}, {"", 3000}} {
		sel, err := ParseGPUSelector(tc.sel)
		if err != nil {
			t.Fatal(err)
		}
		w := r.window(0, 10, sel)
		if !near(w.EnergyJ, tc.want, 1e-12) {
			t.Errorf("selector %q: %.3f J, want %.0f", tc.sel, w.EnergyJ, tc.want)
		}
	}
	if _, err := r.s.Window(at(0), at(10), GPUSelector{Hostnames: []string{"nope"}}); err == nil || !strings.Contains(err.Error(), "no GPU matches selector") || !strings.Contains(err.Error(), "old-node") {
		t.Errorf("unmatched selector error = %v", err)
	}
}

// TestGPUWindowCoarseInterval: scraping every second an exporter that
// refreshes every 30 s detects the 30 s interval and warns on short windows.
func TestGPUWindowCoarseInterval(t *testing.T) {
	for _, tc := range []struct {
		refresh  int // exporter refresh period, s
		window   float64
		wantIntv time.Duration
		warn     bool
	}{
		{30, 60, 30 * time.Second, true},
		{30, 300, 30 * time.Second, false},
		{1, 60, time.Second, false},
	} {
		r := newRig(t, 1)
		for sec := 0; sec <= 330; sec++ {
			refreshed := sec - sec%tc.refresh
			g := []fakeGPU{{index: "0", uuid: "GPU-a", energyMJ: 400_000 * float64(refreshed), powerW: 400 + float64(refreshed%7)}}
			r.mustStep(float64(sec), dcgmText("hostname", "n", g))
		}
		w := r.window(15, 15+tc.window, GPUSelector{})
		if w.UpdateInterval != tc.wantIntv || hasWarning(w.Warnings, "update interval too coarse") != tc.warn {
			t.Errorf("refresh %ds window %gs: interval %v warnings %q; want %v, warning %v", tc.refresh, tc.window, w.UpdateInterval, w.Warnings, tc.wantIntv, tc.warn)
		}
		// The counter is linear in time: interpolating between change points
		// recovers 400 W exactly even with 30 s steps.
		if !near(w.EnergyJ, 400*tc.window, 1e-9) {
			t.Errorf("refresh %ds window %gs: %.3f J, want %.3f", tc.refresh, tc.window, w.EnergyJ, 400*tc.window)
		}
		if tc.refresh == 30 && r.s.gpus[0].s.len() > 12 {
			t.Errorf("stored %d points for 12 refreshes: unchanged readings must not be stored", r.s.gpus[0].s.len())
		}
	}
}

// TestGPUWindowMissingAndDisappearing covers scrape failures, a GPU that
// disappears from its exporter, partial coverage and WaitCovered.
func TestGPUWindowMissingAndDisappearing(t *testing.T) {
	r := newRig(t, 1)
	g := exampleGPUs()
	body := func(sec float64, gs []fakeGPU) string {
		out := append([]fakeGPU(nil), gs...)
		for i := range out {
			out[i].energyMJ += 500_000 * sec
		}
		return dcgmText("Hostname", "n", out)
	}
	for sec := 0.0; sec <= 10; sec++ {
		r.mustStep(sec, body(sec, g))
	}
	r.srv[0].setStatus(500)
	for sec := 11.0; sec <= 15; sec++ {
		if err := r.step(sec); err == nil || !strings.Contains(err.Error(), "HTTP 500") {
			t.Fatalf("sample with HTTP 500: err = %v", err)
		}
	}
	r.srv[0].setStatus(200)
	for sec := 16.0; sec <= 20; sec++ {
		r.mustStep(sec, body(sec, g[:1])) // GPU 1 is gone
	}
	w := r.window(5, 20, GPUSelector{})
	for _, want := range []string{"5 reads of dcgm-exporter", "GPU disappeared: gpu 1", "no new reading for 6s", "partial coverage: gpu 1"} {
		if !hasWarning(w.Warnings, want) {
			t.Errorf("no warning %q in %q", want, w.Warnings)
		}
	}
	// GPU 0: the counter bridges the failed scrapes: 15 s × 500 W.
	// GPU 1: covered 5..10 s only: 5 s × 500 W, coverage 5/15.
	if !near(w.GPUs[0].EnergyJ, 7500, 1e-9) || !near(w.GPUs[1].EnergyJ, 2500, 1e-9) || !near(w.Coverage, 1.0/3, 1e-9) {
		t.Errorf("energies %.1f, %.1f J coverage %.4f; want 7500, 2500, 0.3333", w.GPUs[0].EnergyJ, w.GPUs[1].EnergyJ, w.Coverage)
	}
	// GPU 1 is gone, so it does not hold up WaitCovered; GPU 0 does until a
	// reading at or after 21 s exists.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := r.s.WaitCovered(ctx, at(21)); !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "gpu 0") {
		t.Errorf("WaitCovered before coverage: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- r.s.WaitCovered(context.Background(), at(21)) }()
	r.mustStep(21, body(21, g[:1]))
	if err := <-done; err != nil {
		t.Errorf("WaitCovered after a covering sample: %v", err)
	}
}

// TestGPUSamplerErrors: unreachable exporter, wrong URL, no DCGM metrics.
func TestGPUSamplerErrors(t *testing.T) {
	dead := deadURL(t)
	src, err := NewDCGMExporter(dead, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewGPUSampler([]GPUSource{src}, SamplerOptions{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), "dcgm-exporter "+dead+"/metrics") || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("unreachable exporter: %v", err)
	}
	s.Stop()

	if _, err := NewDCGMExporter("gpu-node:9400", nil); err == nil || !strings.Contains(err.Error(), "http://") {
		t.Errorf("URL without scheme: %v", err)
	}
	if _, err := NewDCGMExporter("http://user:secret@host:9400", nil); err != nil {
		t.Fatal(err)
	} else if src, _ := NewDCGMExporter("http://user:secret@host:9400", nil); strings.Contains(src.Name(), "secret") {
		t.Errorf("password in source name %q", src.Name())
	}

	srv := newTextServer(t, "# TYPE up gauge\nup 1\n")
	src, _ = NewDCGMExporter(srv.URL, nil)
	_, err = src.ReadGPUs(context.Background())
	if err == nil || !strings.Contains(err.Error(), MetricDCGMEnergy) || !strings.Contains(err.Error(), MetricDCGMPower) {
		t.Errorf("exposition without DCGM metrics: %v", err)
	}
	srv.set("DCGM_FI_DEV_POWER_USAGE{gpu=\"0\" 12\n")
	if _, err = src.ReadGPUs(context.Background()); err == nil || !strings.Contains(err.Error(), "parsing exposition") {
		t.Errorf("malformed exposition: %v", err)
	}

	if _, err := NewGPUSampler(nil, SamplerOptions{}); err == nil {
		t.Error("no source accepted")
	}
	if _, err := NewGPUSampler([]GPUSource{src}, SamplerOptions{MaxPoints: 10}); err == nil || !strings.Contains(err.Error(), "MaxPoints") {
		t.Errorf("MaxPoints 10: %v", err)
	}
	r := newRig(t, 1)
	r.mustStep(0, dcgmText("Hostname", "n", exampleGPUs()))
	if _, err := r.s.Window(at(5), at(5), GPUSelector{}); err == nil || !strings.Contains(err.Error(), "not after start") {
		t.Errorf("empty window: %v", err)
	}
}

// TestGPUSamplerStartStop runs the background loop on real time against a
// fake exporter whose counter follows the wall clock.
func TestGPUSamplerStartStop(t *testing.T) {
	base := time.Now()
	srv := newTextServer(t, "")
	srv.Config.Handler = powerModel{base: base, meanW: 300}.handler()
	src, _ := NewDCGMExporter(srv.URL, nil)
	s, err := NewGPUSampler([]GPUSource{src}, SamplerOptions{Interval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(ctx); err == nil {
		t.Error("second Start accepted")
	}
	start := time.Now()
	end := start.Add(500 * time.Millisecond)
	if err := s.WaitCovered(ctx, end); err != nil {
		t.Fatal(err)
	}
	s.Stop()
	s.Stop()
	if err := s.WaitCovered(ctx, time.Now().Add(time.Hour)); !errors.Is(err, errStopped) {
		t.Errorf("WaitCovered after Stop: %v", err)
	}
	w, err := s.Window(start, end, GPUSelector{})
	if err != nil {
		t.Fatal(err)
	}
	// Constant 300 W and 240 W: 270 J over 500 ms. The counter is exact at the
	// handler's clock reading; a sample is stamped at the midpoint of its
	// scrape, at most half a scrape's duration away. 5 % allows 25 ms of
	// offset over both edges, far above a loopback scrape even under -race.
	if w.Method != MethodCounter || !near(w.EnergyJ, 270, 0.05) || w.Coverage != 1 {
		t.Errorf("window: %s %.3f J coverage %v; want counter ≈270 J, coverage 1 (warnings %q)", w.Method, w.EnergyJ, w.Coverage, w.Warnings)
	}
}

// TestGPUWindowDuplicateSource: the same GPU from two exporters is flagged.
func TestGPUWindowDuplicateSource(t *testing.T) {
	r := newRig(t, 2)
	g := []fakeGPU{{index: "0", uuid: "GPU-same", energyMJ: 0, powerW: 100}}
	r.mustStep(0, dcgmText("Hostname", "n", g), dcgmText("Hostname", "n", g))
	g[0].energyMJ = 1_000_000
	r.mustStep(10, dcgmText("Hostname", "n", g), dcgmText("Hostname", "n", g))
	w := r.window(0, 10, GPUSelector{})
	if w.EnergyJ != 2000 || !hasWarning(w.Warnings, "counted twice") {
		t.Errorf("energy %v warnings %q; want 2000 J summed with a double-count warning", w.EnergyJ, w.Warnings)
	}
}
