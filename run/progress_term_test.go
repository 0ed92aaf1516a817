package run

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/vbauerster/mpb/v8"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/sweep"
)

// The figures under the bar fit the width they get: the long words in
// 100 columns, the short ones in 80, cut with "…" narrower still.
func TestProgressFigures(t *testing.T) {
	snap := liveSnapshot{ReqPerS: 1234.5, InFlight: 10000, Completed: 1234567, Errored: 12345, TTFTP50ms: 12345, TTFTP99ms: 123456, OutTokPerS: 1234567}
	long := "  1234.5 req/s  in-flight 10000  ok 1234567  err 12345  TTFT p50/p99 12345/123456 ms  1234567 out tok/s"
	short := "  1234.5 req/s  run 10000  ok 1234567  err 12345  TTFT 12345/123456 ms  1234567 tok/s"
	for _, c := range []struct {
		cols int
		want string
	}{{120, long}, {100, short}, {80, short[:79] + "…"}} {
		if got := progressFigures(snap, c.cols); got != c.want {
			t.Errorf("%d columns:\n%q\nwant\n%q", c.cols, got, c.want)
		}
	}
	small := liveSnapshot{ReqPerS: 12.5, InFlight: 8, Completed: 120, Errored: 1, TTFTP50ms: 45, TTFTP99ms: 120, OutTokPerS: 3456}
	if got, want := progressFigures(small, 80), "  12.5 req/s  in-flight 8  ok 120  err 1  TTFT p50/p99 45/120 ms  3456 out tok/s"; got != want {
		t.Errorf("80 columns, small figures:\n%q\nwant\n%q", got, want)
	}
}

// In an 80-column terminal the bar stays: its line holds the round, the
// time and the bar, and the figures go on the line below.
func TestTermProgress80Columns(t *testing.T) {
	client, err := loadgen.NewClient(loadgen.ClientConfig{Target: "http://127.0.0.1:1", Model: "m"}, loadgen.NewClock())
	if err != nil {
		t.Fatal(err)
	}
	engine := loadgen.NewEngine(client)
	live := newLiveStats(engine, 3)
	var out bytes.Buffer
	tp := newTermProgress(&out, live, mpb.WithAutoRefresh())
	s := loadgen.Strategy{Kind: loadgen.Constant, Rate: 1000}
	tp.BenchmarkStart(1, s, loadgen.Constraints{MaxDuration: 10 * time.Minute}, engine.Clock().Now())
	r := record.New()
	r.Status = record.StatusSuccessful
	tp.Record(r)
	tp.BenchmarkEnd(1, sweep.Round{Strategy: s})
	tp.Close()
	text := out.String()
	var bar, figures bool
	for _, line := range strings.Split(text, "\n") {
		if n := utf8.RuneCountInString(line); n > progressCols {
			t.Errorf("line %d columns wide: %q", n, line)
		}
		bar = bar || (strings.Contains(line, "round 2/3 constant") && strings.Contains(line, "[") && strings.Contains(line, "]"))
		figures = figures || strings.Contains(line, "req/s") && strings.Contains(line, "in-flight 0")
	}
	if !bar || !figures {
		t.Errorf("want a bar line and a figures line:\n%s", text)
	}
}

// A warmup phase's records are not the benchmark's progress: the request
// limit and the time count from the measured phase's first request.
func TestLiveStatsSkipWarmup(t *testing.T) {
	client, err := loadgen.NewClient(loadgen.ClientConfig{Target: "http://127.0.0.1:1", Model: "m"}, loadgen.NewClock())
	if err != nil {
		t.Fatal(err)
	}
	engine := loadgen.NewEngine(client)
	live := newLiveStats(engine, 1)
	start := engine.Clock().Now()
	live.begin(0, loadgen.Strategy{Kind: loadgen.Concurrent, Streams: 1}, loadgen.Constraints{MaxRequests: 4}, start)
	for i, warm := range []bool{true, true, false} {
		r := record.New()
		r.Status, r.Warmup, r.Dispatched = record.StatusSuccessful, warm, start+int64(i+1)*int64(time.Hour)
		live.add(r)
	}
	s := live.snapshot()
	if s.Completed != 1 || s.RemainingRequests != 3 || !live.start.Equal(engine.Clock().Time(start+3*int64(time.Hour))) {
		t.Errorf("completed %d, remaining %d, start %v; want 1, 3 and the measured request's start", s.Completed, s.RemainingRequests, live.start)
	}
}
