package stats

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/goodput-dev/goodput/report"
)

// want is an expected DistributionSummary (percentiles in key order
// p001 p01 p05 p10 p25 p50 p75 p90 p95 p99 p999).
type want struct {
	mean, median, mode, variance, min, max float64
	count                                  int64
	totalSum                               float64
	pcts                                   [11]float64
}

func checkSummary(t *testing.T, name string, got report.DistributionSummary, w want) {
	t.Helper()
	near := func(field string, g, e float64) {
		t.Helper()
		if math.Abs(g-e) > 1e-9*math.Max(1, math.Abs(e)) {
			t.Errorf("%s: %s = %v, want %v", name, field, g, e)
		}
	}
	near("mean", float64(got.Mean), w.mean)
	near("median", float64(got.Median), w.median)
	near("mode", float64(got.Mode), w.mode)
	near("variance", float64(got.Variance), w.variance)
	near("std_dev", float64(got.StdDev), math.Sqrt(w.variance))
	near("min", float64(got.Min), w.min)
	near("max", float64(got.Max), w.max)
	if int64(got.Count) != w.count {
		t.Errorf("%s: count = %d, want %d", name, got.Count, w.count)
	}
	near("total_sum", float64(got.TotalSum), w.totalSum)
	p := got.Percentiles
	if p.P50 == nil {
		t.Fatalf("%s: p50 missing", name)
	}
	gotP := [11]report.Float{p.P001, p.P01, p.P05, p.P10, p.P25, *p.P50, p.P75, p.P90, p.P95, p.P99, p.P999}
	for i := range gotP {
		near("p"+[11]string{"001", "01", "05", "10", "25", "50", "75", "90", "95", "99", "999"}[i], float64(gotP[i]), w.pcts[i])
	}
	if got.PDF != nil {
		t.Errorf("%s: pdf = %s, want null", name, got.PDF)
	}
}

func TestFromValues(t *testing.T) {
	tests := []struct {
		name    string
		samples []Sample
		want    want
	}{
		{"empty: all zeros", nil, want{}},
		{
			// One value: everything is that value; count 1.
			"single", []Sample{{7, 1}},
			want{mean: 7, median: 7, mode: 7, min: 7, max: 7, count: 1, totalSum: 7,
				pcts: [11]float64{7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7}},
		},
		{
			// 1,2,3,4 with weight 1: pmf 0.25 each, cdf .25 .5 .75 1.
			// mean 2.5; variance (2.25+0.25+0.25+2.25)/4 = 1.25;
			// p25: first cdf >= .25 is 1; p50: 2; p75: 3; p90..p999: 4;
			// mode: all tie, the smallest, 1.
			"uniform 1..4", []Sample{{3, 1}, {1, 1}, {4, 1}, {2, 1}},
			want{mean: 2.5, median: 2, mode: 1, variance: 1.25, min: 1, max: 4, count: 4, totalSum: 10,
				pcts: [11]float64{1, 1, 1, 1, 1, 2, 3, 4, 4, 4, 4}},
		},
		{
			// 10 (w 1) and 20 (w 3): pmf .25 .75; mean 17.5;
			// variance 7.5²·.25 + 2.5²·.75 = 14.0625 + 4.6875 = 18.75;
			// p25 = 10 (cdf .25), p50 = 20; mode 20; count Σw = 4.
			"weighted", []Sample{{20, 3}, {10, 1}},
			want{mean: 17.5, median: 20, mode: 20, variance: 18.75, min: 10, max: 20, count: 4, totalSum: 70,
				pcts: [11]float64{10, 10, 10, 10, 10, 20, 20, 20, 20, 20, 20}},
		},
		{
			// Equal values merge: 5 (w 1+1) and 7 (w 2) tie for the mode,
			// the smaller wins; mean 6; variance 1.
			"duplicates merge, mode tie", []Sample{{7, 2}, {5, 1}, {5, 1}},
			want{mean: 6, median: 5, mode: 5, variance: 1, min: 5, max: 7, count: 4, totalSum: 24,
				pcts: [11]float64{5, 5, 5, 5, 5, 5, 7, 7, 7, 7, 7}},
		},
		{
			// A zero-weight value is dropped; count = round(Σw) = 1.
			"zero weight dropped", []Sample{{1, 0}, {2, 1}},
			want{mean: 2, median: 2, mode: 2, min: 2, max: 2, count: 1, totalSum: 2,
				pcts: [11]float64{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}},
		},
		{
			// A negative weight is dropped from the pmf but still counts:
			// count = round(-1 + 1) = 0, so total_sum = mean·0 = 0.
			"negative weight", []Sample{{1, -1}, {2, 1}},
			want{mean: 2, median: 2, mode: 2, min: 2, max: 2, count: 0, totalSum: 0,
				pcts: [11]float64{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}},
		},
		{
			// Total weight 2e-7 <= 1e-6: treated as uniform; mean 2,
			// variance 1; count round(2e-7) = 0.
			"tiny weights become uniform", []Sample{{1, 1e-7}, {3, 1e-7}},
			want{mean: 2, median: 1, mode: 1, variance: 1, min: 1, max: 3, count: 0, totalSum: 0,
				pcts: [11]float64{1, 1, 1, 1, 1, 1, 3, 3, 3, 3, 3}},
		},
		{
			// Σw = 2.5 rounds half to even: count 2; mean (1·.5+2·2)/2.5 = 1.8;
			// variance (.64·.5 + .04·2)/2.5 = .16.
			"count rounds half to even", []Sample{{1, 0.5}, {2, 2}},
			want{mean: 1.8, median: 2, mode: 2, variance: 0.16, min: 1, max: 2, count: 2, totalSum: 3.6,
				pcts: [11]float64{1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2}},
		},
		{
			// Negative values sort before positive ones.
			"negative values", []Sample{{-2, 1}, {0, 1}, {2, 2}},
			want{mean: 0.5, median: 0, mode: 2, variance: 2.75, min: -2, max: 2, count: 4, totalSum: 2,
				pcts: [11]float64{-2, -2, -2, -2, -2, 0, 2, 2, 2, 2, 2}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkSummary(t, tc.name, FromValues(tc.samples), tc.want)
		})
	}
}

// TestFromValuesPercentileRule checks the "first value whose cumulative
// probability reaches p" rule on 1000 equal-weight values 1..1000:
// p001 = 1 (cdf .001), p01 = 10, p05 = 50, p10 = 100, p25 = 250,
// p50 = 500, p75 = 750, p90 = 900, p95 = 950, p99 = 990, p999 = 999.
func TestFromValuesPercentileRule(t *testing.T) {
	var ss []Sample
	for i := 1000; i >= 1; i-- {
		ss = append(ss, Sample{float64(i), 1})
	}
	d := FromValues(ss)
	got := []float64{float64(d.Percentiles.P001), float64(d.Percentiles.P01), float64(d.Percentiles.P05),
		float64(d.Percentiles.P10), float64(d.Percentiles.P25), float64(*d.Percentiles.P50),
		float64(d.Percentiles.P75), float64(d.Percentiles.P90), float64(d.Percentiles.P95),
		float64(d.Percentiles.P99), float64(d.Percentiles.P999)}
	want := []float64{1, 10, 50, 100, 250, 500, 750, 900, 950, 990, 999}
	if !slices.Equal(got, want) {
		t.Errorf("percentiles = %v, want %v", got, want)
	}
	// mean (1+1000)/2; population variance (n²−1)/12.
	if d.Mean != 500.5 || math.Abs(float64(d.Variance)-(1000*1000-1)/12.0) > 1e-6 {
		t.Errorf("mean %v variance %v", d.Mean, d.Variance)
	}
}

func TestPairwiseSumMatchesNumpyBlocks(t *testing.T) {
	// For n < 8 numpy adds sequentially from 0; for 8 <= n <= 128 it uses
	// eight interleaved accumulators; beyond, it splits at n/2 rounded down
	// to a multiple of 8. With 1e16 and ones, the grouping is visible:
	// sequential 1e16+1+1+... loses every 1.
	a := []float64{1e16, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	// Accumulators r0..r7 start at a[0..7]: r0 = 1e16, r1..r7 = 1; then
	// a[8..15] (eight 1s) add one to each: r0 = 1e16+1 = 1e16 (rounded),
	// r1..r7 = 2. Result ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)) =
	// (1e16+2+4)+8 = 1e16+14.
	if got := PairwiseSum(a); got != 1e16+14 {
		t.Errorf("pairwise = %v, want %v", got, 1e16+14)
	}
	if got := PairwiseSum(a[:7]); got != 1e16 {
		t.Errorf("sequential n<8 = %v, want 1e16 (each +1 is lost)", got)
	}
}

func TestSortSamples(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 47, 49, 1000, 100000} {
		ss := make([]Tagged, n)
		for i := range ss {
			switch i % 4 {
			case 0:
				ss[i].Value = rng.NormFloat64() * 1e6
			case 1:
				ss[i].Value = float64(rng.IntN(10)) // many duplicates
			case 2:
				ss[i].Value = -rng.Float64()
			default:
				ss[i].Value = 1.7e9 + rng.Float64()
			}
			ss[i].Weight = float64(i)
		}
		want := slices.Clone(ss)
		slices.SortStableFunc(want, func(x, y Tagged) int {
			switch {
			case x.Value < y.Value:
				return -1
			case x.Value > y.Value:
				return 1
			}
			return 0
		})
		SortSamples(ss)
		for i := range ss {
			if ss[i].Value != want[i].Value {
				t.Fatalf("n=%d: index %d = %v, want %v", n, i, ss[i].Value, want[i].Value)
			}
		}
	}
}

func TestRateDistribution(t *testing.T) {
	tests := []struct {
		name   string
		events []Event
		win    Window
		want   want
	}{
		{
			// Events at 0, 1, 2, 4 s. Midpoints .5, 1.5, 3; durations:
			// first .5−0 = .5, then 1, 1.5, last 4−3 = 1. Rates 1/dur:
			// 2, 1, 2/3, 1. Duration-weighted: 2/3 (w 1.5), 1 (w 2), 2
			// (w .5); total 4 s. mean = 4 events / 4 s = 1;
			// variance = (1/3)²·1.5/4 + 1²·.5/4 = 1/24 + 1/8 = 1/6;
			// cdf .375, .875, 1: p25 = 2/3, p50 = 1, p90 = 2. count 4.
			"unclipped", []Event{{2, 1}, {0, 1}, {4, 1}, {1, 1}}, Window{},
			want{mean: 1, median: 1, mode: 1, variance: 1.0 / 6, min: 2.0 / 3, max: 2, count: 4, totalSum: 4,
				pcts: [11]float64{2.0 / 3, 2.0 / 3, 2.0 / 3, 2.0 / 3, 2.0 / 3, 1, 1, 2, 2, 2, 2}},
		},
		{
			// Window [.5, 3.5]: events 1 and 2 remain, zero-weight events
			// are added at .5 and 3.5. Times .5, 1, 2, 3.5; midpoints
			// .75, 1.5, 2.75; durations .25, .75, 1.25, .75; rates
			// 0, 4/3, .8, 0. Values 0 (w 1), .8 (w 1.25), 4/3 (w .75);
			// total 3 s: mean = 2 events / 3 s; count 2; cdf 1/3, 3/4, 1
			// (p75 is reached exactly at .8).
			// variance = (2/3)²/3 + (.8−2/3)²·1.25/3 + (4/3−2/3)²·.75/3.
			"windowed", []Event{{0, 1}, {1, 1}, {2, 1}, {4, 1}}, Window{Start: 0.5, End: 3.5, HasStart: true, HasEnd: true},
			want{mean: 2.0 / 3, median: 0.8, mode: 0.8,
				variance: 4.0/9/3 + (0.8-2.0/3)*(0.8-2.0/3)*1.25/3 + 4.0/9*0.75/3,
				min:      0, max: 4.0 / 3, count: 2, totalSum: 4.0 / 3,
				pcts: [11]float64{0, 0, 0, 0, 0, 0.8, 0.8, 4.0 / 3, 4.0 / 3, 4.0 / 3, 4.0 / 3}},
		},
		{
			// Events within 0.1 ms merge into the first: 0 and 0.00005
			// become one event of weight 2 at 0; with 1: durations .5, .5,
			// rates 4 and 2; mean 3 events / 1 s = 3; count 3.
			"merge within 0.1 ms", []Event{{0.00005, 1}, {0, 1}, {1, 1}}, Window{},
			want{mean: 3, median: 2, mode: 2, variance: 1, min: 2, max: 4, count: 3, totalSum: 9,
				pcts: [11]float64{2, 2, 2, 2, 2, 2, 4, 4, 4, 4, 4}},
		},
		{
			// Chained events 60 µs apart: the group from 0 takes 0 and
			// 60 µs (120 µs is beyond 0+0.1 ms); the next group starts at
			// 120 µs and takes 180 µs. Two events of weight 2 at 0 and
			// 120 µs: durations 60 µs and 60 µs, both rates 2/60e-6.
			"merge chain", []Event{{0, 1}, {0.00006, 1}, {0.00012, 1}, {0.00018, 1}}, Window{},
			want{mean: 2 / 60e-6, median: 2 / 60e-6, mode: 2 / 60e-6, min: 2 / 60e-6, max: 2 / 60e-6,
				count: 4, totalSum: 4 * 2 / 60e-6,
				pcts: [11]float64{2 / 60e-6, 2 / 60e-6, 2 / 60e-6, 2 / 60e-6, 2 / 60e-6, 2 / 60e-6, 2 / 60e-6, 2 / 60e-6, 2 / 60e-6, 2 / 60e-6, 2 / 60e-6}},
		},
		{"one event: no rate", []Event{{5, 1}}, Window{}, want{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkSummary(t, tc.name, RateDistribution(tc.events, tc.win), tc.want)
		})
	}
}

func TestConcurrencyDistribution(t *testing.T) {
	iv := []Interval{{0, 2, 1}, {1, 3, 1}, {1, 2, 1}}
	tests := []struct {
		name string
		iv   []Interval
		win  Window
		want want
	}{
		{
			// Changes +1@0, +2@1, −2@2, −1@3: levels 1, 3, 1 for 1 s each.
			// Values 1 (w 2), 3 (w 1): mean 5/3, variance
			// (2/3)²·2/3 + (4/3)²/3 = 8/9; count = 3 intervals.
			"unclipped", iv, Window{},
			want{mean: 5.0 / 3, median: 1, mode: 1, variance: 8.0 / 9, min: 1, max: 3, count: 3, totalSum: 5,
				pcts: [11]float64{1, 1, 1, 1, 1, 1, 3, 3, 3, 3, 3}},
		},
		{
			// Window [.5, 2.5]: level 1 in force at .5 (from the +1 at 0),
			// 3 from 1 to 2, 1 from 2 to 2.5 (the −1 at 3 is cut). Values
			// 1 (w .5+.5), 3 (w 1): mean 2, variance 1; count 3.
			"windowed", iv, Window{Start: 0.5, End: 2.5, HasStart: true, HasEnd: true},
			want{mean: 2, median: 1, mode: 1, variance: 1, min: 1, max: 3, count: 3, totalSum: 6,
				pcts: [11]float64{1, 1, 1, 1, 1, 1, 3, 3, 3, 3, 3}},
		},
		{
			// Window [2.5, 4]: only [1,3] overlaps; level at 2.5 is 1
			// (prior changes +1 −1 +1 ... sum to 1), until the −1 at 3,
			// then 0 until 4. Values 0 (w 1), 1 (w .5): mean 1/3; count 1.
			"window after most requests", iv, Window{Start: 2.5, End: 4, HasStart: true, HasEnd: true},
			want{mean: 1.0 / 3, median: 0, mode: 0, variance: 2.0 / 9, min: 0, max: 1, count: 1, totalSum: 1.0 / 3,
				pcts: [11]float64{0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1}},
		},
		{
			// Token-weighted levels (weights 100 and 50).
			"weighted", []Interval{{0, 2, 100}, {1, 2, 50}}, Window{},
			want{mean: 125, median: 100, mode: 100, variance: 625, min: 100, max: 150, count: 2, totalSum: 250,
				pcts: [11]float64{100, 100, 100, 100, 100, 100, 150, 150, 150, 150, 150}},
		},
		{"empty", nil, Window{}, want{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkSummary(t, tc.name, ConcurrencyDistribution(tc.iv, tc.win), tc.want)
		})
	}
}

// TestGuideLLMOracle compares the statistics with numpy's results on 150
// randomised inputs (testdata/guidellm_oracle.json: values with duplicate
// and zero weights, rate events with gaps around the 0.1 ms merge
// threshold, windows, overlapping concurrency intervals). The expected
// values were computed by a numpy re-implementation of GuideLLM's
// statistics.py; goodput matches them bit for bit.
func TestGuideLLMOracle(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "guidellm_oracle.json"))
	if err != nil {
		t.Fatal(err)
	}
	var oracle struct {
		Cases []struct {
			Kind string      `json:"kind"`
			In   [][]float64 `json:"in"`
			Win  *struct {
				Start, End float64
			} `json:"win"`
			Want report.DistributionSummary `json:"want"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(data, &oracle); err != nil {
		t.Fatal(err)
	}
	if len(oracle.Cases) < 100 {
		t.Fatalf("%d cases", len(oracle.Cases))
	}
	for i, c := range oracle.Cases {
		var w Window
		if c.Win != nil {
			w = Window{Start: c.Win.Start, End: c.Win.End, HasStart: true, HasEnd: true}
		}
		var got report.DistributionSummary
		switch c.Kind {
		case "values":
			var ss []Sample
			for _, x := range c.In {
				ss = append(ss, Sample{x[0], x[1]})
			}
			got = FromValues(ss)
		case "rate":
			var ev []Event
			for _, x := range c.In {
				ev = append(ev, Event{x[0], x[1]})
			}
			got = RateDistribution(ev, w)
		default:
			var iv []Interval
			for _, x := range c.In {
				iv = append(iv, Interval{x[0], x[1], x[2]})
			}
			got = ConcurrencyDistribution(iv, w)
		}
		g, _ := json.Marshal(got)
		c.Want.PDF = nil
		e, _ := json.Marshal(c.Want)
		if string(g) != string(e) {
			t.Errorf("case %d (%s, %d inputs):\n got  %s\n want %s", i, c.Kind, len(c.In), g, e)
		}
	}
}
