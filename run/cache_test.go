package run

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/dataset"
	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/scorecard/measure"
	"github.com/goodput-dev/goodput/sweep"
)

// A rerun with the same seed against the same mock (prefix cache on,
// blocks of 16 tokens) is served from the cache: the report counts the
// cached tokens and the run warns once, on stderr and in its notes. A
// salted rerun sends other prompts of the same lengths: nothing cached,
// no warning. The first run finds the cache cold.
func TestCacheWarmRerunAndSalt(t *testing.T) {
	mc := mock.DefaultConfig()
	mc.TTFT, mc.TTFTStdev, mc.ITL, mc.ITLStdev = time.Millisecond, 0, time.Millisecond, 0
	srv, err := mock.New(mc)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	spec := dataset.Spec{Prompt: dataset.Dist{Mean: 128}, Output: dataset.Dist{Mean: 4}}
	run := func(salt uint64) (*report.Report, string) {
		t.Helper()
		c := &Config{
			Client: loadgen.ClientConfig{Target: srv.URL(), Endpoint: loadgen.EndpointChat, ConnectTimeout: time.Second, StallTimeout: -1, RequestTimeout: -1},
			Data:   Data{Synthetic: &spec, Options: dataset.Options{Seed: 7, Salt: salt, TimeScale: 1}},
			Plan: Plan{
				Planner: sweep.List{{Kind: loadgen.Concurrent, Streams: 2}}, Profile: report.Profile{Kind: "concurrent", Streams: []int{2}},
				Constraints: loadgen.Constraints{MaxRequests: 8}, Seed: 7,
			},
			Telemetry: measure.Config{ServerMetrics: measure.ServerMetricsOff, Interval: time.Second, PUE: 1},
			Outputs:   Outputs{Dir: t.TempDir(), RunID: "r", Kinds: map[string]bool{"json": true}},
			Metadata:  Metadata{ProbeTimeout: time.Second},
			Progress:  Progress{Disable: true, LogFormat: "console", Interval: time.Second},
			Build:     Build{Version: "test", Commit: "abc"},
		}
		var out, errb bytes.Buffer
		rep, err := Run(context.Background(), c, Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatalf("%v\nstderr:\n%s", err, errb.String())
		}
		return rep, errb.String()
	}
	check := func(name string, rep *report.Report, stderr string, warm bool) {
		t.Helper()
		pc := rep.Benchmarks[0].Extras.PromptCache
		if pc == nil || pc.Requests != 8 || pc.PromptTokens <= 0 {
			t.Fatalf("%s: prompt cache %+v", name, pc)
		}
		// Warm: every prompt's full blocks but the last token's come from
		// the cache, far above half.
		if got := pc.CachedTokens > 0; got != warm || (warm && pc.HitRate <= 0.5) {
			t.Errorf("%s: prompt cache %+v, want warm %v", name, pc.CacheCounts, warm)
		}
		n := strings.Count(stderr, "WARNING: prompt cache:")
		var notes []string
		for _, s := range rep.Run.Notes {
			if strings.HasPrefix(s, "prompt cache:") {
				notes = append(notes, s)
			}
		}
		if warm != (n == 1 && len(notes) == 1) || n > 1 || len(notes) > 1 {
			t.Fatalf("%s: %d warnings, notes %q; want warm %v\nstderr:\n%s", name, n, rep.Run.Notes, warm, stderr)
		}
		if warm && !strings.Contains(notes[0], "--prompt-salt auto") {
			t.Errorf("%s: note %q does not name --prompt-salt", name, notes[0])
		}
	}
	rep, stderr := run(0)
	check("first run", rep, stderr, false)
	rep, stderr = run(0)
	check("same-seed rerun", rep, stderr, true)
	rep, stderr = run(0x5eed)
	check("salted rerun", rep, stderr, false)
}

// cacheNote by hand: usage says 300 of 400 standalone prompt tokens
// (75 %) were cached; without usage, the metrics of the benchmarks
// without sessions count (hits 60 of 100), and 50 % exactly is not most.
func TestCacheNote(t *testing.T) {
	f := func(v float64) *report.Float { x := report.Float(v); return &x }
	usage := &report.Benchmark{Extras: &report.Extras{PromptCache: &report.PromptCache{
		CacheCounts: report.CacheCounts{PromptTokens: 1000, CachedTokens: 900},
		Standalone:  &report.CacheCounts{PromptTokens: 400, CachedTokens: 300}}}}
	n := cacheNote([]*report.Benchmark{usage}, false)
	if !strings.HasPrefix(n, "prompt cache: 300 of 400 prompt tokens outside sessions (75.0 %) were served from the server's prefix cache, by the server's usage") ||
		!strings.Contains(n, "--prompt-salt auto") {
		t.Errorf("note %q", n)
	}
	if n := cacheNote([]*report.Benchmark{usage}, true); !strings.Contains(n, "were salted") {
		t.Errorf("salted note %q", n)
	}
	metrics := func(q, h float64, sessions bool) *report.Benchmark {
		b := &report.Benchmark{Extras: &report.Extras{Telemetry: &report.BenchmarkTelemetry{Server: &report.ServerTelemetry{
			PrefixCache: &report.PrefixCacheTelemetry{Queries: f(q), Hits: f(h)}}}}}
		if sessions {
			b.Extras.Sessions = &report.SessionExtras{}
		}
		return b
	}
	if n := cacheNote([]*report.Benchmark{metrics(100, 60, false), metrics(100, 100, true)}, false); !strings.Contains(n, "60 of 100 prompt tokens outside sessions (60.0 %)") ||
		!strings.Contains(n, "by the server's prefix-cache metrics") {
		t.Errorf("metrics note %q", n)
	}
	if n := cacheNote([]*report.Benchmark{metrics(100, 50, false)}, false); n != "" {
		t.Errorf("50 %% cached: note %q", n)
	}
}
