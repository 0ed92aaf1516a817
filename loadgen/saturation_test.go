package loadgen

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/mock"
)

// feed drives a detector with a request every 0.1 s for secs seconds:
// concurrency conc(t) and TTFT ttft(t), with seeded Gaussian noise. It
// returns when the detector first alerted (-1 for never).
func feed(d *saturationDetector, secs float64, conc, ttft func(t float64) float64) float64 {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; float64(i)*0.1 <= secs; i++ {
		t := float64(i) * 0.1
		a := d.observeStart(t, math.Max(0, conc(t)+rng.NormFloat64()))
		b := d.observeTTFT(t+0.05, math.Max(0, ttft(t)+0.2*rng.NormFloat64()))
		if a || b {
			return t
		}
	}
	return -1
}

func TestOverSaturationDetects(t *testing.T) {
	cfg := DefaultOverSaturation()
	d := newSaturationDetector(cfg)
	// a queue that grows: concurrency and TTFT rise linearly.
	at := feed(d, 90, func(t float64) float64 { return 4 + 0.5*t }, func(t float64) float64 { return 3 + 0.1*t })
	if at < cfg.MinSeconds || at > cfg.MinSeconds+5 {
		t.Errorf("rising series: detected at %v s, want soon after min_seconds %v", at, cfg.MinSeconds)
	}
	s := d.state()
	if !s.Detected || s.ConcurrentSlope < 0.3 || s.TTFTSlope < 0.05 || s.TTFTViolations == 0 {
		t.Errorf("state %+v", s)
	}
}

func TestOverSaturationQuietOnFlat(t *testing.T) {
	cfg := DefaultOverSaturation()
	for name, c := range map[string]struct{ conc, ttft func(float64) float64 }{
		// a steady server with a high but flat TTFT.
		"flat": {func(float64) float64 { return 8 }, func(float64) float64 { return 3 }},
		// rising concurrency alone (a ramp) while TTFT stays flat.
		"ramp, flat TTFT": {func(t float64) float64 { return 1 + 0.2*t }, func(float64) float64 { return 3 }},
		// rising TTFT below minimum_ttft: not enough violations.
		"fast server": {func(t float64) float64 { return 4 + 0.5*t }, func(t float64) float64 { return 0.1 + 0.01*t }},
	} {
		d := newSaturationDetector(cfg)
		if at := feed(d, 120, c.conc, c.ttft); at >= 0 {
			t.Errorf("%s: detected at %v s (%+v)", name, at, d.state())
		}
		if d.state().Detected {
			t.Errorf("%s: state says detected", name)
		}
	}
}

func TestApproxTPPF(t *testing.T) {
	// t quantiles (two-sided 95 %): df 10 → 2.228, df 30 → 2.042; the
	// approximation is GuideLLM's, within 2 %.
	for _, c := range []struct{ df, want float64 }{{10, 2.228}, {30, 2.042}, {1000, 1.962}} {
		if got := approxTPPF(0.975, c.df); math.Abs(got-c.want)/c.want > 0.02 {
			t.Errorf("df %v: %v, want %v", c.df, got, c.want)
		}
	}
	if got := approxTPPF(0.025, 30); math.Abs(got+2.042) > 0.05 {
		t.Errorf("lower tail: %v", got)
	}
	if !math.IsNaN(approxTPPF(0.975, 0)) {
		t.Error("df 0 is not NaN")
	}
}

func TestParseOverSaturation(t *testing.T) {
	o, err := ParseOverSaturation("kind=over_saturation, mode=monitor,min_seconds=10,confidence=0.9,minimum_window_size=8,stopping_scope=all")
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultOverSaturation()
	want.Monitor, want.MinSeconds, want.Confidence, want.MinWindowSize, want.ScopeAll = true, 10, 0.9, 8, true
	if o != want {
		t.Errorf("got %+v, want %+v", o, want)
	}
	if back, err := ParseOverSaturation(o.String()); err != nil || back != o {
		t.Errorf("round trip %q: %+v %v", o.String(), back, err)
	}
	if o, err := ParseOverSaturation(""); err != nil || o != DefaultOverSaturation() {
		t.Errorf("defaults: %+v %v", o, err)
	}
	for _, bad := range []string{"mode=halt", "min_seconds=-1", "confidence=1", "maximum_window_ratio=2", "speed=3", "min_seconds", "minimum_window_size=2.5", "stopping_scope=some"} {
		if _, err := ParseOverSaturation(bad); err == nil || !strings.Contains(err.Error(), "want") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// Against a mock with two batch slots (about 40 req/s of 8-token
// requests), 120 req/s builds a queue: TTFT and concurrency rise and the
// constraint stops the benchmark; 10 req/s runs to its end quietly, and a
// monitoring constraint only records what it saw.
func TestOverSaturationStopsEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("7 s real-time rounds (make check)")
	}
	srv := startMock(t, func(c *mock.Config) {
		c.Capacity = &mock.CapacityModel{MaxNumSeqs: 2, MaxNumBatchedTokens: 4096, StepBase: 6 * time.Millisecond, GPUs: 1, GPU: mock.DefaultGPU()}
	})
	e := newEngine(t, ClientConfig{Target: srv.URL()})
	cfg := DefaultOverSaturation()
	cfg.MinSeconds, cfg.MinimumTTFT = 1, 0.05
	// GuideLLM caps a slope's sample size by the elapsed seconds, so
	// nothing is decided before minimum_window_size (5) seconds.
	run := func(rate float64, o OverSaturation) Result {
		res, _ := collect(t, e, context.Background(), Benchmark{
			Strategy:    Strategy{Kind: Constant, Rate: rate},
			Constraints: Constraints{MaxDuration: 7 * time.Second, OverSaturation: &o},
			Source:      fixedSource{NewRequest("", "x", 8)},
		})
		return res
	}
	res := run(120, cfg)
	if res.StopReason != StopOverSaturation || res.Saturation == nil || !res.Saturation.Detected {
		t.Fatalf("overloaded: stop %q, saturation %+v", res.StopReason, res.Saturation)
	}
	if d := time.Duration(res.StopTime - res.Start); d > 6500*time.Millisecond {
		t.Errorf("stopped after %v", d)
	}
	res = run(10, cfg)
	if res.StopReason != StopMaxDuration || res.Saturation == nil || res.Saturation.Detected {
		t.Errorf("light load: stop %q, saturation %+v", res.StopReason, res.Saturation)
	}
	cfg.Monitor = true
	res = run(120, cfg)
	if res.StopReason != StopMaxDuration || !res.Saturation.Detected || res.Saturation.At < cfg.MinSeconds {
		t.Errorf("monitor: stop %q, saturation %+v", res.StopReason, res.Saturation)
	}
}
