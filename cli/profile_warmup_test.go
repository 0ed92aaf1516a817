package cli

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/clitest"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
)

// warmupRun runs goodput profile against the mock and returns its report
// and its records split into the warmup's and the measured ones; the
// artifacts are in dir.
func warmupRun(t *testing.T, dir string, args ...string) (rep *report.Report, warm, measured []*record.Record, stderr string) {
	t.Helper()
	url := clitest.Mock(t, nil)
	base := []string{"profile", "--url", url, "--model", "goodput-mock", "--artifact-dir", dir, "--ui-type", "none", "--no-server-metrics",
		"--endpoint-type", "chat", "--streaming"}
	if !strings.Contains(strings.Join(args, " "), "--input-file") {
		base = append(base, "--isl", "16", "--osl", "4")
	}
	code, _, stderr := runGoodput(t, append(base, args...)...)
	if code != ExitOK {
		t.Fatalf("%q: exit %d: %s", args, code, stderr)
	}
	for _, r := range clitest.ReadRecords(t, filepath.Join(dir, "goodput.jsonl")) {
		if r.Warmup {
			warm = append(warm, r)
		} else {
			measured = append(measured, r)
		}
	}
	return clitest.ReadReport(t, filepath.Join(dir, "goodput.json")), warm, measured, stderr
}

// lastEnd is the latest end of the records.
func lastEnd(recs []*record.Record) int64 {
	var end int64
	for _, r := range recs {
		end = max(end, r.End)
	}
	return end
}

// AIPerf's time-based tutorial: --warmup-request-count with
// --benchmark-duration. The 3 warmup requests run first, under the
// profiling phase's 5 streams, all answered; the 0.5 s duration counts
// from their end; they stay out of the figures and the AIPerf export.
func TestProfileWarmupBeforeDuration(t *testing.T) {
	dir := t.TempDir()
	rep, warm, measured, _ := warmupRun(t, dir, "--benchmark-duration", "0.5", "--benchmark-grace-period", "1", "--concurrency", "5", "--warmup-request-count", "3")
	if len(warm) != 3 || len(measured) == 0 {
		t.Fatalf("%d warmup and %d measured records", len(warm), len(measured))
	}
	end := lastEnd(warm)
	for _, r := range warm {
		if r.Status != record.StatusSuccessful {
			t.Errorf("warmup request %s/%s", r.Status, r.ErrorClass)
		}
	}
	b := rep.Benchmarks[0]
	ms := float64(*b.SchedulerMetrics.MeasureStartTime)
	if ms < float64(end)/1e9-1e-6 {
		t.Errorf("measure start %v before the warmup's last end %v", ms, float64(end)/1e9)
	}
	for _, r := range measured {
		if r.Dispatched < end {
			t.Errorf("a measured request was sent at %d, before the warmup ended at %d", r.Dispatched, end)
		}
		// Sent within the 0.5 s counted from the warmup's end.
		if off := float64(r.Dispatched)/1e9 - ms; off > 0.5+0.2 {
			t.Errorf("a measured request was sent %.3f s after the measured phase began, past --benchmark-duration 0.5", off)
		}
	}
	w := b.Extras.WarmupPhase
	if w == nil || w.MaxRequests != 3 || w.Successful != 3 || w.Strategy.Streams != 5 || w.StopReason != "max_requests" {
		t.Fatalf("warmup phase %+v", w)
	}
	if got := b.Extras.Requests.OutsideWindow; got != 3 || int(b.Metrics.RequestTotals.Total) != len(measured) {
		t.Errorf("outside the window %d, in it %d; want the 3 warmup requests out and the %d measured in", got, b.Metrics.RequestTotals.Total, len(measured))
	}
	x := clitest.ReadAIPerf(t, filepath.Join(dir, "profile_export_aiperf.json"))
	if n := clitest.MetricAvg(t, x, "request_count"); int(n) != len(measured) || x.Goodput.OutsideWindow != 3 || !x.Goodput.Exact {
		t.Errorf("AIPerf export: request_count %v, provenance %+v; want %d, the warmup outside", n, x.Goodput, len(measured))
	}
}

// A trace with a warmup: the warmup sends 2 requests under --concurrency,
// then the whole trace is replayed on its timestamps (0, 100, 200 ms),
// from the warmup's end.
func TestProfileWarmupTrace(t *testing.T) {
	trace := writeFile(t, "trace.jsonl", `{"timestamp": 0, "input_length": 12, "output_length": 4, "hash_ids": [1]}
{"timestamp": 100, "input_length": 12, "output_length": 4, "hash_ids": [2]}
{"timestamp": 200, "input_length": 12, "output_length": 4, "hash_ids": [3]}
`)
	_, warm, measured, _ := warmupRun(t, t.TempDir(), "--input-file", trace, "--custom-dataset-type", "mooncake_trace", "--concurrency", "2", "--warmup-request-count", "2")
	if len(warm) != 2 || len(measured) != 3 {
		t.Fatalf("%d warmup and %d measured records, want 2 and the trace's 3", len(warm), len(measured))
	}
	first := measured[0].Intended
	for _, r := range measured {
		first = min(first, r.Intended)
	}
	if first < lastEnd(warm) {
		t.Errorf("the replay began at %d, before the warmup ended at %d", first, lastEnd(warm))
	}
	seen := map[time.Duration]bool{}
	for _, r := range measured {
		seen[time.Duration(r.Intended-first)] = true
	}
	for _, off := range []time.Duration{0, 100 * time.Millisecond, 200 * time.Millisecond} {
		if !seen[off] {
			t.Errorf("no request intended at %v of the replay; intended offsets %v", off, seen)
		}
	}
}

// The warmup's own load: --warmup-request-rate 100 at the profiling
// phase's constant pattern sends its 5 requests 10 ms apart, then the
// profiling phase's 4 requests go 50 ms apart (20/s).
func TestProfileWarmupOwnRate(t *testing.T) {
	_, warm, measured, _ := warmupRun(t, t.TempDir(), "--request-rate", "20", "--arrival-pattern", "constant", "--request-count", "4",
		"--warmup-request-rate", "100", "--warmup-request-count", "5")
	if len(warm) != 5 || len(measured) != 4 {
		t.Fatalf("%d warmup and %d measured records", len(warm), len(measured))
	}
	gaps := func(recs []*record.Record, want time.Duration) {
		t.Helper()
		first := recs[0].Intended
		for _, r := range recs {
			first = min(first, r.Intended)
		}
		for _, r := range recs {
			if off := time.Duration(r.Intended - first); off%want != 0 || off > 4*want {
				t.Errorf("intended offset %v: want a multiple of %v", off, want)
			}
		}
	}
	gaps(warm, 10*time.Millisecond)
	gaps(measured, 50*time.Millisecond)
}

// A YAML config's warmup phase has its own load: a constant rate of 100/s
// for 4 requests before a concurrency profiling phase.
func TestProfileWarmupConfigPhase(t *testing.T) {
	config := writeFile(t, "warm.yaml", `schemaVersion: "2.0"
benchmark:
  model: goodput-mock
  phases:
    - {name: warmup, type: constant, rate: 100, requests: 4}
    - {name: profiling, type: concurrency, concurrency: 2, requests: 3}
`)
	rep, warm, measured, _ := warmupRun(t, t.TempDir(), "--config", config)
	if len(warm) != 4 || len(measured) != 3 {
		t.Fatalf("%d warmup and %d measured records", len(warm), len(measured))
	}
	if w := rep.Benchmarks[0].Extras.WarmupPhase; w == nil || w.Strategy.Type != report.StrategyConstant || w.Strategy.Rate != 100 {
		t.Errorf("warmup phase %+v", w)
	}
}

// Warmup options that conflict are one-line usage errors naming both;
// load options without a warmup length are ignored, as AIPerf does, and
// the run says so once on stderr and in the report.
func TestProfileWarmupConflicts(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--warmup-request-count", "3", "--warmup-grace-period", "5"}, "--warmup-grace-period needs --warmup-duration"},
		{[]string{"--warmup-grace-period", "5"}, "--warmup-grace-period needs --warmup-duration"},
		{[]string{"--warmup-request-count", "3", "--warmup-request-rate-ramp-duration", "5"}, "--warmup-request-rate-ramp-duration needs a warmup rate"},
		{[]string{"--warmup-duration", "3", "--warmup-grace-period", "-1"}, `--warmup-grace-period "-1": want seconds ≥ 0 or inf`},
		{[]string{"--streaming", "--concurrency", "4", "--warmup-request-count", "3", "--warmup-concurrency", "2", "--warmup-prefill-concurrency", "3"},
			"--warmup-prefill-concurrency 3 is more than the warmup's concurrency 2"},
		{[]string{"--warmup-request-count", "3", "--warmup-prefill-concurrency-ramp-duration", "2"}, "--warmup-prefill-concurrency-ramp-duration needs --warmup-prefill-concurrency or --prefill-concurrency"},
	} {
		code, _, stderr := runGoodput(t, append([]string{"profile", "--url", "http://127.0.0.1:1", "--model", "m", "--artifact-dir", t.TempDir()}, c.args...)...)
		if line := strings.TrimSpace(stderr); code != ExitUsage || strings.Contains(line, "\n") || !strings.Contains(line, c.want) {
			t.Errorf("%q: exit %d, %q; want exit 2 and one line with %q", c.args, code, stderr, c.want)
		}
	}
	for _, c := range []struct {
		args []string
		warm int
		note string
	}{
		{[]string{"--request-count", "2", "--warmup-concurrency", "4"}, 0,
			"--warmup-concurrency ignored: no warmup phase without --warmup-request-count, --warmup-duration or --num-warmup-sessions"},
		{[]string{"--request-count", "2", "--warmup-request-count", "1", "--warmup-arrival-pattern", "constant"}, 1,
			"--warmup-arrival-pattern ignored: the warmup has no rate"},
		{[]string{"--request-rate", "50", "--request-count", "2", "--warmup-request-count", "1", "--warmup-concurrency-ramp-duration", "2"}, 1,
			"--warmup-concurrency-ramp-duration ignored: with a warmup rate it ramps the in-flight cap"},
	} {
		rep, warm, _, stderr := warmupRun(t, t.TempDir(), c.args...)
		if len(warm) != c.warm || strings.Count(stderr, c.note) != 1 || rep.Run == nil || len(rep.Run.Notes) != 1 || !strings.HasPrefix(rep.Run.Notes[0], c.note) {
			t.Errorf("%q: %d warmup records, stderr %q, report %+v; want %d and the note %q once", c.args, len(warm), stderr, rep.Run, c.warm, c.note)
		}
	}
}

// --num-warmup-sessions with conversations: 2 sessions of 3 turns each,
// every turn sent, before the 4 measured conversations.
func TestProfileWarmupSessions(t *testing.T) {
	_, warm, measured, _ := warmupRun(t, t.TempDir(), "--conversation-num", "4", "--conversation-turn-mean", "3", "--num-warmup-sessions", "2", "--concurrency", "2")
	sessions := map[string]int{}
	for _, r := range warm {
		sessions[r.Session.ID]++
	}
	if len(warm) != 6 || len(sessions) != 2 || len(measured) != 12 {
		t.Fatalf("%d warmup records in sessions %v, %d measured; want 2 sessions of 3 turns, then 4 of 3", len(warm), sessions, len(measured))
	}
	for id, n := range sessions {
		if n != 3 {
			t.Errorf("warmup session %s: %d turns, want 3", id, n)
		}
	}
}
