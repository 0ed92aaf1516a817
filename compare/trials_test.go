package compare

import (
	"testing"

	"github.com/goodput-dev/goodput/report"
)

// withTrials marks a report's benchmark 0 as one load run three times
// whose TTFT p99 across runs had the given mean and interval.
func withTrials(r *report.Report, mean, lo, hi float64) *report.Report {
	l, h := report.Float(lo), report.Float(hi)
	r.Run.Trials = &report.Trials{Runs: 3, Confidence: 0.95, VariationThreshold: 0.1, Points: []report.TrialPoint{{
		Strategy: "concurrent@8", Benchmarks: []report.Int{0, 5, 9},
		Metrics: []report.TrialMetric{{Metric: "time_to_first_token_ms_p99", Mean: report.Float(mean), CILow: &l, CIHigh: &h}},
	}}}
	return r
}

// With --num-runs on both sides, the TTFT p99 row compares the runs'
// means and is significant only when their t intervals across runs do not
// overlap, whatever one run's histogram says.
func TestCompareUsesRunSpread(t *testing.T) {
	t.Parallel()
	bench := func(seed uint64) *report.Benchmark {
		return synth{seed: seed, n: 400, ttftMs: 100, ttftSigma: 0.3, itlMs: 10, itlSigma: 0.1}.benchmark(t)
	}
	for _, c := range []struct {
		name string
		cur  [3]float64 // mean, low, high of the current run's TTFT p99
		want Status
	}{
		{"separate intervals", [3]float64{240, 230, 250}, StatusRegression},
		{"overlapping intervals", [3]float64{240, 190, 290}, StatusWithinNoise},
	} {
		base := withTrials(reportOf("b", bench(1)), 200, 195, 205)
		cur := withTrials(reportOf("c", bench(2)), c.cur[0], c.cur[1], c.cur[2])
		res, err := Compare(base, cur, "base", "cur", Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := rowOf(t, res.Pairs[0].Rows, MetricTTFTP99)
		if r.Status != c.want || *r.Baseline != 200 || *r.Current != c.cur[0] || r.Noise == nil || r.Noise.SampleSizes != [2]int{3, 3} {
			t.Errorf("%s: %+v (noise %+v)", c.name, r, r.Noise)
		}
		if len(res.Notes) == 0 {
			t.Errorf("%s: no note on the runs' spread", c.name)
		}
	}
	// one side run once: the bootstrap on its histogram, as before.
	base := reportOf("b", bench(1))
	cur := withTrials(reportOf("c", bench(2)), 240, 230, 250)
	res, err := Compare(base, cur, "base", "cur", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := rowOf(t, res.Pairs[0].Rows, MetricTTFTP99); r.Noise != nil && r.Noise.SampleSizes[0] == 3 {
		t.Errorf("one-sided trials used: %+v", r.Noise)
	}
}
