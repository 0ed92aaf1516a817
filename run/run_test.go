package run

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/dataset"
	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/scorecard/measure"
	"github.com/goodput-dev/goodput/slo"
	"github.com/goodput-dev/goodput/sweep"
	"github.com/goodput-dev/goodput/tokenize"
)

// After a knee search, the profile lists the loads run.
func TestFinalProfile(t *testing.T) {
	k := sweep.KneeSearch{Axis: sweep.AxisConcurrency, Start: 4, Factor: 2, Tolerance: 0.05, MaxRounds: 8, MaxConcurrency: 256}
	prof := k.Profile(nil)
	rounds := []sweep.Round{{Strategy: loadgen.Strategy{Kind: loadgen.Concurrent, Streams: 4}}, {Strategy: loadgen.Strategy{Kind: loadgen.Concurrent, Streams: 12}}}
	if fp := finalProfile(&Plan{Search: &k, Profile: prof}, rounds); !slices.Equal(fp.Streams, []int{4, 12}) {
		t.Errorf("final profile %+v", fp)
	}
	list := report.Profile{Kind: "concurrent", Streams: []int{1}}
	if fp := finalProfile(&Plan{Profile: list}, rounds); !slices.Equal(fp.Streams, []int{1}) {
		t.Errorf("a list's profile changed: %+v", fp)
	}
}

func TestPrintKnee(t *testing.T) {
	var b bytes.Buffer
	printKnee(&b, nil)
	if b.Len() != 0 {
		t.Errorf("nil knee printed %q", b.String())
	}
	k := &report.Knee{Found: true, Mode: sweep.ModeKneeConcurrency, Index: 7, Below: 6, Above: 9, Rate: 12.5, Streams: 24, Concurrency: 23.9,
		GoodputOutputTokS: 3330, ThroughputOutputTokS: 3400, TTFTP99Ms: 460, ITLP95Ms: 24, TargetLoadTokS: 20000, Replicas: 7,
		Reason: "The SLO holds at concurrency 24 (benchmark 7) and breaks at concurrency 25 (benchmark 9): bracketed within 4.17%."}
	printKnee(&b, k)
	want := "Knee (knee-concurrency): benchmark 7: goodput 3330.0 tok/s of 3400.0 tok/s throughput, 12.50 req/s, concurrency 23.90, TTFT P99 460.0 ms, ITL P95 24.0 ms.\n" +
		"  The SLO breaks above it at benchmark 9.\n" +
		"  The SLO holds at concurrency 24 (benchmark 7) and breaks at concurrency 25 (benchmark 9): bracketed within 4.17%.\n" +
		"  Replicas for 20000.0 tok/s: 7 (target ÷ goodput at the knee, rounded up).\n"
	if b.String() != want {
		t.Errorf("printKnee:\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	printKnee(&b, &report.Knee{Mode: sweep.ModeKneeRate, Index: -1, Below: -1, Above: 0, Limit: "",
		Reason: "The SLO fails at the first load, 1 req/s (benchmark 0): start lower.", TargetLoadTokS: 100})
	want = "No knee (knee-rate).\n  The SLO fails at the first load, 1 req/s (benchmark 0): start lower.\n" +
		"  Replicas for 100.0 tok/s: unknown (no load held the SLO with a goodput above 0).\n"
	if b.String() != want {
		t.Errorf("printKnee:\n%s\nwant\n%s", b.String(), want)
	}
}

// Run drives a whole run from a typed Config, no flags involved: the
// rounds of the plan, judged by the SLO, written where Outputs says.
func TestRunFromConfig(t *testing.T) {
	cfg := mock.DefaultConfig()
	cfg.TTFT, cfg.TTFTStdev, cfg.ITL, cfg.ITLStdev = 5*time.Millisecond, 0, time.Millisecond, 0
	srv, err := mock.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	spec := dataset.Spec{Prompt: dataset.Dist{Mean: 16}, Output: dataset.Dist{Mean: 4}}
	tok, err := tokenize.Builtin("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	opts := dataset.Options{Tokenizer: tok, Seed: 1, TimeScale: 1}
	data, err := dataset.OpenSynthetic(spec, opts)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	objective := slo.Default()
	c := &Config{
		Client: loadgen.ClientConfig{Target: srv.URL(), Endpoint: loadgen.EndpointChat, ConnectTimeout: time.Second, StallTimeout: -1, RequestTimeout: -1},
		Data:   Data{Synthetic: &spec, Options: opts, Opened: data},
		Plan: Plan{
			Planner:     sweep.List{{Kind: loadgen.Concurrent, Streams: 2}, {Kind: loadgen.Constant, Rate: 50}},
			Profile:     report.Profile{Kind: "concurrent", Streams: []int{2}},
			Constraints: loadgen.Constraints{MaxRequests: 6}, Seed: 1,
		},
		SLO:       objective,
		Telemetry: measure.Config{ServerMetrics: measure.ServerMetricsOff, Interval: time.Second, PUE: 1},
		Outputs:   Outputs{Dir: dir, RunID: "r1", Kinds: map[string]bool{"json": true, "jsonl": true}},
		Metadata:  Metadata{ProbeTimeout: time.Second},
		Progress:  Progress{Disable: true, LogFormat: "console", Interval: time.Second},
		Build:     Build{Version: "test", Commit: "abc"},
	}
	var out, errb bytes.Buffer
	rep, err := Run(context.Background(), c, Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, errb.String())
	}
	if len(rep.Benchmarks) != 2 || rep.Run.RunID != "r1" || rep.Run.SLO == nil || rep.Run.SLO.Spec != objective.String() {
		t.Fatalf("report: %d benchmarks, extras %+v", len(rep.Benchmarks), rep.Run)
	}
	// Plan.SampleRequests 0 keeps every request record (GuideLLM's
	// sample_size null), and the report says null.
	for i, b := range rep.Benchmarks {
		if n := len(b.Requests.Successful) + len(b.Requests.Errored) + len(b.Requests.Incomplete); n != 6 || b.Config.SampleSize != nil {
			t.Errorf("benchmark %d: %d request records, sample_size %v; want all 6, null", i, n, b.Config.SampleSize)
		}
	}
	for _, f := range []string{"benchmarks.json", "requests.jsonl"} {
		if _, err := os.Stat(filepath.Join(dir, "r1", f)); err != nil {
			t.Error(err)
		}
	}
	if out.Len() != 0 {
		t.Errorf("no console output was asked for, got:\n%s", out.String())
	}
}

// A run whose plan has a Drain reads the queue gauges from the server
// metrics the telemetry samples: against a mock that works on after its
// client left, the second round waits by the gauges, and with a bound too
// short it starts busy, is marked so and is warned about on stderr.
func TestRunDrainsByServerGauges(t *testing.T) {
	cfg := mock.DefaultConfig()
	cfg.NoAbort = true
	cfg.TTFT, cfg.TTFTStdev, cfg.ITL, cfg.ITLStdev, cfg.OutputTokensStdev = 100*time.Millisecond, 0, 50*time.Millisecond, 0, 0
	srv, err := mock.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	// 40 tokens at 50 ms after a 100 ms TTFT: 2.1 s per request; a 300 ms
	// round cuts its requests with about 1.8 s to go, of which the end of
	// the round (its last telemetry scrape waits up to the 1 s interval)
	// takes some before the drain starts.
	spec := dataset.Spec{Prompt: dataset.Dist{Mean: 16}, Output: dataset.Dist{Mean: 40}}
	opts := dataset.Options{Seed: 1, TimeScale: 1}
	run := func(metrics measure.ServerMetrics, maxDrain time.Duration) (*report.Report, string) {
		c := &Config{
			Client: loadgen.ClientConfig{Target: srv.URL(), Endpoint: loadgen.EndpointChat, ConnectTimeout: time.Second, StallTimeout: -1, RequestTimeout: -1},
			Data:   Data{Synthetic: &spec, Options: opts},
			Plan: Plan{
				Planner:     sweep.List{{Kind: loadgen.Concurrent, Streams: 4}, {Kind: loadgen.Concurrent, Streams: 4}},
				Profile:     report.Profile{Kind: "concurrent", Streams: []int{4, 4}},
				Constraints: loadgen.Constraints{MaxDuration: 300 * time.Millisecond}, Seed: 1,
				Drain: &sweep.Drain{Max: maxDrain, Poll: 20 * time.Millisecond},
			},
			SLO:       slo.Default(),
			Telemetry: measure.Config{ServerMetrics: metrics, Interval: time.Second, PUE: 1},
			Outputs:   Outputs{Kinds: map[string]bool{}},
			Metadata:  Metadata{ProbeTimeout: time.Second},
			Progress:  Progress{Disable: true, LogFormat: "console", Interval: time.Second},
			Build:     Build{Version: "test", Commit: "abc"},
		}
		var out, errb bytes.Buffer
		rep, err := Run(context.Background(), c, Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }})
		if err != nil || len(rep.Benchmarks) != 2 {
			t.Fatalf("%v\nstderr:\n%s", err, errb.String())
		}
		return rep, errb.String()
	}
	rep, stderr := run(measure.ServerMetricsOn, 10*time.Second)
	w := rep.Benchmarks[1].Extras.Drain
	if w == nil || w.Method != report.DrainGauges || w.Busy || w.WaitedS < 0.2 {
		t.Errorf("drain after a cut round: %+v; want a wait by the gauges of about 1.5 s", w)
	}
	if strings.Contains(stderr, "busy server") {
		t.Errorf("warned of a busy round:\n%s", stderr)
	}
	rep, stderr = run(measure.ServerMetricsOn, 50*time.Millisecond)
	w = rep.Benchmarks[1].Extras.Drain
	if w == nil || w.Method != report.DrainGauges || !w.Busy || w.Running == nil || *w.Running == 0 {
		t.Errorf("bounded drain after a cut round: %+v; want busy with requests running", w)
	}
	if want := "WARNING: benchmark 1 (concurrent@4) started on a busy server"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	// With server metrics off nothing but the load is sent: the drain
	// waits by the previous round's latency.
	rep, _ = run(measure.ServerMetricsOff, 10*time.Second)
	if w := rep.Benchmarks[1].Extras.Drain; w == nil || w.Method != report.DrainLatency || w.Busy || w.WaitedS < 0.2 {
		t.Errorf("drain without server metrics: %+v; want a wait by the previous round's latency", w)
	}
}

// The run's diagnostics on stderr are wrapped to the console's width as
// they are written, a line once it is whole; flush writes the rest.
func TestFitLines(t *testing.T) {
	var b bytes.Buffer
	f := &fitLines{w: &b, cols: 40}
	long := "WARNING: benchmark 8 (concurrent@11): the load generator was saturated; its latency figures are unreliable."
	_, _ = io.WriteString(f, long[:30])
	if b.Len() != 0 {
		t.Fatalf("a partial line was written: %q", b.String())
	}
	_, _ = io.WriteString(f, long[30:]+"\nshort\ntail")
	want := "WARNING: benchmark 8 (concurrent@11):\n" +
		"  the load generator was saturated; its\n" +
		"  latency figures are unreliable.\n" +
		"short\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	f.flush()
	if got := strings.TrimPrefix(b.String(), want); got != "tail" {
		t.Errorf("flush wrote %q, want the partial line %q", got, "tail")
	}
}

// A log line's tabs become the spaces a terminal shows before it is
// wrapped.
func TestFitLinesTabs(t *testing.T) {
	var b bytes.Buffer
	f := &fitLines{w: &b, cols: 30}
	_, _ = io.WriteString(f, "2026-12-06T05:29:19Z\tINFO\trun\t{\"run_id\": \"r1\", \"target\": \"http://h\"}\n")
	want := "2026-12-06T05:29:19Z    INFO\n" +
		"  run     {\"run_id\": \"r1\",\n" +
		"  \"target\": \"http://h\"}\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
