package accum

import (
	"math"
	"testing"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/slo"
)

// ttstRecords: ten successful streams dispatched 100 ms apart, each with
// its first chunk 50 ms after dispatch and its second 10·(i+1) ms later,
// so their times to the second token are 60, 70, …, 150 ms; a
// non-streaming success (no second token); a stream cancelled 300 ms
// after dispatch with one chunk.
func ttstRecords() []recSpec {
	var rs []recSpec
	for i := range 10 {
		d := float64(100 * i)
		rs = append(rs, recSpec{id: uint64(i + 1), status: record.StatusSuccessful, intended: d, dispatched: d,
			chunks: []float64{d + 50, d + 50 + float64(10*(i+1)), d + 180}, firstOut: -1, end: d + 200,
			iterations: 3, prompt: 10, output: 3, source: record.TokensUsage, srv: 3, cli: 3})
	}
	return append(rs,
		recSpec{id: 11, status: record.StatusSuccessful, intended: 100, dispatched: 100, firstOut: -2, end: 300,
			iterations: 1, prompt: 10, output: 3, source: record.TokensUsage, srv: 3, cli: 3},
		recSpec{id: 12, status: record.StatusIncomplete, intended: 200, dispatched: 200, chunks: []float64{250}, firstOut: -1,
			end: 500, iterations: 1, prompt: 10, output: 1, source: record.TokensChunks, srv: -1, cli: -1, errClass: record.ErrCancelled})
}

// TestTTSTObjectives judges the time to the second token, a metric added
// as one row of the metric table, on ttstRecords.
func TestTTSTObjectives(t *testing.T) {
	spec, err := slo.Parse("time_to_second_token_p90=145ms, ttst_mean=100ms")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := spec.String(), "ttst_mean=100ms,ttst_p90=145ms"; got != want {
		t.Errorf("canonical form %q, want %q", got, want)
	}
	for _, exactCap := range []int{0, 4} {
		b := runGolden(t, Config{Start: base, Seed: 1, SLO: spec, ExactCap: exactCap}, ttstRecords(), BenchmarkInfo{RunID: "ttst", Start: base})
		s := b.Extras.SLO
		if s == nil || len(s.Objectives) != 3 {
			t.Fatalf("exact cap %d: SLO result %+v", exactCap, s)
		}
		// Per request (ttst ≤ 145 ms, from the p90): the streams at
		// 60–140 ms are good, the one at 150 ms bad; the non-streaming
		// success has no second token (undetermined); the cancelled stream
		// had none 300 ms after dispatch, already past 145 ms (bad): 9 of 11.
		if s.GoodRequests != 9 || math.Abs(float64(s.Attainment)-9.0/11) > 1e-12 {
			t.Errorf("exact cap %d: good %d, attainment %v; want 9, 9/11", exactCap, s.GoodRequests, s.Attainment)
		}
		byKey := map[string]report.ObjectiveResult{}
		for _, o := range s.Objectives {
			byKey[o.Key] = o
		}
		// Mean of 60…150 ms is 105 ms: over 100 ms.
		if o := byKey["ttst_mean"]; o.Metric != "ttst" || o.Unit != "ms" || math.Abs(float64(o.Measured)-105) > 0.2 || o.Pass {
			t.Errorf("exact cap %d: ttst_mean %+v; want 105 ms, failed", exactCap, o)
		}
		// P90 of ten values is the ninth, 140 ms (the HDR histogram's
		// 0.1 %): within 145 ms.
		if o := byKey["ttst_p90"]; o.Percentile != 90 || math.Abs(float64(o.Measured)-140) > 0.15 || !o.Pass {
			t.Errorf("exact cap %d: ttst_p90 %+v; want 140 ms, passed", exactCap, o)
		}
		// The implicit floor: 1 − 10 % for the p90.
		if o := byKey["attainment"]; math.Abs(float64(o.Threshold)-0.9) > 1e-12 || o.Pass {
			t.Errorf("exact cap %d: attainment %+v; want floor 0.9, failed at 9/11", exactCap, o)
		}
		if d := b.Extras.Metrics.TimeToSecondTokenMs.Successful; d.Count != 10 || math.Abs(float64(d.Min)-60) > 0.1 {
			t.Errorf("exact cap %d: time_to_second_token_ms %+v", exactCap, d)
		}
	}
	// Per-request thresholds alone: 100 ms keeps the five streams at
	// 60–100 ms (a value at the threshold meets it); 400 ms all ten, and
	// the cancelled stream (300 ms without a second token) is undetermined.
	for _, c := range []struct {
		spec         string
		good, judged int64
	}{{"ttst=100ms", 5, 11}, {"ttst=400ms", 10, 10}} {
		var got report.GoodputCounts
		sp, err := slo.Parse(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		runGolden(t, Config{Start: base, Seed: 1, SLO: fakeSLO{t: sp.Thresholds(), got: &got}}, ttstRecords(), BenchmarkInfo{RunID: "ttst", Start: base})
		if got.Good != c.good || got.Judged != c.judged {
			t.Errorf("%s: good %d of %d judged; want %d of %d", c.spec, got.Good, got.Judged, c.good, c.judged)
		}
	}
}
