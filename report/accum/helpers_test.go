package accum

import (
	"math"
	"testing"

	"github.com/goodput-dev/goodput/report"
)

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
