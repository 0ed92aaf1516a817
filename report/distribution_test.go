package report

import (
	"math"
	"testing"
)

func TestPyFloat(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0.0"}, {math.Copysign(0, -1), "-0.0"}, {1, "1.0"}, {-2.5, "-2.5"}, {0.1, "0.1"},
		{1e-4, "0.0001"}, {1e-5, "1e-05"}, {1.5e-7, "1.5e-07"}, {123456789012345.6, "123456789012345.6"},
		{1e15, "1000000000000000.0"}, {1e16, "1e+16"}, {1.2345e20, "1.2345e+20"},
		{1749157168.054225, "1749157168.054225"}, {2.0 / 3, "0.6666666666666666"}, {1e100, "1e+100"},
	}
	for _, tc := range tests {
		if got := pyFloat(tc.in); got != tc.want {
			t.Errorf("pyFloat(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestDistributionPercentile: Percentile reads the report's percentile
// keys by value (p50 falling back to the median of a report without it)
// and reports the others as not carried.
func TestDistributionPercentile(t *testing.T) {
	d := &DistributionSummary{Median: 7, Percentiles: Percentiles{P001: 1, P05: 2, P95: 3, P999: 4}}
	for _, tc := range []struct {
		pct  float64
		want float64
		ok   bool
	}{{0.1, 1, true}, {5, 2, true}, {95, 3, true}, {99.9, 4, true}, {50, 7, true}, {97, math.NaN(), false}} {
		got, ok := d.Percentile(tc.pct)
		if ok != tc.ok || (ok && got != tc.want) || (!ok && !math.IsNaN(got)) {
			t.Errorf("p%v: %v, %v; want %v, %v", tc.pct, got, ok, tc.want, tc.ok)
		}
	}
	p50 := Float(8)
	d.Percentiles.P50 = &p50
	if got, _ := d.Percentile(50); got != 8 {
		t.Errorf("p50 %v, want the p50 key's 8", got)
	}
	if _, ok := (*DistributionSummary)(nil).Percentile(50); ok {
		t.Error("a nil distribution carries no percentile")
	}
}
