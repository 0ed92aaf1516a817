package main

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/clitest"

	"github.com/goodput-dev/goodput/cli"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/report"
)

// Against a mock streaming a chunk every 3 ms: a 20 ms token deadline is
// always met, a 1 ms one missed three times a gap; the SLO's fluidity
// floor, time slices and the percentile list reach the report and the
// console.
func TestBenchmarkStreamingQuality(t *testing.T) {
	url := clitest.Mock(t, func(c *mock.Config) { c.ITL = 3 * time.Millisecond })
	dir := t.TempDir()
	bench := func(id string, extra ...string) (*report.Benchmark, string) {
		args := append([]string{"benchmark", "--target", url, "--rate-type", "concurrent", "--rate", "2",
			"--data", "prompt_tokens=16,output_tokens=8", "--max-requests", "10", "--output-dir", dir, "--run-id", id,
			"--outputs", "json,jsonl,console", "--disable-progress"}, extra...)
		code, stdout, stderr := runGoodput(t, args...)
		if code != cli.ExitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		rep, err := report.Read(filepath.Join(dir, id, "benchmarks.json"))
		if err != nil {
			t.Fatal(err)
		}
		return rep.Benchmarks[0], stdout
	}
	b, out := bench("smooth", "--tbt-deadline", "20ms", "--ttft-deadline", "1s", "--slo", "fluidity=0.99,stall_max=500ms",
		"--slice-duration", "0.05", "--percentiles", "99.9,50")
	q := b.Extras.Streaming
	if q == nil || q.FluidityIndex == nil || q.Requests != 10 {
		t.Fatalf("streaming extras: %+v", q)
	}
	if q.FluidityIndex.Min != 1 || q.DeadlineMisses.Max != 0 || q.AboveFloor != 1 || q.FluidityFloor != 0.99 {
		t.Errorf("a smooth stream missed deadlines: fluidity %+v, misses %+v, above floor %v", q.FluidityIndex, q.DeadlineMisses, q.AboveFloor)
	}
	// Each request's longest stall is its largest gap between chunks, as
	// its record holds them (the client's receipt, so a loaded machine
	// bunches or spreads them: the figure must match the records, not 3 ms).
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range readRecords(t, filepath.Join(dir, "smooth", "requests.jsonl")) {
		var g int64
		for i := 1; i < len(r.ChunkTimes); i++ {
			g = max(g, r.ChunkTimes[i]-r.ChunkTimes[i-1])
		}
		lo, hi = min(lo, float64(g)/1e6), max(hi, float64(g)/1e6)
	}
	if s := q.LongestStallMs; math.Abs(float64(s.Min)-lo) > 1e-6 || math.Abs(float64(s.Max)-hi) > 1e-6 || hi < 2 {
		t.Errorf("longest stalls %v..%v ms, want %v..%v from the records (the mock's 3 ms at the top)", s.Min, s.Max, lo, hi)
	}
	if slo := b.Extras.SLO; slo == nil || !slo.Pass || slo.GoodRequests != 10 {
		t.Errorf("SLO verdict: %+v", slo)
	}
	if sl := b.Extras.Slices; sl == nil || len(sl.Slices) == 0 || sl.DurationS != 0.05 {
		t.Errorf("time slices: %+v", sl)
	} else {
		n := report.Int(0)
		for _, s := range sl.Slices {
			n += s.Successful
		}
		if n != 10 {
			t.Errorf("slices hold %d successful requests, want 10", n)
		}
	}
	if p := b.Extras.Percentiles; p == nil || len(p.Percentiles) != 2 || p.Percentiles[0] != 50 || p.Metrics["time_to_first_token_ms"]["p99.9"] <= 0 {
		t.Errorf("percentile table: %+v", p)
	}
	for _, want := range []string{"Latency percentiles", "P99.9", "Streaming quality", "Fluidity index"} {
		if !strings.Contains(out, want) {
			t.Errorf("console lacks %q:\n%s", want, out)
		}
	}

	b, _ = bench("choppy", "--tbt-deadline", "1ms", "--slo", "fluidity=0.9")
	q = b.Extras.Streaming
	// (about 2 misses a gap; a loaded machine bunches some chunks, whose
	// zero gaps save slack, so only the bulk is bounded.)
	if q == nil || q.FluidityIndex == nil || q.FluidityIndex.Mean > 0.5 || q.DeadlineMisses.Max < 7 {
		t.Fatalf("a 3 ms stream against a 1 ms deadline: %+v %+v", q.FluidityIndex, q.DeadlineMisses)
	}
	if slo := b.Extras.SLO; slo == nil || slo.Pass || slo.GoodRequests > 5 {
		t.Errorf("SLO verdict: %+v", slo)
	}

	// over_saturation in monitor mode: its state reaches the extras and
	// GuideLLM's scheduler state.
	b, _ = bench("monitored", "--over-saturation", "mode=monitor,min_seconds=0")
	if o := b.Extras.OverSaturation; o == nil || o.Mode != "monitor" || o.IsOverSaturated || o.ConcurrentN == 0 {
		t.Errorf("over_saturation extras: %+v", o)
	}
	if a, ok := b.SchedulerState.SchedulerConstraints["over_saturation"]; !ok || a.RequestQueuing != "continue" || a.Metadata["is_over_saturated"] == nil {
		t.Errorf("scheduler state: %+v", b.SchedulerState.SchedulerConstraints)
	}

	code, _, stderr := runGoodput(t, "benchmark", "--target", url, "--rate-type", "synchronous", "--data", "prompt_tokens=8",
		"--max-requests", "1", "--slo", "fluidity=0.9", "--output-dir", dir)
	if code != cli.ExitUsage || !strings.Contains(stderr, "--tbt-deadline") {
		t.Errorf("fluidity without deadlines: exit %d, %s", code, stderr)
	}
}

// --knee-detection on a concurrent profile reaches the run extras and the
// console; it needs --rate-type concurrent.
func TestBenchmarkKneeDetection(t *testing.T) {
	url := clitest.Mock(t, nil)
	dir := t.TempDir()
	code, stdout, stderr := runGoodput(t, "benchmark", "--target", url, "--rate-type", "concurrent", "--rate", "1,2,3,4,5",
		"--data", "prompt_tokens=8,output_tokens=4", "--max-requests", "10", "--output-dir", dir, "--run-id", "knee",
		"--outputs", "json,console", "--disable-progress", "--knee-detection", "enabled=true,adaptive=false")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rep, err := report.Read(filepath.Join(dir, "knee", "benchmarks.json"))
	if err != nil {
		t.Fatal(err)
	}
	tk := rep.Run.ThroughputKnee
	if tk == nil || tk.Final == nil || len(tk.Final.Points) != 5 || len(tk.AdaptivePlan) != 0 || tk.Initial != tk.Final && tk.Initial.Found != tk.Final.Found {
		t.Fatalf("throughput knee: %+v", tk)
	}
	if !strings.Contains(stdout, "Throughput knee (GuideLLM's knee detection)") {
		t.Errorf("console lacks the throughput knee:\n%s", stdout)
	}
	code, _, stderr = runGoodput(t, "benchmark", "--target", url, "--rate-type", "constant", "--rate", "1,2,3,4,5",
		"--data", "prompt_tokens=8", "--max-seconds", "1", "--knee-detection", "true", "--output-dir", dir)
	if code != cli.ExitUsage || !strings.Contains(stderr, "--knee-detection needs --rate-type concurrent") {
		t.Errorf("constant rate: exit %d, %s", code, stderr)
	}
}

// --target-moe ends a benchmark once the TTFT mean is known to the margin
// (the mock's TTFT hardly varies), long before --max-requests.
func TestBenchmarkTargetMOE(t *testing.T) {
	url := clitest.Mock(t, nil)
	dir := t.TempDir()
	code, _, stderr := runGoodput(t, "benchmark", "--target", url, "--rate-type", "concurrent", "--rate", "2",
		"--data", "prompt_tokens=8,output_tokens=4", "--max-requests", "2000", "--output-dir", dir, "--run-id", "moe",
		"--outputs", "json", "--disable-progress", "--target-moe", "metric=time_to_first_token_ms,statistic=mean,moe=0.5,min_samples=10,check_interval=5")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rep, err := report.Read(filepath.Join(dir, "moe", "benchmarks.json"))
	if err != nil {
		t.Fatal(err)
	}
	b := rep.Benchmarks[0]
	m := b.Extras.TargetMOE
	if b.Extras.StopReason != "target_moe" || m == nil || !m.Reached || m.Samples < 10 || m.Samples > 200 {
		t.Fatalf("stop %q, target_moe %+v", b.Extras.StopReason, m)
	}
	if a, ok := b.SchedulerState.EndProcessingConstraints["target_moe"]; !ok || string(a.Metadata["target_moe_reached"]) != "true" {
		t.Errorf("end_processing_constraints: %+v", b.SchedulerState.EndProcessingConstraints)
	}
}

// --num-runs repeats the plan: each load's figures across the runs, with
// the ones varying more than the threshold flagged.
func TestBenchmarkNumRuns(t *testing.T) {
	url := clitest.Mock(t, nil)
	dir := t.TempDir()
	code, stdout, stderr := runGoodput(t, "benchmark", "--target", url, "--rate-type", "concurrent", "--rate", "1,2",
		"--data", "prompt_tokens=8,output_tokens=4", "--max-requests", "6", "--output-dir", dir, "--run-id", "runs",
		"--outputs", "json,console", "--disable-progress", "--num-runs", "3", "--run-variation-threshold", "1e-9")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rep, err := report.Read(filepath.Join(dir, "runs", "benchmarks.json"))
	if err != nil {
		t.Fatal(err)
	}
	tr := rep.Run.Trials
	if len(rep.Benchmarks) != 6 || tr == nil || tr.Runs != 3 || len(tr.Points) != 2 {
		t.Fatalf("%d benchmarks, trials %+v", len(rep.Benchmarks), tr)
	}
	for _, p := range tr.Points {
		if len(p.Benchmarks) != 3 || len(p.Metrics) < 5 {
			t.Errorf("point %s: benchmarks %v, %d metrics", p.Strategy, p.Benchmarks, len(p.Metrics))
		}
		for _, m := range p.Metrics {
			if len(m.Values) != 3 || m.CILow == nil || float64(*m.CILow) > float64(m.Mean) || float64(*m.CIHigh) < float64(m.Mean) {
				t.Errorf("%s %s: %+v", p.Strategy, m.Metric, m)
			}
		}
	}
	if len(tr.Flagged) == 0 {
		t.Error("a threshold of 1e-9 flags nothing")
	}
	if !strings.Contains(stdout, "Run-to-run variation over 3 runs") {
		t.Errorf("console lacks the variation table:\n%s", stdout)
	}
}

// A mock that pauses every stream for 80 ms (before its first token in
// some: a step drawn at random): the longest stall shows it,
// and an SLO on it fails where TTFT and mean ITL hardly notice.
func TestBenchmarkStallSLO(t *testing.T) {
	url := clitest.Mock(t, func(c *mock.Config) { c.StallRate, c.StallDuration = 1, 80*time.Millisecond })
	dir := t.TempDir()
	// Every request pauses 80 ms mid-stream. A client starved for longer
	// than that reads the chunks on both sides of the pause at once, with
	// one receive time (the stall measures 0): such an attempt runs once
	// more.
	for attempt := 1; ; attempt++ {
		id := fmt.Sprint("stall", attempt)
		code, _, stderr := runGoodput(t, "benchmark", "--target", url, "--rate-type", "concurrent", "--rate", "2",
			"--data", "prompt_tokens=8,output_tokens=16", "--max-requests", "6", "--output-dir", dir, "--run-id", id,
			"--outputs", "json", "--disable-progress", "--slo", "ttft_p99=1s,stall_max=50ms,stall_p20=1ms")
		if code != cli.ExitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		rep, err := report.Read(filepath.Join(dir, id, "benchmarks.json"))
		if err != nil {
			t.Fatal(err)
		}
		ex := rep.Benchmarks[0].Extras
		if ex.Streaming == nil || ex.Streaming.LongestStallMs.Max < 75 || ex.Streaming.FluidityIndex != nil {
			t.Fatalf("streaming: %+v, stalls %+v", ex.Streaming, ex.Streaming.LongestStallMs)
		}
		if ex.SLO == nil || ex.SLO.Pass {
			t.Fatalf("stall_max=50ms passed: %+v", ex.SLO)
		}
		// a percentile the report does not print comes from the stall
		// histogram.
		if h := ex.Histograms.Metrics["longest_stall"]; h == nil || h.Successful == "" {
			t.Fatalf("no longest_stall histogram")
		}
		var p20 *report.ObjectiveResult
		for i, o := range ex.SLO.Objectives {
			if o.Key == "stall_p20" {
				p20 = &ex.SLO.Objectives[i]
			}
		}
		switch {
		case p20 == nil:
			t.Fatalf("no stall_p20 objective in %+v", ex.SLO.Objectives)
		case p20.Missing || p20.Pass:
			t.Fatalf("stall_p20: %+v", *p20)
		case p20.Measured >= 0.5:
			return
		case attempt == 2:
			t.Fatalf("stall_p20 measured %v ms twice; every request stalls 80 ms", p20.Measured)
		}
		t.Logf("attempt 1: stall_p20 measured %v ms (a starved client read across the pause); running once more", p20.Measured)
	}
}
