package htmlreport

import (
	"math"
	"strings"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/goodput-dev/goodput/metric"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/stats"
)

func histBenchmark(t *testing.T, h *hdrhistogram.Histogram) *report.Benchmark {
	t.Helper()
	enc, err := stats.EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	return &report.Benchmark{Extras: &report.Extras{Histograms: &report.Histograms{Unit: "ns",
		Metrics: map[string]*report.StatusHistograms{metric.TTFT.Hist: {Successful: enc}}}}}
}

// The CDF of a histogram: 0% at the lowest value, then the exact share of
// samples at or below each value (within the histogram's 0.1%).
func TestCDFFromHistogram(t *testing.T) {
	h := hdrhistogram.New(stats.HistLowest, stats.HistHighest, stats.HistSignificantDigits)
	_ = h.RecordValues(1_000_000, 50)  // 1 ms
	_ = h.RecordValues(2_000_000, 30)  // 2 ms
	_ = h.RecordValues(10_000_000, 20) // 10 ms
	pts, err := histCDF(histBenchmark(t, h), metric.TTFT.Hist)
	if err != nil {
		t.Fatal(err)
	}
	want := []point{{x: 1, y: 0}, {x: 1, y: 50}, {x: 2, y: 80}, {x: 10, y: 100}}
	// The first two share x (the lowest value): the step rises there.
	var got []point
	for _, p := range pts {
		if n := len(got); n > 0 && math.Abs(got[n-1].x-p.x) < 0.002*p.x && got[n-1].y == p.y {
			continue
		}
		got = append(got, p)
	}
	if len(got) < 3 {
		t.Fatalf("CDF %v, want about %v", pts, want)
	}
	last := got[len(got)-1]
	if math.Abs(last.x-10)/10 > 0.001 || last.y != 100 {
		t.Errorf("CDF ends at %v, want (10 ms, 100%%)", last)
	}
	if first := got[0]; math.Abs(first.x-1) > 0.001 || first.y != 0 {
		t.Errorf("CDF starts at %v, want (1 ms, 0%%)", first)
	}
	for _, w := range want[1:3] {
		found := false
		for _, p := range got {
			if math.Abs(p.x-w.x)/w.x <= 0.001 && p.y == w.y {
				found = true
			}
		}
		if !found {
			t.Errorf("CDF %v lacks %v", got, w)
		}
	}
}

// A histogram beyond goodput's geometry is refused, quickly: its buckets
// would take long to walk, and with 2^60 samples the HDR percentile
// iterator never ends.
func TestHistogramGuard(t *testing.T) {
	for _, h := range []*hdrhistogram.Histogram{
		hdrhistogram.New(1, math.MaxInt64/4, 5),
		hdrhistogram.New(stats.HistLowest, stats.HistHighest, stats.HistSignificantDigits),
	} {
		_ = h.RecordValue(3)
		_ = h.RecordValues(12345, 1<<60)
		_, err := histCDF(histBenchmark(t, h), metric.TTFT.Hist)
		if err == nil || !strings.Contains(err.Error(), "not goodput's geometry") {
			t.Errorf("error %v, want a geometry refusal", err)
		}
	}
}
