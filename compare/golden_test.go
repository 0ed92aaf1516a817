package compare

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/goodput-dev/goodput/metric"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/stats"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// hist encodes a histogram of (milliseconds, count) pairs.
func hist(t *testing.T, pairs ...[2]int64) string {
	t.Helper()
	h := hdrhistogram.New(stats.HistLowest, stats.HistHighest, stats.HistSignificantDigits)
	for _, p := range pairs {
		if err := h.RecordValues(p[0]*1_000_000, p[1]); err != nil {
			t.Fatal(err)
		}
	}
	s, err := stats.EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// handBench is a benchmark whose figures are set by hand: TTFT p50/p99
// (its p90 the p99), ITL p50/p95 (ms), latency p99 (s), errored of 1,000 requests, goodput
// and throughput, and histograms of TTFT and ITL.
func handBench(t *testing.T, streams int, ttft50, ttft99, itl50, itl95, lat99 float64, errored int64,
	goodput, throughput float64, ttftHist, itlHist string) *report.Benchmark {
	t.Helper()
	dist := func(p50, p95, p99 float64) *report.StatusDistributionSummary {
		v := report.Float(p50)
		return &report.StatusDistributionSummary{Successful: &report.DistributionSummary{
			Count: 1000, Median: v, Percentiles: report.Percentiles{P50: &v, P90: report.Float(p95), P95: report.Float(p95), P99: report.Float(p99)}}}
	}
	b := &report.Benchmark{}
	b.Config.Strategy = report.Strategy{Type: report.StrategyConcurrent, Streams: streams}
	b.Metrics.TimeToFirstTokenMs = dist(ttft50, ttft99, ttft99)
	b.Metrics.InterTokenLatencyMs = dist(itl50, itl95, itl95)
	b.Metrics.RequestLatency = dist(lat99, lat99, lat99)
	b.Metrics.RequestTotals = &report.StatusCounts{Successful: report.Int(1000 - errored), Errored: report.Int(errored), Total: 1000}
	b.Metrics.OutputTokensPerSecond = &report.StatusDistributionSummary{Successful: &report.DistributionSummary{Mean: 1}}
	b.Extras = &report.Extras{
		SLO: &report.SLOResult{Spec: "ttft_p99=500ms,itl_p95=50ms", GoodputOutputTokS: report.Float(goodput), ThroughputOutputTokS: report.Float(throughput)},
		Histograms: &report.Histograms{Encoding: stats.HistEncoding, Unit: "ns", Metrics: map[string]*report.StatusHistograms{
			metric.TTFT.Hist: {Successful: ttftHist}, metric.ITL.Hist: {Successful: itlHist}}},
	}
	return b
}

// goldenReports are two runs whose every figure is set by hand:
//
//	                 baseline                     current
//	TTFT             500×100 ms, 500×200 ms      500×100 ms, 500×260 ms
//	                 p50 100, p99 200            p50 100, p99 260 (+30%)
//	ITL              500×10 ms, 500×20 ms        500×10 ms, 500×21 ms
//	                 p50 10, p95 20              p50 10, p95 21 (+5%)
//	latency p99      2.0 s                       2.2 s (+10%, gate off)
//	errors           0 of 1,000                  10 of 1,000 (+1.00pp)
//	goodput          1000 tok/s                  940 tok/s (−6%)
//	throughput       1100 tok/s                  1089 tok/s (−1%)
//	knee             32 streams, 1000 tok/s      32 streams, 940 tok/s
//
// Bootstrap intervals of these two-valued histograms (n = 1,000, so no
// end is open): a p99 is the 990th of 1,000 draws, above the 500 low
// values in every resample, so its interval is the high value alone
// (200.0–200.0, 260.0–260.0; HDR keeps 100 ms as 100.008 ms, shown
// 100.0): the p99 rows differ, TTFT p99 is a regression. A p50 is the
// 500th draw, low or high with probability ½ each, so its interval spans
// both values (100.0–200.0 and 100.0–260.0): they overlap. ITL p95 is the
// high value on each side (20.00 vs 21.00): they differ, but +5% is
// within the 10% limit: ok.
//
// A second pair (64 streams) has 50-request histograms: TTFT 49×100 ms
// and one slow request, 300 ms in the baseline, 360 ms now. The p99 is
// the 50th of 50 draws, the slowest: +20%, beyond the limit. But
// 0.99^50 = 0.61 > 2.5%, so no observed value bounds a 50-request p99
// from above: both upper ends are open ("…"); and F(100 ms)^50 =
// 0.98^50 = 0.36 > 2.5% of the resampled maxima are 100 ms, so both
// lower ends are 100.0. The intervals overlap: within noise. ITL p95
// (25×10 ms, 25×20 ms on both sides) is unchanged, its upper ends open
// too (0.95^50 = 0.077). Throughput 1000 → 1100 tok/s: +10%, improved.
func goldenReports(t *testing.T) (*report.Report, *report.Report) {
	base := reportOf("base-run",
		handBench(t, 16, 100, 200, 10, 20, 2.0, 0, 1000, 1100, hist(t, [2]int64{100, 500}, [2]int64{200, 500}), hist(t, [2]int64{10, 500}, [2]int64{20, 500})))
	base.Benchmarks = append(base.Benchmarks,
		handBench(t, 64, 100, 300, 10, 20, 2.0, 0, 1000, 1000, hist(t, [2]int64{100, 49}, [2]int64{300, 1}), hist(t, [2]int64{10, 25}, [2]int64{20, 25})))
	extra := &report.Benchmark{}
	extra.Config.Strategy = report.Strategy{Type: report.StrategyConstant, Rate: 4}
	base.Benchmarks = append(base.Benchmarks, extra)
	cur := reportOf("cur-run",
		handBench(t, 16, 100, 260, 10, 21, 2.2, 10, 940, 1089, hist(t, [2]int64{100, 500}, [2]int64{260, 500}), hist(t, [2]int64{10, 500}, [2]int64{21, 500})))
	cur.Benchmarks = append(cur.Benchmarks,
		handBench(t, 64, 100, 360, 10, 20, 2.0, 0, 1000, 1100, hist(t, [2]int64{100, 49}, [2]int64{360, 1}), hist(t, [2]int64{10, 25}, [2]int64{20, 25})))
	slo := &report.SLOSpec{Spec: "ttft_p99=500ms,itl_p95=50ms"}
	base.Run.SLO, cur.Run.SLO = slo, slo
	base.Run.Knee = &report.Knee{Found: true, Mode: "sweep", Streams: 32, Rate: 12, GoodputOutputTokS: 1000, TTFTP99Ms: 450, ITLP95Ms: 40}
	cur.Run.Knee = &report.Knee{Found: true, Mode: "sweep", Streams: 32, Rate: 11, GoodputOutputTokS: 940, TTFTP99Ms: 480, ITLP95Ms: 42}
	base.Run.Metadata = &report.RunMetadata{Engine: "vllm", EngineVersion: "0.9.1", Model: "m"}
	cur.Run.Metadata = &report.RunMetadata{Engine: "vllm", EngineVersion: "0.9.2", Model: "m"}
	return base, cur
}

func TestGoldenOutputs(t *testing.T) {
	t.Parallel()
	base, cur := goldenReports(t)
	res, err := Compare(base, cur, "baseline/benchmarks.json", "current/benchmarks.json", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Pass || res.Regressions != 5 || res.WithinNoise != 1 || res.Undecided != 1 || res.Improved != 1 {
		t.Fatalf("pass %v, %d regressions, %d within noise, %d undecided, %d improved; want fail, 5 (goodput, TTFT p90 and p99, error rate, goodput at the knee), 1 (the 50-request TTFT p90), 1 (its p99), 1",
			res.Pass, res.Regressions, res.WithinNoise, res.Undecided, res.Improved)
	}
	for _, f := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"compare.golden.md", func(b *bytes.Buffer) error { return res.WriteMarkdown(b) }},
		{"compare.golden.txt", func(b *bytes.Buffer) error { return res.WriteText(b) }},
		{"compare.golden.json", func(b *bytes.Buffer) error { return res.WriteJSON(b) }},
	} {
		var b bytes.Buffer
		if err := f.write(&b); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", f.name)
		if *update {
			if err := os.MkdirAll("testdata", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./compare -run TestGoldenOutputs -update)", err)
		}
		if !bytes.Equal(b.Bytes(), want) {
			t.Errorf("%s differs from the golden file:\n%s", f.name, b.String())
		}
	}
}
