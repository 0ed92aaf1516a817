package slo

import (
	"reflect"
	"testing"

	"github.com/goodput-dev/goodput/report"
)

// The verdict's objectives give back the spec's benchmark-level
// objectives; the per-request ones are judged through the attainment.
func TestFromResult(t *testing.T) {
	s, err := Parse("ttft_p99=500ms,itl_p95=50ms,e2e_mean=2s,stall_max=300ms,deadline_misses_p90=3,error_rate=0.5%,attainment=90%,tpot=40ms")
	if err != nil {
		t.Fatal(err)
	}
	got := FromResult(s.Judge(nil, report.GoodputCounts{}))
	want, _ := Parse("ttft_p99=500ms,itl_p95=50ms,e2e_mean=2000ms,stall_max=300ms,deadline_misses_p90=3,error_rate=0.5%,attainment=90%")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("FromResult = %v, want %v", got, want)
	}
	if o, ok := got.Find(TTFT, Percentile, 99); !ok || o.Threshold != 500 {
		t.Errorf("Find(ttft p99) = %v, %v; want 500 ms", o, ok)
	}
	if _, ok := got.Find(TTFT, Percentile, 95); ok {
		t.Error("Find(ttft p95) found an objective the spec lacks")
	}
	d := FromResult(Default().Judge(nil, report.GoodputCounts{}))
	// The default's derived attainment floor is listed: 1 − (1% + 5% + 0.5%).
	if want := DefaultSpec + ",attainment=93.5%"; !d.Default || d.String() != want {
		t.Errorf("FromResult(default) = %q default=%v, want %q default=true", d, d.Default, want)
	}
	unknown := &report.SLOResult{Objectives: []report.ObjectiveResult{
		{Key: "ttft_p99", Metric: "ttft", Percentile: 99, Unit: "s", Threshold: 1},
		{Key: "queue_p99", Metric: "queue", Percentile: 99, Unit: "ms", Threshold: 1},
	}}
	if got := FromResult(unknown); len(got.Objectives) != 0 {
		t.Errorf("FromResult(unknown metric and unit) = %v, want none", got)
	}
}
