package slo

import (
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/metric"
	"github.com/goodput-dev/goodput/report"
)

func TestParseStreamingKeys(t *testing.T) {
	s, err := Parse("stall_p99=300ms, fluidity_p1=0.9, deadline_misses=2, ttft_p99=1s")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.String(), "ttft_p99=1000ms,stall_p99=300ms,fluidity_p1=0.9,deadline_misses=2"; got != want {
		t.Errorf("canonical form %q, want %q", got, want)
	}
	if !s.Streaming() || !s.NeedsDeadlines() {
		t.Error("a spec on fluidity does not ask for streams and deadlines")
	}
	th := s.Thresholds()
	if th.Ms[metric.Stall.Slot] != 300 || th.MinFluidity != 0.9 || !th.HasMaxMissed || th.MaxMissed != 2 {
		t.Errorf("thresholds %+v", th)
	}
	// allowances: ttft p99 1 %, stall p99 1 %, fluidity p1 1 %, misses 0.
	if f, explicit := s.AttainmentFloor(); explicit || f < 0.97-1e-9 || f > 0.97+1e-9 {
		t.Errorf("attainment floor %v (explicit %v), want 0.97", f, explicit)
	}
	back, err := Parse(s.String())
	if err != nil || back.String() != s.String() {
		t.Errorf("round trip: %v %v", back, err)
	}
	if s, _ := Parse("stall=200ms"); s.NeedsDeadlines() || !s.Streaming() {
		t.Error("stall alone needs no deadlines but needs streams")
	}
	for _, bad := range []string{"fluidity_max=0.9", "fluidity=0", "fluidity=1.5", "deadline_misses_min=1", "deadline_misses=-1", "fluidity_p97=0.9"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%s: no error", bad)
		} else if !strings.Contains(err.Error(), "want") {
			t.Errorf("%s: error %q does not say what is accepted", bad, err)
		}
	}
}

func TestJudgeStreamingRequest(t *testing.T) {
	th := ths(ms{metric.Stall: 100})
	th.MinFluidity, th.MaxMissed, th.HasMaxMissed = 0.8, 3, true
	// Dispatched at 1 s, chunks at +10 and +100 ms (a 90 ms stall), end +200 ms.
	const start = int64(1e9)
	chunks := func(gapMs int64) []int64 { return []int64{start + 10e6, start + 10e6 + gapMs*1e6} }
	ok := Request{Status: report.StatusSuccessful, Streamed: true, Missed: 1, Deadlines: 10,
		Timing: metric.Request{Start: start, End: start + 200e6, FirstToken: start + 10e6, LastToken: start + 100e6, OutputTokens: 2, Chunks: chunks(90)}}
	cases := []struct {
		name string
		mod  func(r *Request)
		want Verdict
	}{
		{"within", func(*Request) {}, VerdictGood},
		{"stall", func(r *Request) { r.Timing.Chunks = chunks(101) }, VerdictBad},
		{"one chunk has no stall", func(r *Request) { r.Timing.Chunks = r.Timing.Chunks[:1] }, VerdictGood},
		{"stream not measured", func(r *Request) { r.Streamed, r.Timing.FirstToken = false, 0 }, VerdictUndetermined},
		{"fluidity", func(r *Request) { r.Missed, r.Deadlines = 3, 10 }, VerdictBad},
		{"fluidity at the floor", func(r *Request) { r.Missed, r.Deadlines = 2, 10 }, VerdictGood},
		{"misses", func(r *Request) { r.Missed, r.Deadlines = 4, 100 }, VerdictBad},
		{"no deadlines", func(r *Request) { r.Missed, r.Deadlines = 0, 0 }, VerdictUndetermined},
		{"cancelled mid-stall", func(r *Request) {
			r.Status, r.Timing.End, r.Timing.Chunks = report.StatusIncomplete, start+1e9, chunks(200)
		}, VerdictBad},
		{"cancelled, smooth so far", func(r *Request) { r.Status, r.Timing.End = report.StatusIncomplete, start+1e9 }, VerdictUndetermined},
	}
	for _, c := range cases {
		r := ok
		c.mod(&r)
		if got := th.Judge(&r); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestJudgeStreamingObjectives(t *testing.T) {
	s, err := Parse("stall_max=300ms,fluidity_mean=0.9,fluidity_p1=0.5,deadline_misses_max=4")
	if err != nil {
		t.Fatal(err)
	}
	fl := report.DistributionSummary{Count: 10, Mean: 0.95, Min: 0.4, Max: 1}
	fl.Percentiles.P01 = 0.4
	b := &report.Benchmark{Extras: &report.Extras{Streaming: &report.StreamingQuality{
		LongestStallMs: &report.DistributionSummary{Count: 10, Max: 250},
		FluidityIndex:  &fl,
		DeadlineMisses: &report.DistributionSummary{Count: 10, Max: 5},
	}}}
	r := s.Judge(b, report.GoodputCounts{})
	pass := map[string]bool{}
	for _, o := range r.Objectives {
		pass[o.Key] = o.Pass
	}
	want := map[string]bool{"stall_max": true, "fluidity_mean": true, "fluidity_p1": false, "deadline_misses_max": false}
	for k, w := range want {
		if p, ok := pass[k]; !ok || p != w {
			t.Errorf("%s: pass %v (present %v), want %v", k, p, ok, w)
		}
	}
	if r.Pass {
		t.Error("benchmark passes with failing objectives")
	}
	if r := s.Judge(&report.Benchmark{Extras: &report.Extras{}}, report.GoodputCounts{}); r.Pass || !r.Objectives[0].Missing {
		t.Errorf("without streaming extras: %+v", r.Objectives)
	}
}

// The console's SLO table heads a count without a unit and shows it with
// two decimals.
func TestTableDeadlineMisses(t *testing.T) {
	r := report.NewReport("test", nil, &report.Benchmark{Extras: &report.Extras{SLO: &report.SLOResult{Spec: "deadline_misses_mean=1", Pass: true,
		Objectives: []report.ObjectiveResult{{Key: "deadline_misses_mean", Metric: "deadline_misses", Unit: "count", Measured: 0.25, Threshold: 1, Pass: true}}}}})
	var b strings.Builder
	Table(r).Render(&b)
	if out := b.String(); !strings.Contains(out, "deadline_misses_mean |") || !strings.Contains(out, "0.25") || strings.Contains(out, "deadline_misses_mean %") {
		t.Errorf("table:\n%s", out)
	}
}
