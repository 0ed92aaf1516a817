package metric

import "testing"

func TestByKey(t *testing.T) {
	for i, l := range All {
		if l.Slot != i {
			t.Errorf("%s: slot %d, want %d", l.Label, l.Slot, i)
		}
		if l.Key != "" {
			if got, ok := ByKey(l.Key); !ok || got != l {
				t.Errorf("ByKey(%q) = %+v, %v; want %+v", l.Key, got, ok, l)
			}
		}
		if l.Field == "" || l.Hist == "" || l.Label == "" || l.Value == nil || (l.Unit != "ms" && l.Unit != "s") {
			t.Errorf("%s: incomplete row %+v", l.Key, l)
		}
	}
	if got := len(Latencies); got != 4 || Latencies[0] != TTFT || Latencies[3] != E2E {
		t.Errorf("Latencies = %v; want ttft, itl, tpot, e2e", Latencies)
	}
	if _, ok := ByKey("latency"); ok {
		t.Error(`ByKey("latency") found a metric`)
	}
	if _, ok := ByKey(""); ok {
		t.Error(`ByKey("") found a metric`)
	}
	if l, ok := ByName("latency"); !ok || l != E2E {
		t.Errorf(`ByName("latency") = %v, %v; want e2e`, l, ok)
	}
	if E2E.ToMs() != 1000 || TTFT.ToMs() != 1 || E2E.Scale() != 1e9 || TTFT.Scale() != 1e6 {
		t.Errorf("ToMs: e2e %v, ttft %v; want 1000, 1", E2E.ToMs(), TTFT.ToMs())
	}
}

// TestValues: each row's value of one hand-built request (times in ns from
// dispatch at 1000): first token +100, second chunk +130, last +400, end
// +500, 5 output tokens, intended 990.
func TestValues(t *testing.T) {
	r := &Request{Start: 1000, End: 1500, FirstToken: 1100, LastToken: 1400, FirstOutputToken: 1130, Intended: 990,
		OutputTokens: 5, Chunks: []int64{1100, 1130, 1250, 1400}}
	want := map[*Latency]float64{
		TTFT: 100, TTFOT: 130, TTST: 130, ITL: 75, TPOT: 80, E2E: 500, Stall: 150,
		Lateness: 10, ScheduledTTFT: 110, ScheduledLatency: 510,
	}
	for _, l := range All {
		v, ok := l.Value(*r)
		if !ok || v != want[l] {
			t.Errorf("%s = %v, %v; want %v", l.Label, v, ok, want[l])
		}
	}
	// Never dispatched: only the schedule's figures and ITL remain.
	r.Start = 0
	for _, l := range All {
		_, ok := l.Value(*r)
		if wantOK := l == ITL || l == Stall || l == ScheduledTTFT || l == ScheduledLatency; ok != wantOK {
			t.Errorf("undispatched %s: ok %v, want %v", l.Label, ok, wantOK)
		}
	}
	if ITL.Samples(5) != 4 || TPOT.Samples(5) != 5 || TTFT.Samples(5) != 1 || ITL.Samples(-1) != 0 || TPOT.Samples(-1) != 0 {
		t.Error("Samples: want itl 4, tpot 5, ttft 1 for 5 tokens; 0 for unknown tokens")
	}
}
