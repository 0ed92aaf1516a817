package accum

import (
	"math"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
)

// windowRecords: request i (0..9) is sent at i·1000 ms and lasts 500 ms,
// except request 1, which lasts 1200 ms (it straddles the 2 s warmup
// end). Each streams 3 chunks 100 ms apart from +100 ms. They complete
// (are added) in order.
func windowRecords() []recSpec {
	var out []recSpec
	for i := 0; i < 10; i++ {
		t0 := float64(i) * 1000
		dur := 500.0
		if i == 1 {
			dur = 1200
		}
		out = append(out, recSpec{id: uint64(i), status: record.StatusSuccessful, intended: t0, dispatched: t0,
			chunks: []float64{t0 + 100, t0 + 200, t0 + 300}, firstOut: -1, end: t0 + dur, iterations: 3,
			prompt: 10, output: 3, source: record.TokensUsage, srv: -1, cli: -1})
	}
	return out
}

func mustPhase(t *testing.T, s string) report.TransientPhase {
	t.Helper()
	p, err := report.ParseTransientPhase(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestWindowByDuration(t *testing.T) {
	// max_duration 10 s; warmup "2" = 2 s (value >= 1, prefer_duration),
	// cooldown "0.1" = 10% of 10 s = 1 s. measure_start = start + 2 s,
	// measure_end = start + 10 − 1 = 9 s. Kept (end >= 2 s and start <=
	// 9 s): request 1 (ends 2.2 s, straddles), 2..8, and 9 (starts exactly
	// at 9 s): 9 requests; request 0 (ends .5 s) is out.
	cfg := Config{Start: base, Warmup: mustPhase(t, "2"), Cooldown: mustPhase(t, "0.1"),
		Constraints: []report.Constraint{{Kind: report.ConstraintMaxDuration, Seconds: 10}}}
	b := runGolden(t, cfg, windowRecords(), BenchmarkInfo{RunID: "w", Start: base, StopTime: ms(10000)})
	sm := b.SchedulerMetrics
	checkF := func(name string, got *report.Float, want float64) {
		t.Helper()
		if math.Abs(float64(*got)-want) > 1e-9 {
			t.Errorf("%s = %v, want %v", name, *got, want)
		}
	}
	checkF("request_start_time", sm.RequestStartTime, sec(0))
	checkF("measure_start_time", sm.MeasureStartTime, sec(2000))
	checkF("measure_end_time", sm.MeasureEndTime, sec(9000))
	checkF("request_end_time (the stop time)", sm.RequestEndTime, sec(10000))
	checkF("warmup_duration", b.WarmupDuration, 2)
	checkF("cooldown_duration", b.CooldownDuration, 1)
	checkF("duration", b.Duration, 7)
	if got := b.Metrics.RequestTotals.Total; got != 9 {
		t.Errorf("in-window requests = %d, want 9", got)
	}
	// requests_per_second counts the completions inside [2, 9] s: requests
	// 1..8 (request 9 ends at 9.5 s): 8 / 7 s.
	if got := b.Metrics.RequestsPerSecond.Successful; math.Abs(float64(got.Mean)-8.0/7) > 1e-9 || got.Count != 8 {
		t.Errorf("rps mean %v count %d, want 8/7, 8", got.Mean, got.Count)
	}
	// Latency of the kept requests: 1.2 s once, .5 s eight times.
	if got := b.Metrics.RequestLatency.Successful; math.Abs(float64(got.Mean)-(1.2+8*.5)/9) > 1e-12 {
		t.Errorf("latency mean %v", got.Mean)
	}
	g := b.Extras
	if g.Requests.OutsideWindow != 1 || g.Requests.OnlineMismatch != 0 || !g.Exact {
		t.Errorf("goodput requests %+v exact %v %v", g.Requests, g.Exact, g.InexactReasons)
	}
	// The histograms use the same window: 9 requests × 2 gaps.
	if got := g.Metrics.ITLPerGapMs.Successful.Count; got != 18 {
		t.Errorf("per-gap ITL count %d, want 18", got)
	}
}

func TestWindowByRequests(t *testing.T) {
	// max_requests 10; warmup "2r" = 2 requests: the measurement starts at
	// the start of the 3rd request processed (request 2, sent at 2 s).
	// Cooldown "3r": it starts at the end of the request processed when
	// 3+1 of the 10 remained, i.e. the 6th (request 5, ends 5.5 s).
	// Kept (end >= 2 s, start <= 5.5 s): requests 1 (straddling), 2..5.
	// Without a stop time, request_end_time is the last end (9.5 s).
	cfg := Config{Start: base, Warmup: mustPhase(t, "2r"), Cooldown: mustPhase(t, "requests:3"),
		Constraints: []report.Constraint{{Kind: report.ConstraintMaxRequests, Count: 10}}}
	b := runGolden(t, cfg, windowRecords(), BenchmarkInfo{RunID: "w", Start: base})
	sm := b.SchedulerMetrics
	if *sm.MeasureStartTime != report.Float(sec(2000)) || *sm.MeasureEndTime != report.Float(sec(5500)) || *sm.RequestEndTime != report.Float(sec(9500)) {
		t.Errorf("window %v %v %v", *sm.MeasureStartTime, *sm.MeasureEndTime, *sm.RequestEndTime)
	}
	if math.Abs(float64(*b.WarmupDuration)-2) > 1e-9 || math.Abs(float64(*b.CooldownDuration)-4) > 1e-9 {
		t.Errorf("warmup %v cooldown %v, want 2 and 4", *b.WarmupDuration, *b.CooldownDuration)
	}
	if got := b.Metrics.RequestTotals.Total; got != 5 {
		t.Errorf("in-window requests = %d, want 5", got)
	}
	g := b.Extras
	// Requests 0 and 1 completed before the warmup end was known; they
	// were buffered and decided when request 2 completed.
	if g.Requests.OnlineMismatch != 0 || !g.Exact || g.Requests.OutsideWindow != 5 {
		t.Errorf("goodput requests %+v exact %v %v", g.Requests, g.Exact, g.InexactReasons)
	}
	// Gaps are all 100 ms: the buffered requests kept their own copy of
	// the chunk times (runGolden overwrites the reused record's).
	if got := g.Metrics.ITLPerGapMs.Successful; got.Count != 10 || got.Mean != 100 || got.Min != 100 {
		t.Errorf("per-gap ITL count %d mean %v min %v, want 10 requests×gaps of 100 ms", got.Count, got.Mean, got.Min)
	}
	// The report's config records the phases in GuideLLM's form.
	if got := b.Config.Warmup.String(); got != `{"percent":null,"value":2,"mode":"requests"}` {
		t.Errorf("warmup config %s", got)
	}
}

func TestWindowRequestsNeverReached(t *testing.T) {
	// A warmup of 20 requests in a benchmark of 10: the transition never
	// happens, so (as in GuideLLM) the measurement starts at the first
	// request and nothing is excluded.
	cfg := Config{Start: base, Warmup: mustPhase(t, "20r"), Constraints: []report.Constraint{{Kind: report.ConstraintMaxRequests, Count: 100}}}
	b := runGolden(t, cfg, windowRecords(), BenchmarkInfo{RunID: "w", Start: base})
	if got := b.Metrics.RequestTotals.Total; got != 10 || *b.WarmupDuration != 0 {
		t.Errorf("in-window %d warmup %v, want 10 and 0", got, *b.WarmupDuration)
	}
	if got := b.Extras.Metrics.ITLPerGapMs.Successful.Count; got != 20 {
		t.Errorf("per-gap ITL count %d, want 20", got)
	}
}

func TestTransientLimits(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	tests := []struct {
		name      string
		phase     report.TransientPhase
		maxReqs   int
		maxSecs   float64
		wantSecs  float64 // -1 = nil
		wantReqs  int     // -1 = nil
		wantError bool
	}{
		{"fraction of duration", report.TransientPhase{Percent: f(0.1)}, 0, 60, 6, -1, false},
		{"fraction falls back to requests", report.TransientPhase{Percent: f(0.1)}, 200, 0, -1, 20, false},
		{"prefer duration over requests", report.TransientPhase{Percent: f(0.1)}, 200, 60, 6, -1, false},
		{"prefer requests", report.TransientPhase{Percent: f(0.1), Mode: report.PhasePreferRequests}, 200, 60, -1, 20, false},
		{"both", report.TransientPhase{Value: f(5), Mode: report.PhaseBoth}, 200, 60, 5, 5, false},
		{"value needs a limit", report.TransientPhase{Value: f(30)}, 0, 0, -1, -1, false},
		{"value in seconds", report.TransientPhase{Value: f(30)}, 0, 120, 30, -1, false},
		{"value as requests without a duration limit", report.TransientPhase{Value: f(30)}, 500, 0, -1, 30, false},
		{"duration only ignores requests", report.TransientPhase{Value: f(30), Mode: report.PhaseDuration}, 500, 0, -1, -1, false},
		{"requests truncate", report.TransientPhase{Percent: f(0.15), Mode: report.PhaseRequests}, 10, 60, -1, 1, false},
	}
	for _, tc := range tests {
		secs, reqs := tc.phase.Limits(tc.maxReqs, tc.maxSecs)
		gotS, gotR := -1.0, -1
		if secs != nil {
			gotS = *secs
		}
		if reqs != nil {
			gotR = *reqs
		}
		if math.Abs(gotS-tc.wantSecs) > 1e-12 || gotR != tc.wantReqs {
			t.Errorf("%s: got %v s, %d requests; want %v, %d", tc.name, gotS, gotR, tc.wantSecs, tc.wantReqs)
		}
	}
}

func TestParseTransientPhase(t *testing.T) {
	tests := []struct {
		in   string
		want string // String() of the result, or an error substring
		err  bool
	}{
		{"", "none", false},
		{"none", "none", false},
		{"0", "none", false},
		{"0%", "none", false},
		{"0.1", `{"percent":0.1,"value":null,"mode":"prefer_duration"}`, false},
		{"10%", `{"percent":0.1,"value":null,"mode":"prefer_duration"}`, false},
		{"30", `{"percent":null,"value":30,"mode":"prefer_duration"}`, false},
		{"30s", `{"percent":null,"value":30,"mode":"duration"}`, false},
		{"1m30s", `{"percent":null,"value":90,"mode":"duration"}`, false},
		{"500ms", `{"percent":null,"value":0.5,"mode":"duration"}`, false},
		{"100r", `{"percent":null,"value":100,"mode":"requests"}`, false},
		{"100req", `{"percent":null,"value":100,"mode":"requests"}`, false},
		{"requests:100", `{"percent":null,"value":100,"mode":"requests"}`, false},
		{"10%r", `{"percent":0.1,"value":null,"mode":"requests"}`, false},
		{"requests:10%", `{"percent":0.1,"value":null,"mode":"requests"}`, false},
		{"duration:10%", `{"percent":0.1,"value":null,"mode":"duration"}`, false},
		{"10%d", `{"percent":0.1,"value":null,"mode":"duration"}`, false},
		{"duration:45", `{"percent":null,"value":45,"mode":"duration"}`, false},
		{`{"percent":0.2,"mode":"both"}`, `{"percent":0.2,"value":null,"mode":"both"}`, false},
		{`{"value":12.5}`, `{"percent":null,"value":12.5,"mode":"prefer_duration"}`, false},
		{"-1", "invalid warmup/cooldown", true},
		{"150%", "invalid warmup/cooldown", true},
		{"1.5r", "whole number", true},
		{"0.5r", "10%r", true},
		{"abc", "accepted:", true},
		{"-5s", "invalid", true},
		{`{"percent":1.5}`, "percent must be in [0, 1)", true},
		{`{"mode":"sometimes"}`, "mode must be one of", true},
		{`{"pct":0.1}`, "unknown field", true},
	}
	for _, tc := range tests {
		p, err := report.ParseTransientPhase(tc.in)
		switch {
		case tc.err && err == nil:
			t.Errorf("%q: no error, want one containing %q", tc.in, tc.want)
		case tc.err && (!strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n")):
			t.Errorf("%q: error %q, want one line containing %q", tc.in, err, tc.want)
		case !tc.err && err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case !tc.err && p.String() != tc.want:
			t.Errorf("%q: got %s, want %s", tc.in, p.String(), tc.want)
		}
	}
}

// The records of a warmup phase (record.Warmup, AIPerf's) are outside the
// window, which starts where the measured phase started: given, or else
// at the earliest measured request. Warmup requests 0 and 1 are sent at 0
// and 500 ms, the measured ones at 1000, 1500 and 2000 ms; each lasts
// 500 ms, so the window is [1000, 2500] ms and the warmup took 1 s.
func TestWindowWarmupPhase(t *testing.T) {
	var specs []recSpec
	for i := 0; i < 5; i++ {
		t0 := float64(i) * 500
		specs = append(specs, recSpec{id: uint64(i + 1), status: record.StatusSuccessful, intended: t0, dispatched: t0,
			chunks: []float64{t0 + 100, t0 + 200}, firstOut: -1, end: t0 + 500, iterations: 2, prompt: 10, output: 2,
			source: record.TokensUsage, srv: -1, cli: -1, warmup: i < 2})
	}
	for name, info := range map[string]BenchmarkInfo{
		"measure start given":   {RunID: "w", Start: base, StopTime: ms(2500), MeasureStart: ms(1000)},
		"measure start derived": {RunID: "w", Start: base, StopTime: ms(2500)},
	} {
		t.Run(name, func(t *testing.T) {
			b := runGolden(t, Config{Start: base}, specs, info)
			if got := float64(*b.SchedulerMetrics.MeasureStartTime); math.Abs(got-sec(1000)) > 1e-9 {
				t.Errorf("measure_start_time %v, want %v", got, sec(1000))
			}
			if *b.WarmupDuration != 1 || math.Abs(float64(*b.Duration)-1.5) > 1e-9 {
				t.Errorf("warmup_duration %v, duration %v; want 1 and 1.5", *b.WarmupDuration, *b.Duration)
			}
			if n := b.Metrics.RequestTotals.Successful; n != 3 {
				t.Errorf("successful in window %d, want the 3 measured", n)
			}
			if rq := b.Extras.Requests; rq.OutsideWindow != 2 || rq.InWindow != 3 {
				t.Errorf("requests %+v", rq)
			}
		})
	}
}
