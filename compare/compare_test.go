package compare

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/report"
)

func baseSynth() synth {
	return synth{seed: 1, n: 1000, ttftMs: 100, ttftSigma: 0.3, itlMs: 20, itlSigma: 0.1, goodput: 1000, throughput: 1000}
}

func TestCompareVerdicts(t *testing.T) {
	t.Parallel()
	big := reportOf("base", baseSynth().benchmark(t))
	// Two small runs with wide spreads: their p95 and p99 (from 25
	// requests) are bounded above by nothing the runs observed.
	small := reportOf("base", synth{seed: 100, n: 25, ttftMs: 100, ttftSigma: 0.5, itlMs: 20, itlSigma: 0.4, goodput: 1000, throughput: 1000}.benchmark(t))
	noisy := synth{seed: 13, n: 25, ttftMs: 120, ttftSigma: 0.5, itlMs: 24, itlSigma: 0.4, goodput: 1000, throughput: 1000}
	tests := []struct {
		name   string
		base   *report.Report
		cur    synth
		strict bool
		allow  bool // AllowUndecided
		pass   bool
		want   map[string]Status
	}{
		{
			name: "improved",
			cur:  synth{seed: 2, n: 1000, ttftMs: 70, ttftSigma: 0.3, itlMs: 14, itlSigma: 0.1, goodput: 1300, throughput: 1300},
			pass: true,
			want: map[string]Status{MetricGoodput: StatusImproved, MetricThroughput: StatusImproved, MetricTTFTP99: StatusImproved,
				MetricITLP95: StatusImproved, MetricTTFTP50: StatusImproved, MetricTTFTP90: StatusImproved, MetricLatencyP99: StatusNotGated, MetricErrorRate: StatusOK},
		},
		{
			name: "regressed",
			cur:  synth{seed: 2, n: 1000, ttftMs: 130, ttftSigma: 0.3, itlMs: 26, itlSigma: 0.1, goodput: 900, throughput: 960, errored: 20},
			pass: false,
			want: map[string]Status{MetricGoodput: StatusRegression, MetricThroughput: StatusOK, MetricTTFTP99: StatusRegression,
				MetricITLP95: StatusRegression, MetricErrorRate: StatusRegression},
		},
		{
			name: "same distribution, another seed",
			cur:  synth{seed: 3, n: 1000, ttftMs: 100, ttftSigma: 0.3, itlMs: 20, itlSigma: 0.1, goodput: 1000, throughput: 1000},
			pass: true,
			want: map[string]Status{MetricGoodput: StatusOK, MetricTTFTP99: StatusOK, MetricITLP95: StatusOK},
		},
		{
			// A 20% worse median moves every percentile past the 10%
			// limits: the medians are within each other's noise, but no
			// 25-request tail (p90, p95, p99) is bounded above: the samples
			// cannot judge them, which does not pass the gate...
			name: "noisy",
			base: small, cur: noisy,
			pass: false,
			want: map[string]Status{MetricTTFTP50: StatusWithinNoise, MetricITLP50: StatusWithinNoise,
				MetricTTFTP90: StatusUndecided, MetricTTFTP99: StatusUndecided, MetricITLP95: StatusUndecided},
		},
		{
			// ... unless told to.
			name: "noisy, undecided allowed",
			base: small, cur: noisy,
			allow: true,
			pass:  true,
			want:  map[string]Status{MetricTTFTP50: StatusWithinNoise, MetricTTFTP99: StatusUndecided, MetricITLP95: StatusUndecided},
		},
		{
			name: "noisy, strict",
			base: small, cur: noisy,
			strict: true,
			pass:   false,
			want:   map[string]Status{MetricTTFTP99: StatusRegression, MetricITLP95: StatusRegression},
		},
		{
			// 30 requests against 1,000, but a 20% shift of a tight ITL
			// distribution: even 30 requests show it beyond the noise.
			name: "small but clear",
			cur:  synth{seed: 4, n: 30, ttftMs: 100, ttftSigma: 0.3, itlMs: 24, itlSigma: 0.1, goodput: 1000, throughput: 1000},
			pass: false,
			want: map[string]Status{MetricITLP95: StatusRegression},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := tt.base
			if base == nil {
				base = big
			}
			cur := reportOf("cur", tt.cur.benchmark(t))
			res, err := Compare(base, cur, "base.json", "cur.json", Options{Strict: tt.strict, AllowUndecided: tt.allow})
			if err != nil {
				t.Fatal(err)
			}
			if res.Pass != tt.pass {
				var b bytes.Buffer
				_ = res.WriteText(&b)
				t.Fatalf("pass = %v, want %v\n%s", res.Pass, tt.pass, b.String())
			}
			if len(res.Pairs) != 1 {
				t.Fatalf("%d pairs", len(res.Pairs))
			}
			for m, st := range tt.want {
				if r := rowOf(t, res.Pairs[0].Rows, m); r.Status != st {
					t.Errorf("%s: status %s, want %s (row %+v, noise %+v)", m, r.Status, st, r, r.Noise)
				}
			}
		})
	}
}

func TestNoiseRowsCarryIntervals(t *testing.T) {
	t.Parallel()
	base := reportOf("base", baseSynth().benchmark(t))
	cur := reportOf("cur", synth{seed: 2, n: 1000, ttftMs: 130, ttftSigma: 0.3, itlMs: 26, itlSigma: 0.1, goodput: 900, throughput: 960}.benchmark(t))
	res, err := Compare(base, cur, "a", "b", Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := rowOf(t, res.Pairs[0].Rows, MetricTTFTP99)
	n := r.Noise
	if n == nil || !n.Significant || n.SampleSizes != [2]int{1000, 1000} {
		t.Fatalf("noise %+v", n)
	}
	// Each run's point estimate lies in (or within the histogram's 0.1%
	// of) its own interval.
	for i, v := range []float64{*r.Baseline, *r.Current} {
		ci := n.Baseline
		if i == 1 {
			ci = n.Current
		}
		if v < ci.Low*0.999 || v > ci.High*1.001 || ci.LowOpen || ci.HighOpen {
			t.Errorf("side %d: p99 %v outside its interval %v", i, v, ci)
		}
	}
	// The ITL histogram is token-weighted (16 tokens per request): it is
	// resampled per request.
	if itl := rowOf(t, res.Pairs[0].Rows, MetricITLP95); itl.Noise == nil || itl.Noise.SampleSizes != [2]int{1000, 1000} {
		t.Errorf("ITL noise %+v", itl.Noise)
	}
	// Throughput and goodput have no distribution to resample.
	if g := rowOf(t, res.Pairs[0].Rows, MetricGoodput); g.Noise != nil || g.NoiseNote == "" {
		t.Errorf("goodput noise %+v note %q", g.Noise, g.NoiseNote)
	}
	// Same seed, same result.
	again, err := Compare(base, cur, "a", "b", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if *rowOf(t, again.Pairs[0].Rows, MetricTTFTP99).Noise != *n {
		t.Error("the bootstrap is not reproducible")
	}
}

func TestThresholdBoundaries(t *testing.T) {
	t.Parallel()
	mk := func(goodput, errRate float64) *report.Report {
		b := &report.Benchmark{Extras: &report.Extras{SLO: &report.SLOResult{Spec: "s", GoodputOutputTokS: report.Float(goodput)}}}
		b.Config.Strategy = report.Strategy{Type: report.StrategySynchronous}
		errored := report.Int(math.Round(errRate * 1000))
		b.Metrics.RequestTotals = &report.StatusCounts{Successful: 1000 - errored, Errored: errored, Total: 1000}
		return reportOf("r", b)
	}
	tests := []struct {
		name           string
		goodput, err   float64
		gStatus, eStat Status
	}{
		{"exactly 5% drop and 0.5pp passes", 95, 0.015, StatusOK, StatusOK},
		{"just beyond", 94.9, 0.016, StatusRegression, StatusRegression},
		{"better", 106, 0.004, StatusImproved, StatusImproved},
	}
	base := mk(100, 0.010)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Compare(base, mk(tt.goodput, tt.err), "a", "b", Options{})
			if err != nil {
				t.Fatal(err)
			}
			rows := res.Pairs[0].Rows
			if g := rowOf(t, rows, MetricGoodput); g.Status != tt.gStatus {
				t.Errorf("goodput %v: %s, want %s", tt.goodput, g.Status, tt.gStatus)
			}
			if e := rowOf(t, rows, MetricErrorRate); e.Status != tt.eStat {
				t.Errorf("error rate %v: %s, want %s", tt.err, e.Status, tt.eStat)
			}
		})
	}
}

func TestCustomLimits(t *testing.T) {
	t.Parallel()
	base := reportOf("base", baseSynth().benchmark(t))
	cur := reportOf("cur", synth{seed: 2, n: 1000, ttftMs: 130, ttftSigma: 0.3, itlMs: 26, itlSigma: 0.1, goodput: 900, throughput: 960}.benchmark(t))
	lim := func(s string, k ...LimitKind) Limit {
		l, err := ParseLimit(s, k...)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	res, err := Compare(base, cur, "a", "b", Options{Limits: map[string]Limit{
		MetricGoodput: lim("15%", LimitPercent), MetricTTFTP99: lim("1s", LimitDuration), MetricITLP95: {},
		MetricTTFTP50: lim("10ms", LimitDuration),
	}})
	if err != nil {
		t.Fatal(err)
	}
	rows := res.Pairs[0].Rows
	for m, st := range map[string]Status{MetricGoodput: StatusOK, MetricTTFTP99: StatusOK, MetricITLP95: StatusNotGated, MetricTTFTP50: StatusRegression} {
		if r := rowOf(t, rows, m); r.Status != st {
			t.Errorf("%s: %s, want %s", m, r.Status, st)
		}
	}
	if res.Limits[MetricTTFTP99] != "1000ms" || res.Limits[MetricITLP95] != "off" {
		t.Errorf("limits %v", res.Limits)
	}
}

func TestGoodputNeedsTheSameSLO(t *testing.T) {
	t.Parallel()
	a := baseSynth()
	a.n = 50
	b := a
	b.slo = "ttft_p99=1s"
	b.goodput = 500
	res, err := Compare(reportOf("a", a.benchmark(t)), reportOf("b", b.benchmark(t)), "a", "b", Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := rowOf(t, res.Pairs[0].Rows, MetricGoodput)
	if g.Status != StatusNA || !strings.Contains(g.Note, "the SLOs differ") || !res.Pass {
		t.Fatalf("goodput row %+v, pass %v", g, res.Pass)
	}
}

func TestMatch(t *testing.T) {
	t.Parallel()
	bm := func(typ string, rate float64, streams int) *report.Benchmark {
		b := &report.Benchmark{}
		b.Config.Strategy = report.Strategy{Type: typ, Rate: rate, Streams: streams}
		return b
	}
	base := []*report.Benchmark{
		bm("synchronous", 0, 0), bm("throughput", 0, 0), bm("constant", 2.10, 0), bm("constant", 3.00, 0),
		bm("concurrent", 0, 8), bm("concurrent", 0, 16), bm("poisson", 5, 0),
	}
	cur := []*report.Benchmark{
		bm("concurrent", 0, 16), bm("synchronous", 0, 0), bm("constant", 3.10, 0), bm("constant", 2.15, 0),
		bm("throughput", 0, 0), bm("concurrent", 0, 32), bm("poisson", 5.5, 0),
	}
	pairs, ub, uc := match(base, cur)
	got := map[int]matched{}
	for _, p := range pairs {
		got[p.c] = p
	}
	want := map[int]struct {
		b    int
		kind string
	}{0: {5, "load"}, 1: {0, "load"}, 2: {3, "near_load"}, 3: {2, "near_load"}, 4: {1, "load"}}
	if len(got) != len(want) {
		t.Fatalf("pairs %+v", pairs)
	}
	for c, w := range want {
		if p, ok := got[c]; !ok || p.b != w.b || p.kind != w.kind {
			t.Errorf("current %d: %+v, want baseline %d by %s", c, p, w.b, w.kind)
		}
	}
	if got[2].label != "constant 3.00/s vs constant 3.10/s" {
		t.Errorf("label %q", got[2].label)
	}
	// poisson 5 → 5.5 is 10% apart; concurrent 8 and 32 have no partner.
	if len(ub) != 2 || ub[0] != 4 || ub[1] != 6 || len(uc) != 2 || uc[0] != 5 || uc[1] != 6 {
		t.Errorf("unmatched baseline %v current %v", ub, uc)
	}
}

func TestNoMatchIsAnError(t *testing.T) {
	t.Parallel()
	a := &report.Benchmark{}
	a.Config.Strategy = report.Strategy{Type: report.StrategyConcurrent, Streams: 4}
	b := &report.Benchmark{}
	b.Config.Strategy = report.Strategy{Type: report.StrategyConstant, Rate: 2}
	_, err := Compare(reportOf("a", a), reportOf("b", b), "a", "b", Options{})
	if !errors.Is(err, ErrNoMatch) {
		t.Fatalf("err = %v", err)
	}
	want := "no matching benchmarks: baseline has concurrent 4; current has constant 2.00/s"
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err %q, want prefix %q", err, want)
	}
}

func TestKnee(t *testing.T) {
	t.Parallel()
	knee := func(found bool, streams int, goodput float64, reason string) *report.Knee {
		return &report.Knee{Found: found, Mode: "knee-concurrency", Streams: report.Int(streams), Rate: report.Float(streams) / 2,
			GoodputOutputTokS: report.Float(goodput), TTFTP99Ms: 400, ITLP95Ms: 40, Reason: reason}
	}
	run := func(k *report.Knee, slo string, pass bool) *report.Report {
		b := &report.Benchmark{Extras: &report.Extras{SLO: &report.SLOResult{Spec: slo, Pass: pass}}}
		b.Config.Strategy = report.Strategy{Type: report.StrategyConcurrent, Streams: 3}
		r := reportOf("r", b)
		r.Run.Knee, r.Run.SLO = k, &report.SLOSpec{Spec: slo}
		return r
	}
	const slo = "ttft_p99=500ms"
	tests := []struct {
		name       string
		base, cur  *report.Report
		status     Status
		pass       bool
		goodputRow Status
	}{
		{"same knee", run(knee(true, 32, 1000, ""), slo, true), run(knee(true, 32, 990, ""), slo, true), StatusOK, true, StatusOK},
		{"knee halved", run(knee(true, 32, 1000, ""), slo, true), run(knee(true, 16, 600, ""), slo, true), StatusRegression, false, StatusRegression},
		{"knee raised", run(knee(true, 32, 1000, ""), slo, true), run(knee(true, 64, 1800, ""), slo, true), StatusImproved, true, StatusImproved},
		{"no round passes now", run(knee(true, 32, 1000, ""), slo, true), run(knee(false, 0, 0, "the SLO failed at every load"), slo, false), StatusRegression, false, ""},
		{"held up to the limit now", run(knee(true, 32, 1000, ""), slo, true), run(knee(false, 0, 0, "the SLO held up to --max-concurrency 256"), slo, true), StatusNA, true, ""},
		{"different SLOs", run(knee(true, 32, 1000, ""), slo, true), run(knee(true, 8, 100, ""), "ttft_p99=200ms", true), StatusNA, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Compare(tt.base, tt.cur, "a", "b", Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Knee == nil {
				t.Fatal("no knee comparison")
			}
			if r := rowOf(t, res.Knee.Rows, MetricKnee); r.Status != tt.status {
				t.Errorf("knee row %+v, want %s", r, tt.status)
			}
			if tt.goodputRow != "" {
				if r := rowOf(t, res.Knee.Rows, kneeGoodput); r.Status != tt.goodputRow {
					t.Errorf("goodput at knee %+v, want %s", r, tt.goodputRow)
				}
			}
			if res.Pass != tt.pass {
				t.Errorf("pass %v, want %v", res.Pass, tt.pass)
			}
		})
	}
	// Knees alone are enough to compare.
	a, b := run(knee(true, 32, 1000, ""), slo, true), run(knee(true, 16, 500, ""), slo, true)
	b.Benchmarks[0].Config.Strategy.Streams = 5
	res, err := Compare(a, b, "a", "b", Options{})
	if err != nil || len(res.Pairs) != 0 || res.Knee == nil || res.Pass {
		t.Fatalf("knees only: %+v, %v", res, err)
	}
}

func TestMetadataDiffs(t *testing.T) {
	t.Parallel()
	small := baseSynth()
	small.n = 50
	a, b := reportOf("a", small.benchmark(t)), reportOf("b", small.benchmark(t))
	a.Run.Metadata = &report.RunMetadata{Engine: "vllm", EngineVersion: "0.9.1", Precision: "fp16", ISLTokens: 256}
	b.Run.Metadata = &report.RunMetadata{Engine: "vllm", EngineVersion: "0.9.2", Precision: "fp8", PrecisionInferred: true, ISLTokens: 256}
	res, err := Compare(a, b, "a", "b", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []FieldDiff{{"engine_version", "0.9.1", "0.9.2"}, {"precision", "fp16", "fp8 (inferred)"}}
	if len(res.MetadataDiffs) != 2 || res.MetadataDiffs[0] != want[0] || res.MetadataDiffs[1] != want[1] {
		t.Errorf("diffs %+v", res.MetadataDiffs)
	}
}

func TestGuideLLMLegacyBaseline(t *testing.T) {
	t.Parallel()
	base, err := report.Read("../report/testdata/benchmarks_stripped_legacy_v0.3.json")
	if err != nil {
		t.Fatal(err)
	}
	cur := reportOf("cur", synth{seed: 5, n: 200, ttftMs: 100, ttftSigma: 0.2, itlMs: 20, itlSigma: 0.1,
		strategy: report.Strategy{Type: report.StrategySynchronous}, goodput: 50, throughput: 50}.benchmark(t))
	res, err := Compare(base, cur, "legacy.json", "cur.json", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Pairs) != 1 || res.Pairs[0].Label != "synchronous" {
		t.Fatalf("pairs %+v", res.Pairs)
	}
	rows := res.Pairs[0].Rows
	g := rowOf(t, rows, MetricGoodput)
	if g.Status != StatusNA || g.Note != "baseline: a guidellm-v0.2-0.3 report has no goodput" || g.Baseline != nil || g.Current == nil {
		t.Errorf("goodput row %+v", g)
	}
	// Latency rows have values on both sides but no noise estimate.
	ttft := rowOf(t, rows, MetricTTFTP99)
	if ttft.Baseline == nil || ttft.Current == nil || ttft.Noise != nil || ttft.NoiseNote == "" || ttft.Status == StatusNA {
		t.Errorf("ttft row %+v", ttft)
	}
	if res.Baseline.Layout != "guidellm-v0.2-0.3" {
		t.Errorf("layout %q", res.Baseline.Layout)
	}
}
