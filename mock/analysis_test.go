package mock

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/slo"
)

// TestPresetKnees holds each preset's documented knee (README.md) against
// Capacity. The expected values were computed by hand from the formulas:
//
// 70b-8xh100, 1024/256: K = 256 steps per slot turnover,
// C_s = 256×2.4 ms + 12×(255×0.05 + 1024×0.01) ms = 890.28 ms, so
// saturation = 12×256/0.89028 = 3450.6 tok/s; Δ = C_s/12 = 74.19 ms,
// prefill = T(11,0) + 10.24 = 13.19 ms; TTFT P99(N) = (N−11)·Δ + 13.19:
// 458.3 ms at N=17, 532.5 ms at N=18.
//
// 8b-1xh100, 1024/256: C_s = 256×6 + 256×(255×0.05 + 1024×0.008) = 6897.15 ms,
// saturation 9501.9 tok/s, Δ = 26.94 ms, prefill T(255,0) + 8.19 = 26.94 ms:
// 484.96 ms at N=272, 511.9 ms at N=273.
//
// tiny, 256/128: C_s = 128×5 + 8×(127×0.5 + 256×0.02) = 1188.96 ms,
// saturation 861.26 tok/s, Δ = 148.62 ms, prefill = T(7,0) + 5.12 = 13.62 ms:
// 459.5 ms at N=10, 608.1 ms at N=11.
func TestPresetKnees(t *testing.T) {
	tests := []struct {
		preset       string
		w            Workload
		closedN      int
		closedTokS   float64
		closedTTFT   time.Duration
		satTokS      float64
		satRate      float64
		openLimit    string
		closedLimit  string
		saturatingN  int // the smallest N with the saturated throughput
		saturatingTk float64
	}{
		{Preset70B8xH100, Workload{PromptTokens: 1024, OutputTokens: 256}, 17, 3450.6, 458330 * time.Microsecond, 3450.6, 13.479, "saturation", "ttft_p99", 12, 3441.0},
		{Preset8B1xH100, Workload{PromptTokens: 1024, OutputTokens: 256}, 272, 9501.9, 484956 * time.Microsecond, 9501.9, 37.117, "saturation", "ttft_p99", 256, 9494.0},
		{PresetTiny, Workload{PromptTokens: 256, OutputTokens: 128}, 10, 861.26, 459480 * time.Microsecond, 861.26, 6.7286, "saturation", "ttft_p99", 8, 858.0},
	}
	near := func(got, want, rel float64) bool { return math.Abs(got-want) <= rel*want }
	for _, tc := range tests {
		t.Run(tc.preset, func(t *testing.T) {
			m, err := Preset(tc.preset)
			if err != nil {
				t.Fatal(err)
			}
			c, err := m.Capacity(tc.w, InteractiveSLO())
			if err != nil {
				t.Fatal(err)
			}
			if c.Closed.Concurrency != tc.closedN || c.ClosedLimit != tc.closedLimit {
				t.Errorf("closed-loop knee N=%d (%s), want %d (%s)", c.Closed.Concurrency, c.ClosedLimit, tc.closedN, tc.closedLimit)
			}
			if !near(c.Closed.OutputTokensPerSec, tc.closedTokS, 0.001) || (c.Closed.TTFTP99-tc.closedTTFT).Abs() > 10*time.Microsecond {
				t.Errorf("closed-loop knee %.1f tok/s TTFT P99 %v, want %.1f and %v", c.Closed.OutputTokensPerSec, c.Closed.TTFTP99, tc.closedTokS, tc.closedTTFT)
			}
			if !near(c.SaturationTokensPerSec, tc.satTokS, 0.001) || !near(c.SaturationRate, tc.satRate, 0.001) {
				t.Errorf("saturation %.3f req/s %.1f tok/s, want %.3f and %.1f", c.SaturationRate, c.SaturationTokensPerSec, tc.satRate, tc.satTokS)
			}
			if c.OpenLimit != tc.openLimit || !near(c.Open.Rate, tc.satRate, 0.001) {
				t.Errorf("open loop: max rate %.3f (%s), want %.3f (%s)", c.Open.Rate, c.OpenLimit, tc.satRate, tc.openLimit)
			}
			sat, _ := m.ClosedLoop(tc.w, tc.saturatingN)
			if !near(sat.OutputTokensPerSec, tc.saturatingTk, 0.001) || sat.Waiting != 0 {
				t.Errorf("at N=%d: %.1f tok/s, %v waiting, want %.1f and 0", tc.saturatingN, sat.OutputTokensPerSec, sat.Waiting, tc.saturatingTk)
			}
			if v := InteractiveSLO().violated(c.Closed); v != "" {
				t.Errorf("the knee itself violates %s", v)
			}
			above, _ := m.ClosedLoop(tc.w, tc.closedN+1)
			if v := InteractiveSLO().violated(above); v != tc.closedLimit {
				t.Errorf("one stream above the knee violates %q, want %q", v, tc.closedLimit)
			}
		})
	}
}

// vsimCase is a point where the analytic model is held against the
// virtual-time engine.
type vsimCase struct {
	name    string
	m       CapacityModel
	w       Workload
	streams int
	rate    float64
}

func testModels() map[string]CapacityModel {
	gpu := DefaultGPU()
	ms, us := time.Millisecond, time.Microsecond
	return map[string]CapacityModel{
		// ITL binds: many slots, ITL grows 1 ms per stream.
		"itl": {MaxNumSeqs: 32, MaxNumBatchedTokens: 2048, StepBase: 3 * ms, StepPerSeq: ms, PrefillPerToken: 5 * us, GPUs: 1, GPU: gpu},
		// TTFT binds: four slots, requests beyond them queue.
		"ttft": {MaxNumSeqs: 4, MaxNumBatchedTokens: 512, StepBase: 4 * ms, StepPerSeq: 500 * us, PrefillPerToken: 10 * us, GPUs: 1, GPU: gpu},
		// Chunked prefill: a 256-token prompt takes three to four steps of a
		// 96-token budget.
		"chunked": {MaxNumSeqs: 8, MaxNumBatchedTokens: 96, StepBase: 4 * ms, StepPerSeq: 500 * us, PrefillPerToken: 20 * us, GPUs: 1, GPU: gpu},
	}
}

// TestAnalysisMatchesVirtualEngine runs the engine's own batcher in virtual
// time (no timers, so no noise) and checks the analytic predictions. The
// bands are those documented in analysis.go, measured on this engine:
// throughput within 1%; for N ≤ MaxNumSeqs, ITL P95 and TTFT P99 from the
// even-phase value up to one (ITL) or two (TTFT) more prefill chunks, which
// the phases a ramp-up leaves can add; for N > MaxNumSeqs the mean TTFT
// (Little's law) within 1% + one step, and the P99 between the mean and
// mean + 0.25 × the slot turnover period C_s (the spread of the queueing
// time; up to 17% of C_s was measured, for the tiny preset); open loop
// TTFT P99 and ITL P95 within 6% + 0.2 ms.
func TestAnalysisMatchesVirtualEngine(t *testing.T) {
	models := testModels()
	p70, _ := Preset(Preset70B8xH100)
	p8, _ := Preset(Preset8B1xH100)
	tiny, _ := Preset(PresetTiny)
	big := Workload{PromptTokens: 1024, OutputTokens: 256}
	cases := []vsimCase{
		{"itl N=4", models["itl"], Workload{PromptTokens: 64, OutputTokens: 48}, 4, 0},
		{"itl N=12", models["itl"], Workload{PromptTokens: 64, OutputTokens: 48}, 12, 0},
		{"ttft N=3", models["ttft"], Workload{PromptTokens: 128, OutputTokens: 32}, 3, 0},
		{"ttft N=8", models["ttft"], Workload{PromptTokens: 128, OutputTokens: 32}, 8, 0},
		{"chunked N=6", models["chunked"], Workload{PromptTokens: 256, OutputTokens: 32}, 6, 0},
		{"chunked 10/s", models["chunked"], Workload{PromptTokens: 256, OutputTokens: 32}, 0, 10},
		{"chunked 25/s", models["chunked"], Workload{PromptTokens: 256, OutputTokens: 32}, 0, 25},
		{"70b N=8", p70, big, 8, 0},
		{"70b N=17", p70, big, 17, 0},
		{"70b N=24", p70, big, 24, 0},
		{"70b 9/s", p70, big, 0, 9},
		{"8b N=64", p8, big, 64, 0},
		{"8b N=256", p8, big, 256, 0},
		{"8b N=268", p8, big, 268, 0},
		{"8b 30/s", p8, big, 0, 30},
		{"tiny N=4", tiny, Workload{PromptTokens: 256, OutputTokens: 128}, 4, 0},
		{"tiny N=11", tiny, Workload{PromptTokens: 256, OutputTokens: 128}, 11, 0},
		{"tiny 5/s", tiny, Workload{PromptTokens: 256, OutputTokens: 128}, 0, 5},
		// Later turns of conversations: the cached part is not prefilled.
		{"tiny N=4 cached 192", tiny, Workload{PromptTokens: 256, OutputTokens: 128, CachedTokens: 192}, 4, 0},
		{"70b N=17 cached 768", p70, Workload{PromptTokens: 1024, OutputTokens: 256, CachedTokens: 768}, 17, 0},
		{"70b 9/s cached 768", p70, Workload{PromptTokens: 1024, OutputTokens: 256, CachedTokens: 768}, 0, 9},
		{"chunked 25/s cached 128", models["chunked"], Workload{PromptTokens: 256, OutputTokens: 32, CachedTokens: 128}, 0, 25},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, err := newAnalysis(&tc.m, tc.w)
			if err != nil {
				t.Fatal(err)
			}
			var op OperatingPoint
			c := vsimConfig{m: tc.m, w: tc.w, streams: tc.streams, rate: tc.rate, turn: 0.0002, keepTTFTs: true}
			if tc.streams > 0 {
				op = a.closed(tc.streams)
				cyc := op.E2EP99.Seconds()
				c.stagger, c.warmup, c.duration = cyc, 5*cyc, 60*cyc
			} else {
				op = a.open(tc.rate)
				cyc := op.E2EP99.Seconds()
				c.warmup, c.duration = 3*cyc, 3*cyc+400/tc.rate
			}
			v := vsim(&c)
			meanTTFT := 0.0
			for _, x := range c.ttfts {
				meanTTFT += x
			}
			meanTTFT /= float64(len(c.ttfts))
			t.Logf("analytic %s", fmtPoint(op))
			t.Logf("virtual  ttft p99 %v mean %v, itl p95 %v, %.0f tok/s (%d requests)", v.ttftP99, time.Duration(meanTTFT*1e9), v.itlP95, v.tokensPerSec, v.requests)

			if math.Abs(v.tokensPerSec-op.OutputTokensPerSec) > 0.01*op.OutputTokensPerSec {
				t.Errorf("throughput %.1f tok/s, predicted %.1f", v.tokensPerSec, op.OutputTokensPerSec)
			}
			chunk := time.Duration(float64(tc.m.PrefillPerToken) * float64(max(tc.w.PromptTokens-tc.w.CachedTokens, 1)) / float64(max(1, a.kFor(tc.streams))))
			step := op.StepTime
			switch {
			case tc.streams == 0:
				within(t, "TTFT P99", v.ttftP99, op.TTFTP99, 0.06, 200*time.Microsecond)
				within(t, "ITL P95", v.itlP95, op.ITLP95, 0.06, 200*time.Microsecond)
			case tc.streams <= tc.m.MaxNumSeqs:
				band(t, "ITL P95", v.itlP95, op.ITLP95-op.ITLP95/100, op.ITLP95+chunk+op.ITLP95/100)
				band(t, "TTFT P99", v.ttftP99, op.TTFTP99-step, op.TTFTP99+2*chunk+op.TTFTP99/100)
			default:
				cs := time.Duration(float64(tc.m.MaxNumSeqs) * float64(op.TTFTP99-op.TTFTMean))
				within(t, "mean TTFT", time.Duration(meanTTFT*1e9), op.TTFTMean, 0.01, step)
				band(t, "TTFT P99", v.ttftP99, op.TTFTMean-step, op.TTFTMean+cs/4)
				band(t, "ITL P95", v.itlP95, op.ITLP95-op.ITLP95/100, op.ITLP95+chunk+op.ITLP95/100)
			}
		})
	}
}

// kFor is the number of prefill steps of a request at n streams (0: open
// loop, taken at one decoding sequence).
func (a *analysis) kFor(n int) int {
	k, _ := a.chunks(a.B - max(min(n, a.M)-1, 1))
	return k
}

func within(t *testing.T, what string, got, want time.Duration, rel float64, abs time.Duration) {
	t.Helper()
	if tol := time.Duration(rel*float64(want)) + abs; (got - want).Abs() > tol {
		t.Errorf("%s %v, predicted %v (tolerance ±%v)", what, got, want, tol)
	}
}

func band(t *testing.T, what string, got, lo, hi time.Duration) {
	t.Helper()
	if got < lo || got > hi {
		t.Errorf("%s %v, predicted band [%v, %v]", what, got, lo, hi)
	}
}

func TestCapacityInputErrors(t *testing.T) {
	good, _ := Preset(PresetTiny)
	w := Workload{PromptTokens: 10, OutputTokens: 10}
	tests := []struct {
		name string
		m    CapacityModel
		w    Workload
		want string
	}{
		{"no output", good, Workload{PromptTokens: 1}, "Workload.OutputTokens"},
		{"negative prompt", good, Workload{PromptTokens: -1, OutputTokens: 1}, "Workload.PromptTokens"},
		{"negative tpc", good, Workload{OutputTokens: 1, TokensPerChunk: -1}, "Workload.TokensPerChunk"},
		{"cached above prompt", good, Workload{PromptTokens: 10, OutputTokens: 1, CachedTokens: 11}, "Workload.CachedTokens"},
		{"negative cached", good, Workload{PromptTokens: 10, OutputTokens: 1, CachedTokens: -1}, "Workload.CachedTokens"},
		{"no slots", func() CapacityModel { m := good; m.MaxNumSeqs = 0; return m }(), w, "Capacity.MaxNumSeqs"},
		{"budget below slots", func() CapacityModel { m := good; m.MaxNumBatchedTokens = 4; return m }(), w, "Capacity.MaxNumBatchedTokens"},
		{"zero step", func() CapacityModel { m := good; m.StepBase = 0; return m }(), w, "Capacity.StepBase"},
		{"negative per seq", func() CapacityModel { m := good; m.StepPerSeq = -1; return m }(), w, "Capacity.StepPerSeq"},
		{"no GPUs", func() CapacityModel { m := good; m.GPUs = 0; return m }(), w, "Capacity.GPUs"},
		{"idle above max", func() CapacityModel { m := good; m.GPU.IdleWatts = 1000; return m }(), w, "Capacity.GPU.IdleWatts"},
		{"quote in name", func() CapacityModel { m := good; m.GPU.Name = `a"b`; return m }(), w, "Capacity.GPU.Name"},
	}
	for _, tc := range tests {
		if _, err := tc.m.Capacity(tc.w, InteractiveSLO()); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming %s", tc.name, err, tc.want)
		}
	}
	if _, err := good.ClosedLoop(w, 0); err == nil {
		t.Error("ClosedLoop(0 streams) succeeded")
	}
	for _, r := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if _, err := good.OpenLoop(w, r); err == nil {
			t.Errorf("OpenLoop(rate %v) succeeded", r)
		}
	}
	if _, err := Preset("70B-8xH100 "); err != nil {
		t.Errorf("preset names are case- and space-insensitive: %v", err)
	}
	if _, err := Preset("gpt-5"); err == nil || !strings.Contains(err.Error(), "70b-8xh100, 8b-1xh100, tiny") {
		t.Errorf("unknown preset: %v", err)
	}
}

// TestPredictionsMonotone: more load never predicts less latency or less
// throughput, and beyond the service capacity an open loop is saturated.
func TestPredictionsMonotone(t *testing.T) {
	for _, name := range PresetNames() {
		m, _ := Preset(name)
		w := Workload{PromptTokens: 512, OutputTokens: 64}
		var prev OperatingPoint
		for n := 1; n <= 2*m.MaxNumSeqs+8; n++ {
			op, err := m.ClosedLoop(w, n)
			if err != nil {
				t.Fatal(err)
			}
			if n > 1 && (op.TTFTP99 < prev.TTFTP99 || op.TTFTMean < prev.TTFTMean || op.ITLMean < prev.ITLMean || op.OutputTokensPerSec < prev.OutputTokensPerSec*(1-1e-9)) {
				t.Errorf("%s: N=%d predicts less than N=%d: %s vs %s", name, n, n-1, fmtPoint(op), fmtPoint(prev))
			}
			prev = op
		}
		c, _ := m.Capacity(w, SLO{})
		prev = OperatingPoint{}
		for i := 1; i <= 40; i++ {
			op, _ := m.OpenLoop(w, c.SaturationRate*float64(i)/40)
			if i == 40 != op.Saturated {
				t.Errorf("%s: rate %d/40 of saturation: saturated = %v", name, i, op.Saturated)
			}
			if i > 1 && (op.TTFTP99 < prev.TTFTP99 || op.ITLMean < prev.ITLMean) {
				t.Errorf("%s: rate %d/40 predicts less than the rate below: %s vs %s", name, i, fmtPoint(op), fmtPoint(prev))
			}
			prev = op
		}
		if c.ClosedLimit != "none" || c.OpenLimit != "saturation" {
			t.Errorf("%s: with no SLO the limits are %q and %q, want none and saturation", name, c.ClosedLimit, c.OpenLimit)
		}
	}
}

// The capacity model's SLO is read from an slo.Spec: the percentiles it
// predicts, the rest left out.
func TestSLOOf(t *testing.T) {
	if got, want := InteractiveSLO(), (SLO{TTFTP99: 500 * time.Millisecond, ITLP95: 50 * time.Millisecond}); got != want {
		t.Errorf("InteractiveSLO() = %+v, want %+v", got, want)
	}
	spec, err := slo.Parse("ttft_p99=1.5s,tpot_p95=20ms,e2e_p99=8s,itl_p90=10ms,error_rate=1%")
	if err != nil {
		t.Fatal(err)
	}
	want := SLO{TTFTP99: 1500 * time.Millisecond, TPOTP95: 20 * time.Millisecond, E2EP99: 8 * time.Second}
	if got := SLOOf(spec); got != want {
		t.Errorf("SLOOf(%s) = %+v, want %+v", spec, got, want)
	}
}
