package slo

import (
	"reflect"
	"strings"
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

// A spec built from objectives is the one its text parses to; New checks
// what Parse checks.
func TestNew(t *testing.T) {
	s, err := New(Objective{Metric: ITL, Threshold: 40}, Objective{Metric: Attainment, Threshold: 0.99}, Objective{Metric: TTFT, Threshold: 300})
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := Parse("ttft=300ms,itl=40ms,attainment=99%"); !reflect.DeepEqual(s, want) {
		t.Errorf("New = %v, want %v", s, want)
	}
	for _, tc := range []struct {
		objs []Objective
		want string
	}{
		{[]Objective{{Metric: ITL, Threshold: 40}, {Metric: ITL, Threshold: 50}}, "itl is given twice"},
		{[]Objective{{Metric: E2E, Threshold: 1e9}}, "e2e: the threshold 1e+09 ms is out of range (1ns to 24h)"},
		{[]Objective{{Metric: Attainment}}, "attainment: 0: want a share of good requests 0 < x ≤ 1"},
		{[]Objective{{Metric: TTFT, Stat: Percentile, Percentile: 100, Threshold: 1}}, "ttft_p100: percentile 100: want 0 < p < 100"},
		{[]Objective{{Metric: "queue", Threshold: 1}}, `queue: unknown metric "queue"`},
	} {
		if _, err := New(tc.objs...); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("New(%v) = %v, want %q", tc.objs, err, tc.want)
		}
	}
}
