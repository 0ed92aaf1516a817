package accum

import (
	"testing"
)

// TestIntervalsExactAndBinned: the exact path and the histogram path
// (beyond the exact cap) both give every latency distribution its
// intervals, at the confidence asked, and none when it is negative.
func TestIntervalsExactAndBinned(t *testing.T) {
	base := ms(0)
	for _, exactCap := range []int{0, 3} {
		b := runGolden(t, Config{Start: base, ExactCap: exactCap, Confidence: 0.9}, windowRecords(), BenchmarkInfo{RunID: "w", Start: base, StopTime: ms(10000)})
		d := b.Extras.Metrics.RequestLatency.Successful
		if d.MeanCI == nil || d.PercentileCIs == nil || d.PercentileCIs.P50 == nil {
			t.Fatalf("exact cap %d: intervals missing: %+v", exactCap, d)
		}
		if c := b.Metrics.RequestLatency.Successful.MeanCI.Confidence; c != 0.9 {
			t.Errorf("exact cap %d: confidence %v, want 0.9", exactCap, c)
		}
		if exactCap == 0 && (b.Extras.Censored == nil || b.Extras.WindowThroughput == nil) {
			t.Errorf("exact: no censored view or window throughput")
		}
	}
	b := runGolden(t, Config{Start: base, Confidence: -1}, windowRecords(), BenchmarkInfo{RunID: "w", Start: base, StopTime: ms(10000)})
	if b.Metrics.RequestLatency.Successful.MeanCI != nil {
		t.Error("intervals although --confidence is off")
	}
}
