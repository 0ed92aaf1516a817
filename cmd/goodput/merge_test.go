package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/clitest"

	"github.com/goodput-dev/goodput/cli"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/merge"
	"github.com/goodput-dev/goodput/sweep"
)

// childArgsEnv carries a shard process's command line (one argument per
// line) from TestMergeProcesses to TestShardChild.
const childArgsEnv = "GOODPUT_TEST_SHARD_ARGS"

// TestShardChild is the body of the shard processes the merge tests start
// (this test binary, re-executed): the real goodput benchmark command.
func TestShardChild(t *testing.T) {
	args := os.Getenv(childArgsEnv)
	if args == "" {
		t.Skip("helper process of TestMergeProcesses")
	}
	e := &cli.Env{Stdout: io.Discard, Stderr: os.Stderr, Stdin: strings.NewReader(""), Getenv: os.Getenv}
	if code := realMain(append([]string{"benchmark"}, strings.Split(args, "\n")...), e); code != cli.ExitOK {
		fmt.Fprintln(os.Stderr, "shard: exit", code)
		os.Exit(3)
	}
	os.Exit(0)
}

// shardRun is what startShards ran: the output directory every shard
// wrote into, the shared start and the machine's scheduling noise
// meanwhile.
type shardRun struct {
	dir     string
	startAt time.Time
	noise   time.Duration
}

// startShards runs n shard processes of one run, starting together 1.5 s
// from now, and waits for them. args gives the shards' command line for a
// shared start and an output directory. A shard that missed its start (on
// a busy machine a process can take longer than the lead to start) is
// retried once, logged, with a fresh directory and a lead of 6 s; missing
// it again skips the test when the machine stalled processes for more than
// a quarter of the lateness limit meanwhile, and fails it otherwise. The
// noise is the worst lateness of a 1 ms sleep in this process (a process
// can wake that late from any wait, the shards' start included).
func startShards(t *testing.T, n int, args func(startAt time.Time, dir string) []string) shardRun {
	t.Helper()
	for try, lead := range []time.Duration{1500 * time.Millisecond, 6 * time.Second} {
		dir := filepath.Join(t.TempDir(), "shards")
		startAt := time.Now().Add(lead).Truncate(time.Microsecond)
		noise, late, outs := runShards(t, n, args(startAt, dir))
		switch {
		case late < 0:
			return shardRun{dir: dir, startAt: startAt, noise: noise}
		case try == 0:
			t.Logf("retrying with a longer lead: shard %d missed its start %v ahead (a 1 ms sleep woke up to %v late): %s", late, lead, noise, outs[late])
		case noise > sweep.MaxShardLateness/4:
			t.Skipf("machine too busy for a timetable: a 1 ms sleep woke %v late; shard %d: %s", noise, late, outs[late])
		default:
			t.Fatalf("shard %d missed its start twice:\n%s", late, outs[late])
		}
	}
	panic("unreachable")
}

// runShards runs the shard processes and waits for them. late is the
// first shard that failed only because it started late, -1 when none; any
// other failure fails the test.
func runShards(t *testing.T, n int, args []string) (noise time.Duration, late int, outs []*strings.Builder) {
	t.Helper()
	stop := make(chan struct{})
	worst := make(chan time.Duration)
	go func() {
		var w time.Duration
		for {
			select {
			case <-stop:
				worst <- w
				return
			default:
			}
			t0 := time.Now()
			time.Sleep(time.Millisecond)
			w = max(w, time.Since(t0)-time.Millisecond)
		}
	}()
	cmds := make([]*exec.Cmd, n)
	outs = make([]*strings.Builder, n)
	for i := range cmds {
		a := append(slices.Clone(args), "--shard-index", strconv.Itoa(i))
		c := exec.Command(os.Args[0], "-test.run=^TestShardChild$")
		c.Env = append(os.Environ(), childArgsEnv+"="+strings.Join(a, "\n"))
		outs[i] = &strings.Builder{}
		c.Stdout, c.Stderr = outs[i], outs[i]
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[i] = c
	}
	var failed []int
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			failed = append(failed, i)
		}
	}
	close(stop)
	noise, late = <-worst, -1
	for _, i := range failed {
		// Late: it began a round after its start (sweep.ErrShardLate), or
		// it read its flags when the start was already a second past.
		if o := outs[i].String(); !strings.Contains(o, sweep.ErrShardLate.Error()) && !strings.Contains(o, "in the past: the pods must be running") {
			t.Fatalf("shard %d failed:\n%s", i, outs[i])
		}
		if late < 0 {
			late = i
		}
	}
	return noise, late, outs
}

// checkStartSpread checks that the shards began round k within 5 ms of
// each other, widened by the scheduling noise measured meanwhile when the
// machine is busy: the worst lateness of a 1 ms sleep in this process and
// of the shards' own 5 ms timers (their reports' client.sched_lag_max_us).
// Under the race detector (every process several times slower) it is only
// logged.
func checkStartSpread(t *testing.T, recs [][]*record.Record, reps []*report.Report, k int, noise time.Duration) {
	t.Helper()
	spread := firstDispatchSpread(t, recs, reps, k)
	for _, r := range reps {
		if c := r.Benchmarks[k].Extras.Client; c != nil {
			noise = max(noise, time.Duration(float64(c.SchedLagMaxus)*1e3))
		}
	}
	limit := 5 * time.Millisecond
	if noise > time.Millisecond {
		limit += noise
	}
	t.Logf("round %d: the shards' first dispatches spread %v (limit %v; scheduling noise %v)", k, spread, limit, noise)
	if raceEnabled() {
		t.Log("race detector on: the start spread is not checked")
		return
	}
	if spread > limit {
		t.Errorf("round %d: shards started %v apart, want within %v", k, spread, limit)
	}
}

// raceEnabled reports whether this binary was built with -race.
func raceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" && s.Value == "true" {
			return true
		}
	}
	return false
}

// readRecords reads a JSON Lines file.
func readRecords(t *testing.T, path string) []*record.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := record.NewDecoder(f, path)
	var out []*record.Record
	for {
		r := record.New()
		err := dec.Decode(r)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
}

// firstDispatchSpread is the spread of the shards' first dispatch of
// round k after their own scheduled start (offset included).
func firstDispatchSpread(t *testing.T, recs [][]*record.Record, reps []*report.Report, k int) time.Duration {
	t.Helper()
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for i, rs := range recs {
		first := int64(math.MaxInt64)
		for _, r := range rs {
			if r.Benchmark == k && r.Dispatched != 0 {
				first = min(first, r.Dispatched)
			}
		}
		sr := reps[i].Benchmarks[k].Extras.Shard
		d := first - int64(sr.ScheduledStartNs) - int64(sr.OffsetNs)
		lo, hi = min(lo, d), max(hi, d)
	}
	return time.Duration(hi - lo)
}

// guidellmCheck runs GuideLLM v0.7.3's loader rules on report files.
func guidellmCheck(t *testing.T, paths ...string) {
	t.Helper()
	checker := filepath.Join("..", "..", "report", "testdata", "guidellm_v2_check.py")
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Log("python3 not found: GuideLLM loader check skipped")
		return
	}
	if _, err := os.Stat(checker); err != nil {
		t.Logf("GuideLLM checker not found: %v", err)
		return
	}
	for _, p := range paths {
		out, err := exec.Command(py, checker, p).CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "OK" {
			t.Fatalf("GuideLLM loader check of %s: %v\n%s", p, err, out)
		}
	}
}

// spread is a distribution's p99 − p1, iqr its p75 − p25: the noise of a
// deterministic mock's figures as the client measures them.
func spread(d *report.DistributionSummary) float64 {
	return float64(d.Percentiles.P99 - d.Percentiles.P01)
}

func iqr(d *report.DistributionSummary) float64 {
	return float64(d.Percentiles.P75 - d.Percentiles.P25)
}

// TestMergeProcesses: three goodput processes, started together against
// one mock and merged, agree with one process generating the whole load:
// request and token counts exactly, latency distributions within the
// measurement noise; the shards begin within 5 ms of each other; bad shard
// sets are refused with one line and exit 2.
func TestMergeProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	url := clitest.Mock(t, func(c *mock.Config) { c.TTFT, c.ITL = 20*time.Millisecond, 2*time.Millisecond })
	dir := t.TempDir()
	common := []string{"--target", url, "--data", "prompt_tokens=32,output_tokens=16", "--rate-type", "concurrent", "--rate", "6",
		"--max-requests", "60", "--outputs", "json,jsonl", "--sample-requests", "5", "--disable-progress"}

	// One process, the whole load.
	code, _, stderr := runGoodput(t, append([]string{"benchmark"}, append(slices.Clone(common), "--output-dir", dir, "--run-id", "single")...)...)
	if code != cli.ExitOK {
		t.Fatalf("single run: exit %d: %s", code, stderr)
	}
	ref := clitest.ReadReport(t, filepath.Join(dir, "single", "benchmarks.json")).Benchmarks[0]

	// Three processes, one shared start.
	sh := startShards(t, 3, func(at time.Time, out string) []string {
		return append(slices.Clone(common), "--output-dir", out, "--run-id", "run",
			"--shard-count", "3", "--start-at", at.UTC().Format(time.RFC3339Nano))
	})
	var shards []string
	var reps []*report.Report
	var recs [][]*record.Record
	for i := 0; i < 3; i++ {
		d := filepath.Join(sh.dir, fmt.Sprintf("run-shard-%d-of-3", i))
		p := filepath.Join(d, "benchmarks.json")
		shards = append(shards, p)
		reps = append(reps, clitest.ReadReport(t, p))
		recs = append(recs, readRecords(t, filepath.Join(d, "requests.jsonl")))
	}
	checkStartSpread(t, recs, reps, 0, sh.noise)
	for i, r := range reps {
		if got := r.Benchmarks[0].Metrics.RequestTotals.Total; got != 20 {
			t.Fatalf("shard %d ran %d requests, want its share 20", i, got)
		}
	}

	// Merge from the records (found beside the reports).
	merged := filepath.Join(dir, "merged.json")
	code, _, stderr = runGoodput(t, append(append([]string{"merge"}, shards...), "-o", merged, "--disable-console")...)
	if code != cli.ExitOK {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	mrep := clitest.ReadReport(t, merged)
	if mi := mrep.Run.Merge; mi == nil || mi.Path != merge.PathRecords || !mi.Exact || !strings.Contains(stderr, "exact") {
		t.Fatalf("merge info %+v, stderr %q", mrep.Run.Merge, stderr)
	}
	m := mrep.Benchmarks[0]
	for _, c := range []struct {
		name      string
		got, want report.Int
	}{
		{"successful requests", m.Metrics.RequestTotals.Successful, ref.Metrics.RequestTotals.Successful},
		{"requests", m.Metrics.RequestTotals.Total, 60},
		{"output tokens", report.Int(m.Metrics.OutputTokenCount.Successful.TotalSum), report.Int(ref.Metrics.OutputTokenCount.Successful.TotalSum)},
		{"output token count", m.Metrics.OutputTokenCount.Successful.Count, ref.Metrics.OutputTokenCount.Successful.Count},
		{"inter-token gaps", m.Extras.Metrics.ITLPerGapMs.Successful.Count, ref.Extras.Metrics.ITLPerGapMs.Successful.Count},
		{"streams", report.Int(m.Config.Strategy.Streams), 6},
	} {
		if c.got != c.want {
			t.Errorf("%s: merged %d, one process %d", c.name, c.got, c.want)
		}
	}
	for _, c := range []struct {
		name      string
		got, want *report.DistributionSummary
		floor     float64 // the mock's own figure, which nothing can beat (0: none)
	}{
		{"time_to_first_token_ms", m.Metrics.TimeToFirstTokenMs.Successful, ref.Metrics.TimeToFirstTokenMs.Successful, 20},
		// A late first chunk shortens the measured average gap: no floor.
		{"inter_token_latency_ms", m.Metrics.InterTokenLatencyMs.Successful, ref.Metrics.InterTokenLatencyMs.Successful, 0},
		{"request_latency", m.Metrics.RequestLatency.Successful, ref.Metrics.RequestLatency.Successful, 0.05},
	} {
		tol := iqr(c.got) + iqr(c.want) + 0.002*float64(*c.want.Percentiles.P50)
		got, want := float64(*c.got.Percentiles.P50), float64(*c.want.Percentiles.P50)
		if math.Abs(got-want) > tol || got < c.floor || want < c.floor {
			t.Errorf("%s p50: merged %v, one process %v (tolerance %v from the runs' interquartile ranges)", c.name, got, want, tol)
		}
		t.Logf("%s p50: merged %.3f, one process %.3f, tolerance %.3f", c.name, *c.got.Percentiles.P50, *c.want.Percentiles.P50, tol)
	}

	// Merge from the histograms alone: counts equal, percentiles within the
	// histograms' precision (plus, at a percentile's boundary, the next
	// sample: measured here by the distribution's spread).
	mergedH := filepath.Join(dir, "merged-hist.json")
	code, _, stderr = runGoodput(t, append(append([]string{"merge"}, shards...), "--no-records", "-o", mergedH, "--disable-console")...)
	if code != cli.ExitOK {
		t.Fatalf("merge --no-records: exit %d: %s", code, stderr)
	}
	hrep := clitest.ReadReport(t, mergedH)
	h := hrep.Benchmarks[0]
	if mi := hrep.Run.Merge; mi.Path != merge.PathHistograms || mi.Exact || h.Extras.Exact || !strings.Contains(mi.Reason, "--no-records") {
		t.Fatalf("histogram merge info %+v", mi)
	}
	if *h.Metrics.RequestTotals != *m.Metrics.RequestTotals || h.Extras.Requests != m.Extras.Requests ||
		h.Metrics.OutputTokenCount.Successful.TotalSum != m.Metrics.OutputTokenCount.Successful.TotalSum {
		t.Fatalf("histogram merge counts %+v, records merge %+v", h.Metrics.RequestTotals, m.Metrics.RequestTotals)
	}
	hg, eg := h.Metrics.TimeToFirstTokenMs.Successful, m.Metrics.TimeToFirstTokenMs.Successful
	if hg.Count != eg.Count || hg.Min != eg.Min || hg.Max != eg.Max || math.Abs(float64(hg.Mean-eg.Mean)) > 1e-9*float64(eg.Mean) {
		t.Fatalf("TTFT moments: histograms %+v, records %+v", hg, eg)
	}
	if d := math.Abs(float64(*hg.Percentiles.P50 - *eg.Percentiles.P50)); d > float64(*eg.Percentiles.P50)/1024+spread(eg) {
		t.Fatalf("TTFT p50: histograms %v, records %v", *hg.Percentiles.P50, *eg.Percentiles.P50)
	}
	guidellmCheck(t, append(slices.Clone(shards), merged, mergedH)...)

	// Bad shard sets: one line, exit 2, naming the file and the problem.
	dup := filepath.Join(dir, "dup.json")
	copyFile(t, shards[1], dup)
	other := filepath.Join(dir, "other.json")
	editJSON(t, shards[2], other, func(m map[string]any) {
		m["goodput"].(map[string]any)["shard"].(map[string]any)["config_hash"] = "0000000000000000"
	})
	late := filepath.Join(dir, "late.json")
	editJSON(t, shards[1], late, func(m map[string]any) {
		sm := m["benchmarks"].([]any)[0].(map[string]any)["scheduler_metrics"].(map[string]any)
		v, _ := sm["request_start_time"].(json.Number).Float64()
		sm["request_start_time"] = v + 2
	})
	out := filepath.Join(dir, "refused.json")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"missing shard", []string{shards[0], shards[2]}, "missing shard 1 of 3"},
		{"duplicate index", []string{shards[0], shards[1], shards[2], dup}, dup + ": duplicate shard index 1"},
		{"another configuration", []string{shards[0], shards[1], other}, other + ": configuration hash 0000000000000000 differs"},
		{"late shard", []string{shards[0], late, shards[2]}, late + ": late shard"},
	} {
		code, _, stderr := runGoodput(t, append([]string{"merge", "--no-records", "-o", out}, c.args...)...)
		if code != cli.ExitUsage || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q: want exit 2 and one line containing %q", c.name, code, stderr, c.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("a refused merge wrote its output")
	}
}

// TestMergeProcessesRounds: a two-round, time-bound constant-rate run in
// two processes: every round starts at its shared instant, the shards'
// sends interleave into one evenly spaced stream of the total rate, and
// the merged run has both rounds at the total rates.
func TestMergeProcessesRounds(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	url := clitest.Mock(t, func(c *mock.Config) { c.TTFT, c.ITL = 10*time.Millisecond, time.Millisecond })
	dir := t.TempDir()
	sh := startShards(t, 2, func(at time.Time, out string) []string {
		return []string{"--target", url, "--data", "prompt_tokens=16,output_tokens=8", "--rate-type", "constant", "--rate", "20,40",
			"--max-seconds", "1", "--round-gap", "1s", "--outputs", "json,jsonl", "--disable-progress",
			"--output-dir", out, "--run-id", "rounds", "--shard-count", "2", "--start-at", fmt.Sprintf("%d.%06d", at.Unix(), at.Nanosecond()/1000)}
	})
	startAt := sh.startAt
	var shards []string
	var reps []*report.Report
	var recs [][]*record.Record
	for i := 0; i < 2; i++ {
		d := filepath.Join(sh.dir, fmt.Sprintf("rounds-shard-%d-of-2", i))
		shards = append(shards, filepath.Join(d, "benchmarks.json"))
		reps = append(reps, clitest.ReadReport(t, shards[i]))
		recs = append(recs, readRecords(t, filepath.Join(d, "requests.jsonl")))
	}
	for k, rate := range []float64{20, 40} {
		checkStartSpread(t, recs, reps, k, sh.noise)
		sr := reps[0].Benchmarks[k].Extras.Shard
		if want := startAt.UnixNano() + int64(k)*int64(2*time.Second); int64(sr.ScheduledStartNs) != want {
			t.Errorf("round %d scheduled at %d, want start + k × (1 s + 1 s) = %d", k, sr.ScheduledStartNs, want)
		}
		// Within the shared round, the intended send times of both shards
		// form one stream of the total rate: rate sends in 1 s, consecutive
		// gaps of 1/rate.
		var sends []int64
		for _, rs := range recs {
			for _, r := range rs {
				if r.Benchmark == k && r.Intended < int64(sr.ScheduledEndNs) {
					sends = append(sends, r.Intended)
				}
			}
		}
		slices.Sort(sends)
		if len(sends) != int(rate) {
			t.Errorf("round %d: %d requests due in the round, want %v in 1 s at %v/s", k, len(sends), rate, rate)
		}
		gap := time.Duration(1e9 / rate)
		for j := 1; j < len(sends); j++ {
			if d := time.Duration(sends[j] - sends[j-1]); d < gap-time.Millisecond || d > gap+time.Millisecond {
				t.Fatalf("round %d: sends %d and %d are %v apart, want %v (one stream of %v/s)", k, j-1, j, d, gap, rate)
			}
		}
	}
	merged := filepath.Join(dir, "merged.json")
	code, _, stderr := runGoodput(t, append(append([]string{"merge"}, shards...), "-o", merged, "--disable-console")...)
	if code != cli.ExitOK {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	mrep := clitest.ReadReport(t, merged)
	if len(mrep.Benchmarks) != 2 || mrep.Run.Merge.Path != merge.PathRecords {
		t.Fatalf("merged %d benchmarks via %s", len(mrep.Benchmarks), mrep.Run.Merge.Path)
	}
	for k, rate := range []float64{20, 40} {
		// Each shard sent what was due by its stop (a shard that woke late
		// stops late: the engine's deadline counts from its wake). The
		// merged round counts exactly the requests the shards counted,
		// each in its own shard's window.
		var sum, recorded report.Int
		for i, r := range reps {
			b, sr := r.Benchmarks[k], r.Benchmarks[k].Extras.Shard
			at := int64(sr.ScheduledStartNs + sr.OffsetNs)
			due := report.Int((int64(sr.StopNs)-at)/int64(time.Duration(2e9/rate))) + 1
			if n := b.Metrics.RequestTotals.Total; n < due-1 || n > due {
				t.Errorf("round %d shard %d: %d requests, want the %d due by its stop", k, i, n, due)
			}
			sum += b.Metrics.RequestTotals.Total
			recorded += b.Extras.Requests.Recorded
		}
		b := mrep.Benchmarks[k]
		if n := b.Metrics.RequestTotals.Total; b.Config.Strategy.Rate != rate || n != sum || b.Extras.Requests.Recorded != recorded {
			t.Errorf("round %d: rate %v with %d requests (%d recorded), want %v with the shards' %d (%d recorded)", k, b.Config.Strategy.Rate, n, b.Extras.Requests.Recorded, rate, sum, recorded)
		}
	}
	guidellmCheck(t, append(slices.Clone(shards), merged)...)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func editJSON(t *testing.T, from, to string, change func(map[string]any)) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // keep Unix-ns integers exact
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	change(m)
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestMergeUsageErrors(t *testing.T) {
	dir := t.TempDir()
	exists := filepath.Join(dir, "exists.json")
	if err := os.WriteFile(exists, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	notReport := filepath.Join(dir, "plain.json")
	if err := os.WriteFile(notReport, []byte(`{"hello":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no inputs", []string{"merge", "-o", filepath.Join(dir, "o.json")}, "give the shard reports"},
		{"no output", []string{"merge", exists}, "--output is required"},
		{"output not json", []string{"merge", exists, "-o", filepath.Join(dir, "o.csv")}, "want a .json file"},
		{"output exists", []string{"merge", notReport, "-o", exists}, "exists"},
		{"records count", []string{"merge", notReport, exists, "--records", "a.jsonl", "-o", filepath.Join(dir, "o.json")}, "--records given 1 times for 2"},
		{"records and no-records", []string{"merge", notReport, "--records", "a.jsonl", "--no-records", "-o", filepath.Join(dir, "o.json")}, "exclude each other"},
		{"same file twice", []string{"merge", notReport, notReport, "-o", filepath.Join(dir, "o.json")}, "given twice"},
		{"not a report", []string{"merge", notReport, "-o", filepath.Join(dir, "o.json")}, "not a goodput or GuideLLM report"},
		{"unknown flag", []string{"merge", "--bogus"}, "unknown flag"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runGoodput(t, c.args...)
			if code != cli.ExitUsage || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d, stderr %q: want exit 2 and one line containing %q", code, stderr, c.want)
			}
		})
	}
}
