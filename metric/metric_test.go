package metric

import "testing"

func TestByKey(t *testing.T) {
	for _, l := range Latencies {
		got, ok := ByKey(l.Key)
		if !ok || got != l {
			t.Errorf("ByKey(%q) = %+v, %v; want %+v", l.Key, got, ok, l)
		}
		if l.Field == "" || l.Hist == "" || (l.Unit != "ms" && l.Unit != "s") {
			t.Errorf("%s: incomplete row %+v", l.Key, l)
		}
	}
	if _, ok := ByKey("latency"); ok {
		t.Error(`ByKey("latency") found a metric`)
	}
	if E2E.ToMs() != 1000 || TTFT.ToMs() != 1 {
		t.Errorf("ToMs: e2e %v, ttft %v; want 1000, 1", E2E.ToMs(), TTFT.ToMs())
	}
}
