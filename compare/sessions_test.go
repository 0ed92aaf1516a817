package compare

import (
	"bytes"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/report"
)

// withSessions gives a benchmark session figures: good is the session
// goodput share, hit the prefix-cache hit rate, and later turns' TTFT
// means by turn (turn 1, 2, …) over 10 turns each.
func withSessions(b *report.Benchmark, good, hit float64, later ...float64) *report.Benchmark {
	g, h := report.Float(good), report.Float(hit)
	x := &report.SessionExtras{Sessions: 10, Completed: 10, GoodFraction: &g, CacheHitRate: &h,
		ByTurn: []report.TurnMetrics{{Turn: 0, Requests: 10, TimeToFirstTokenMs: report.DistributionSummary{Mean: 500, Count: 10}}}}
	for i, ms := range later {
		x.ByTurn = append(x.ByTurn, report.TurnMetrics{Turn: report.Int(i + 1), Requests: 10, TimeToFirstTokenMs: report.DistributionSummary{Mean: report.Float(ms), Count: 10}})
	}
	b.Extras.Sessions = x
	return b
}

// TestSessionRows: the session rows exist only when both benchmarks ran
// sessions, gate session goodput and the hit rate in points and the later
// turns' mean TTFT (weighted by turn) in percent; a comparison without
// sessions lists neither their rows nor their limits.
func TestSessionRows(t *testing.T) {
	t.Parallel()
	base := reportOf("base", withSessions(baseSynth().benchmark(t), 0.9, 0.8, 100, 200))
	cur := reportOf("cur", withSessions(synth{seed: 3, n: 1000, ttftMs: 100, ttftSigma: 0.3, itlMs: 20, itlSigma: 0.1, goodput: 1000, throughput: 1000}.benchmark(t), 0.8, 0.78, 130, 230))
	res, err := Compare(base, cur, "base", "cur", Options{})
	if err != nil {
		t.Fatal(err)
	}
	rows := res.Pairs[0].Rows
	if r := rowOf(t, rows, MetricSessionGoodput); r.Status != StatusRegression || *r.Baseline != 0.9 || *r.Current != 0.8 {
		t.Errorf("session goodput row %+v, want a 10-point drop: regression", r)
	}
	if r := rowOf(t, rows, MetricCacheHitRate); r.Status != StatusOK {
		t.Errorf("hit rate row %+v, want a 2-point drop within 5pp: ok", r)
	}
	if r := rowOf(t, rows, MetricLaterTurnTTFT); r.Status != StatusRegression || *r.Baseline != 150 || *r.Current != 180 {
		t.Errorf("later turns' TTFT row %+v, want 150 → 180 ms (the turns' means weighted): regression", r)
	}
	if res.Pass || res.Limits[MetricSessionGoodput] != "5pp" {
		t.Errorf("pass %v, limits %v", res.Pass, res.Limits)
	}
	var txt bytes.Buffer
	if err := res.WriteText(&txt); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(txt.String(), "session_goodput -5pp") {
		t.Errorf("the text's limits lack the session rows:\n%s", txt.String())
	}

	// One side without sessions: no session row, no session limit.
	plain := reportOf("cur", baseSynth().benchmark(t))
	res, err = Compare(base, plain, "base", "cur", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Pairs[0].Rows {
		if r.Metric == MetricSessionGoodput || r.Metric == MetricLaterTurnTTFT || r.Metric == MetricCacheHitRate {
			t.Errorf("row %s without sessions on both sides", r.Metric)
		}
	}
	if _, ok := res.Limits[MetricCacheHitRate]; ok {
		t.Errorf("limits %v list a session row", res.Limits)
	}
}
