package slo

import (
	"math"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/goodput-dev/goodput/metric"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/stats"
)

func mustParse(t *testing.T, s string) Spec {
	t.Helper()
	sp, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func TestThresholds(t *testing.T) {
	tests := []struct {
		spec string
		want RequestThresholds
	}{
		{DefaultSpec, ths(ms{metric.TTFT: 500, metric.ITL: 50})},
		// The loosest threshold of a metric applies; a mean gives none.
		{"ttft_p50=800ms,ttft_p99=500ms,ttft_mean=100ms", ths(ms{metric.TTFT: 800})},
		{"tpot_mean=10ms,e2e_max=3s,e2e=2s", ths(ms{metric.E2E: 3000})},
		{"itl=20,tpot_p90=30,error_rate=1%", ths(ms{metric.ITL: 20, metric.TPOT: 30})},
		{"error_rate=1%", RequestThresholds{}},
	}
	for _, tc := range tests {
		if got := mustParse(t, tc.spec).Thresholds(); got != tc.want {
			t.Errorf("%s: thresholds %+v, want %+v", tc.spec, got, tc.want)
		}
	}
}

func TestAttainmentFloor(t *testing.T) {
	tests := []struct {
		spec     string
		floor    float64
		explicit bool
	}{
		// 1 − (error budget 0.005 + TTFT p99 0.01 + ITL p95 0.05).
		{DefaultSpec, 0.935, false},
		{"ttft_p99=500ms", 0.99, false},
		{"ttft=500ms,itl=50ms", 1, false},
		{"ttft=500ms,attainment=90%", 0.9, true},
		// The threshold of ttft comes from p50 (800 ms > 500 ms): allowance 0.5.
		{"ttft_p50=800ms,ttft_p99=500ms", 0.5, false},
		// No per-request threshold: no implicit attainment objective.
		{"ttft_mean=100ms,error_rate=1%", 0, false},
		// Allowance of 1 or more leaves no floor.
		{"ttft_p0.1=1ms,itl_p1=1ms", 0, false},
	}
	for _, tc := range tests {
		f, explicit := mustParse(t, tc.spec).AttainmentFloor()
		if math.Abs(f-tc.floor) > 1e-12 || explicit != tc.explicit {
			t.Errorf("%s: floor %v explicit %v, want %v %v", tc.spec, f, explicit, tc.floor, tc.explicit)
		}
	}
}

// dist builds a successful-requests distribution with the given mean,
// median (p50), p95, p99 and max; other percentiles equal the median.
func dist(mean, p50, p95, p99, max float64) *report.StatusDistributionSummary {
	d := &report.DistributionSummary{Mean: report.Float(mean), Median: report.Float(p50), Max: report.Float(max), Count: 100}
	d.Percentiles = report.Percentiles{P001: report.Float(p50), P01: report.Float(p50), P05: report.Float(p50), P10: report.Float(p50),
		P25: report.Float(p50), P75: report.Float(p50), P90: report.Float(p50), P95: report.Float(p95), P99: report.Float(p99), P999: report.Float(max)}
	return &report.StatusDistributionSummary{Successful: d}
}

func bench(errRate float64) *report.Benchmark {
	d := 10.0
	return &report.Benchmark{
		Duration: (*report.Float)(&d),
		Extras: &report.Extras{
			Errors: report.ErrorCounts{ErrorRate: report.Float(errRate)},
			Metrics: report.ExtraMetrics{
				TimeToFirstTokenMs:   dist(200, 180, 400, 480, 900),
				InterTokenLatencyMs:  dist(30, 28, 49, 60, 80),
				TimePerOutputTokenMs: dist(35, 33, 52, 70, 90),
				RequestLatency:       dist(2.0, 1.9, 2.9, 3.1, 4.0), // seconds
			},
		},
	}
}

func TestJudgeGoodputArithmetic(t *testing.T) {
	// 200 requests in a 10 s window, 190 judged, 180 good with 18,000
	// output tokens; the 195 successful ones had 19,500.
	c := report.GoodputCounts{InWindow: 200, Judged: 190, Good: 180, GoodOutputTokens: 18000, SuccessfulOutputTokens: 19500, WindowSeconds: 10}
	r := Default().Judge(bench(0.004), c)
	if r.Spec != DefaultSpec || !r.Default {
		t.Errorf("spec %q default %v", r.Spec, r.Default)
	}
	if r.GoodRequests != 180 || r.Attainment != report.Float(180.0/190) || r.GoodputRPS != 18 ||
		r.GoodputOutputTokS != 1800 || r.ThroughputOutputTokS != 1950 {
		t.Errorf("goodput %+v", r)
	}
	// No window: rates stay 0; nothing judged: attainment 0 and missing.
	r = Default().Judge(bench(0), report.GoodputCounts{InWindow: 3})
	if r.GoodputRPS != 0 || r.Attainment != 0 || r.Pass {
		t.Errorf("empty window: %+v", r)
	}
	if a := r.Objectives[len(r.Objectives)-1]; a.Key != "attainment" || !a.Missing || a.Pass {
		t.Errorf("attainment objective with nothing judged: %+v", a)
	}
}

func TestJudgeObjectives(t *testing.T) {
	c := report.GoodputCounts{InWindow: 100, Judged: 100, Good: 95, WindowSeconds: 10}
	tests := []struct {
		spec    string
		errRate float64
		want    []report.ObjectiveResult
		pass    bool
	}{
		{DefaultSpec, 0.004, []report.ObjectiveResult{
			{Key: "ttft_p99", Metric: "ttft", Percentile: 99, Unit: "ms", Threshold: 500, Measured: 480, Pass: true},
			{Key: "itl_p95", Metric: "itl", Percentile: 95, Unit: "ms", Threshold: 50, Measured: 49, Pass: true},
			{Key: "error_rate", Metric: "error_rate", Unit: "fraction", Threshold: 0.005, Measured: 0.004, Pass: true},
			{Key: "attainment", Metric: "attainment", Unit: "fraction", Threshold: 0.935, Measured: 0.95, Pass: true},
		}, true},
		// The error rate breaks it.
		{DefaultSpec, 0.006, []report.ObjectiveResult{
			{Key: "ttft_p99", Metric: "ttft", Percentile: 99, Unit: "ms", Threshold: 500, Measured: 480, Pass: true},
			{Key: "itl_p95", Metric: "itl", Percentile: 95, Unit: "ms", Threshold: 50, Measured: 49, Pass: true},
			{Key: "error_rate", Metric: "error_rate", Unit: "fraction", Threshold: 0.005, Measured: 0.006},
			{Key: "attainment", Metric: "attainment", Unit: "fraction", Threshold: 0.935, Measured: 0.95, Pass: true},
		}, false},
		// A threshold equal to the measured value passes; e2e is in ms.
		{"e2e_p99=3100ms,e2e_mean=1.9s,tpot_max=90,ttft_p50=180", 0, []report.ObjectiveResult{
			{Key: "ttft_p50", Metric: "ttft", Percentile: 50, Unit: "ms", Threshold: 180, Measured: 180, Pass: true},
			{Key: "tpot_max", Metric: "tpot", Percentile: 100, Unit: "ms", Threshold: 90, Measured: 90, Pass: true},
			{Key: "e2e_mean", Metric: "e2e", Unit: "ms", Threshold: 1900, Measured: 2000},
			{Key: "e2e_p99", Metric: "e2e", Percentile: 99, Unit: "ms", Threshold: 3100, Measured: 3100, Pass: true},
			// Allowance 0.5 (ttft p50) + 0 (tpot max) + 0.01 (e2e p99).
			{Key: "attainment", Metric: "attainment", Unit: "fraction", Threshold: 0.49, Measured: 0.95, Pass: true},
		}, false},
		// Per-request items are judged through the attainment only.
		{"ttft=500ms,itl=50ms", 0, []report.ObjectiveResult{
			{Key: "attainment", Metric: "attainment", Unit: "fraction", Threshold: 1, Measured: 0.95},
		}, false},
		{"ttft=500ms,attainment=95%", 0, []report.ObjectiveResult{
			{Key: "attainment", Metric: "attainment", Unit: "fraction", Threshold: 0.95, Measured: 0.95, Pass: true},
		}, true},
	}
	for _, tc := range tests {
		r := mustParse(t, tc.spec).Judge(bench(tc.errRate), c)
		if r.Pass != tc.pass {
			t.Errorf("%s: pass %v, want %v", tc.spec, r.Pass, tc.pass)
		}
		if len(r.Objectives) != len(tc.want) {
			t.Errorf("%s: objectives %+v", tc.spec, r.Objectives)
			continue
		}
		for i, o := range r.Objectives {
			w := tc.want[i]
			if math.Abs(float64(o.Measured-w.Measured)) < 1e-9 {
				o.Measured = w.Measured
			}
			o.Decision, o.Confidence = "", 0 // TestJudgeDecisions
			if o != w {
				t.Errorf("%s: objective %d\n  %+v\nwant\n  %+v", tc.spec, i, o, w)
			}
		}
	}
}

func TestJudgeMissing(t *testing.T) {
	// A non-streaming run has no TTFT or ITL distribution; a GuideLLM
	// report has no goodput extras at all.
	b := bench(0)
	b.Extras.Metrics.TimeToFirstTokenMs = &report.StatusDistributionSummary{Successful: &report.DistributionSummary{}}
	b.Extras.Metrics.InterTokenLatencyMs = nil
	c := report.GoodputCounts{InWindow: 10, Judged: 10, Good: 10, WindowSeconds: 1}
	r := Default().Judge(b, c)
	if r.Pass || !r.Objectives[0].Missing || !r.Objectives[1].Missing || r.Objectives[0].Pass {
		t.Errorf("missing distributions: %+v", r)
	}
	if !r.Objectives[2].Pass {
		t.Errorf("the error rate is measured: %+v", r.Objectives[2])
	}
	r = Default().Judge(&report.Benchmark{}, c)
	for _, o := range r.Objectives[:3] {
		if !o.Missing || o.Pass {
			t.Errorf("no extras: %+v", o)
		}
	}
	if r.Objectives == nil || r.Pass {
		t.Errorf("no extras: %+v", r)
	}
}

// TestJudgeOtherPercentile: a percentile the report does not print (p97)
// is judged on the benchmark's HDR histogram. TTFTs of 1, 2, …, 100 ms:
// the 97th percentile is 97 ms (the histogram's bucket holds it within
// 0.1%), so 98 ms passes and 96 ms fails; without histograms it is
// missing.
func TestJudgeOtherPercentile(t *testing.T) {
	h := hdrhistogram.New(stats.HistLowest, stats.HistHighest, stats.HistSignificantDigits)
	for ms := int64(1); ms <= 100; ms++ {
		if err := h.RecordValue(ms * 1_000_000); err != nil {
			t.Fatal(err)
		}
	}
	enc, err := stats.EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	b := bench(0)
	b.Extras.Histograms = &report.Histograms{Metrics: map[string]*report.StatusHistograms{metric.TTFT.Hist: {Successful: enc}}}
	c := report.GoodputCounts{InWindow: 100, Judged: 100, Good: 100, WindowSeconds: 10}
	for _, tc := range []struct {
		spec string
		pass bool
	}{{"ttft_p97=98ms", true}, {"ttft_p97=96ms", false}} {
		o := mustParse(t, tc.spec).Judge(b, c).Objectives[0]
		if o.Missing || o.Pass != tc.pass || math.Abs(float64(o.Measured)-97) > 0.097 || o.Percentile != 97 {
			t.Errorf("%s: %+v, want 97 ms measured, pass %v", tc.spec, o, tc.pass)
		}
	}
	b.Extras.Histograms = nil
	if o := mustParse(t, "ttft_p97=98ms").Judge(b, c).Objectives[0]; !o.Missing || o.Pass {
		t.Errorf("no histograms: %+v, want missing", o)
	}
}

// Judge writes the verdict where GuideLLM's newest release keeps it:
// config.slo (ttft_ms, tpot_ms = goodput's itl, e2el_ms) and the metrics'
// slo_attainment and slo_determined_requests; nothing when a per-request
// tpot threshold has no GuideLLM name, and no attainment when nothing was
// determined.
func TestJudgeGuideLLMFields(t *testing.T) {
	c := report.GoodputCounts{InWindow: 200, Judged: 190, Good: 171, WindowSeconds: 10}
	b := bench(0)
	mustParse(t, "ttft_p99=500ms,itl=40ms,e2e_p95=3s").Judge(b, c)
	want := report.GoodputSLO{TTFTMs: report.FloatPtr(500), TPOTMs: report.FloatPtr(40), E2ELMs: report.FloatPtr(3000)}
	if b.Config.SLO == nil || *b.Config.SLO.TTFTMs != *want.TTFTMs || *b.Config.SLO.TPOTMs != *want.TPOTMs || *b.Config.SLO.E2ELMs != *want.E2ELMs {
		t.Errorf("config.slo %+v", b.Config.SLO)
	}
	if b.Metrics.SLOAttainment == nil || *b.Metrics.SLOAttainment != 0.9 || *b.Metrics.SLODeterminedRequests != 190 {
		t.Errorf("attainment %v of %v", b.Metrics.SLOAttainment, b.Metrics.SLODeterminedRequests)
	}
	b = bench(0)
	mustParse(t, "ttft_p99=500ms,tpot=60ms").Judge(b, c)
	if b.Config.SLO != nil || b.Metrics.SLOAttainment != nil {
		t.Errorf("a tpot threshold has no GuideLLM objective: %+v %v", b.Config.SLO, b.Metrics.SLOAttainment)
	}
	b = bench(0)
	Default().Judge(b, report.GoodputCounts{InWindow: 3})
	if b.Metrics.SLOAttainment != nil || b.Metrics.SLODeterminedRequests == nil || *b.Metrics.SLODeterminedRequests != 0 {
		t.Errorf("nothing determined: attainment %v, determined %v", b.Metrics.SLOAttainment, b.Metrics.SLODeterminedRequests)
	}
}

// TestJudgeDecisions: an attainment decides at the run's confidence by the
// exact binomial, and a benchmark whose attainment straddles the floor is
// indeterminate, not passed.
func TestJudgeDecisions(t *testing.T) {
	spec := mustParse(t, "ttft=500ms,attainment=90%")
	for _, tc := range []struct {
		good, judged int64
		want         string
		pass         bool
	}{
		{100, 100, report.DecisionHolds, true},       // P(Bin(100, .9) ≤ 99) = 0.99997
		{19, 20, report.DecisionIndeterminate, true}, // 95 % of 20: P(Bin(20, .9) ≤ 18) = 0.61
		{60, 100, report.DecisionBreaks, false},
	} {
		r := spec.Judge(nil, report.GoodputCounts{InWindow: tc.judged, Judged: tc.judged, Good: tc.good, Confidence: 0.95})
		o := r.Objectives[0]
		if o.Decision != tc.want || r.Decision != tc.want || r.Pass != tc.pass {
			t.Errorf("%d of %d: objective %s (%.4f), benchmark %s, pass %v; want %s, pass %v",
				tc.good, tc.judged, o.Decision, float64(o.Confidence), r.Decision, r.Pass, tc.want, tc.pass)
		}
	}
}

// ms are latency thresholds in milliseconds by metric.
type ms map[*metric.Latency]float64

// ths are the per-request thresholds m.
func ths(m ms) RequestThresholds {
	var t RequestThresholds
	for l, v := range m {
		t.Ms[l.Slot] = v
	}
	return t
}
