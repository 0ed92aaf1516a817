package cli

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/clitest"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/sweep"
)

func TestParseStartAt(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		err  string
	}{
		{"2026-06-16T12:00:00Z", 1781611200e9, ""},
		{"2026-06-16T14:00:00+02:00", 1781611200e9, ""},
		{"2026-06-16T12:00:00.25Z", 1781611200e9 + 250e6, ""},
		{"1781611200", 1781611200e9, ""},
		{"1781611200.5", 1781611200e9 + 500e6, ""},
		{" 1781611200.000000001 ", 1781611200e9 + 1, ""},
		{"1781611200000", 0, "milliseconds"},
		{"10000000000", 0, "RFC 3339"},
		{"9999-12-31T23:59:59Z", 0, "RFC 3339"},
		{"1781611200.", 0, "RFC 3339"},
		{"1781611200.0000000001", 0, "RFC 3339"},
		{"-5", 0, "RFC 3339"},
		{"0", 0, "RFC 3339"},
		{"tomorrow", 0, "RFC 3339"},
		{"2026-06-16 12:00", 0, "RFC 3339"},
		{"", 0, "RFC 3339"},
	}
	for _, c := range cases {
		got, err := parseStartAt(c.in)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: err %v, want one containing %q", c.in, err, c.err)
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("%q: %d %v, want %d", c.in, got, err, c.want)
		}
	}
}

func TestShardResolve(t *testing.T) {
	now := time.Date(2026, 6, 16, 11, 58, 0, 0, time.UTC)
	soon := "2026-06-16T12:00:00Z"
	soonNs := time.Date(2026, 6, 16, 12, 0, 0, 0, time.UTC).UnixNano()
	past := "2026-06-16T11:00:00Z"
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	idx, cnt, at := envShardIndex, envShardCount, envStartAt
	cases := []struct {
		name    string
		o       shardOptions
		env     func(string) string
		want    sweep.Shard
		sharded bool
		startAt int64
		notes   []string // each note must contain its entry, in order
		err     string
	}{
		{"no sharding", shardOptions{index: -1}, env(), sweep.Shard{}, false, 0, nil, ""},
		{"flags", shardOptions{index: 2, count: 4, startAt: soon}, env(), sweep.Shard{Index: 2, Count: 4}, true, soonNs, nil, ""},
		{"indexed job", shardOptions{index: -1, startAt: soon}, env(idx, "3", cnt, "4"), sweep.Shard{Index: 3, Count: 4}, true, soonNs, nil, ""},
		{"indexed job, all from env", shardOptions{index: -1}, env(idx, "3", cnt, "4", at, soon), sweep.Shard{Index: 3, Count: 4}, true, soonNs, nil, ""},
		{"count flag, index and start from env", shardOptions{index: -1, count: 4}, env(idx, "1", at, "1781611200"), sweep.Shard{Index: 1, Count: 4}, true, soonNs, nil, ""},
		{"flags override env", shardOptions{index: 1, count: 2, startAt: soon}, env(idx, "3", cnt, "4", at, past), sweep.Shard{Index: 1, Count: 2}, true, soonNs, nil, ""},
		{"start from env", shardOptions{index: 0, count: 2}, env(at, "1781611200"), sweep.Shard{Index: 0, Count: 2}, true, soonNs, nil, ""},
		{"one shard", shardOptions{index: -1, count: 1}, env(), sweep.Shard{Index: 0, Count: 1}, true, 0, nil, ""},
		{"one shard from env", shardOptions{index: -1}, env(cnt, "1", idx, "0"), sweep.Shard{Index: 0, Count: 1}, true, 0, nil, ""},
		// --start-at alone: a single run that waits for the instant.
		{"start flag alone", shardOptions{index: -1, startAt: soon}, env(), sweep.Shard{}, false, soonNs, nil, ""},
		// A warmup init container in an Indexed Job's pod: Kubernetes sets
		// the index, envFrom brings the shared start; no shard count, so
		// neither applies (the warmup runs at once, unsharded).
		{"warmup in an indexed pod", shardOptions{index: -1}, env(idx, "2", at, soon), sweep.Shard{}, false, 0,
			[]string{"$" + idx + `="2" ignored`, "$" + at + `="` + soon + `" ignored`}, ""},
		{"env index alone", shardOptions{index: -1}, env(idx, "1"), sweep.Shard{}, false, 0, []string{"$" + cnt}, ""},
		{"env start alone", shardOptions{index: -1}, env(at, soon), sweep.Shard{}, false, 0, []string{"give --start-at to wait"}, ""},
		// Ignored means not read: a stale or odd value does not fail the warmup.
		{"env start in the past, not sharded", shardOptions{index: -1}, env(at, past), sweep.Shard{}, false, 0, []string{"$" + at}, ""},
		{"bad env index, not sharded", shardOptions{index: -1}, env(idx, "x"), sweep.Shard{}, false, 0, []string{"$" + idx}, ""},
		{"start flag with env start, not sharded", shardOptions{index: -1, startAt: soon}, env(at, past), sweep.Shard{}, false, soonNs, nil, ""},
		// The explicit flag is the user's word: it needs a count.
		{"index flag without count", shardOptions{index: 1, startAt: soon}, env(), sweep.Shard{}, false, 0, nil, "--shard-index 1 needs the shard count"},
		{"index flag without count, env index", shardOptions{index: 0}, env(idx, "1"), sweep.Shard{}, false, 0, nil, "$" + cnt},
		{"count without index", shardOptions{index: -1, count: 3, startAt: soon}, env(), sweep.Shard{}, false, 0, nil, "--shard-index"},
		{"env count without index", shardOptions{index: -1, startAt: soon}, env(cnt, "3"), sweep.Shard{}, false, 0, nil, "$" + cnt + " 3 needs this pod's index"},
		{"index out of range", shardOptions{index: 4, count: 4, startAt: soon}, env(), sweep.Shard{}, false, 0, nil, "outside 0..3"},
		{"env index out of range", shardOptions{index: -1}, env(idx, "4", cnt, "4", at, soon), sweep.Shard{}, false, 0, nil, "shard index 4 (from $" + idx + ")"},
		{"bad env index, sharded", shardOptions{index: -1, count: 2}, env(idx, "x"), sweep.Shard{}, false, 0, nil, "$" + idx},
		{"bad env count", shardOptions{index: 0}, env(cnt, "0"), sweep.Shard{}, false, 0, nil, "$" + cnt},
		{"bad env count with env index", shardOptions{index: -1}, env(cnt, "four", idx, "1"), sweep.Shard{}, false, 0, nil, "$" + cnt},
		{"negative count", shardOptions{index: 0, count: -2}, env(), sweep.Shard{}, false, 0, nil, "--shard-count -2"},
		{"no start", shardOptions{index: 0, count: 2}, env(), sweep.Shard{}, false, 0, nil, "needs --start-at"},
		{"past start", shardOptions{index: 0, count: 2, startAt: past}, env(), sweep.Shard{}, false, 0, nil, "in the past"},
		{"past env start, sharded", shardOptions{index: -1}, env(idx, "0", cnt, "2", at, past), sweep.Shard{}, false, 0, nil, "$" + at + " " + past + " is 58m0s in the past"},
		{"bad env start, sharded", shardOptions{index: 0, count: 2}, env(at, "noon"), sweep.Shard{}, false, 0, nil, "$" + at + ` "noon"`},
		{"far start", shardOptions{index: 0, count: 2, startAt: "2026-06-20T11:00:00Z"}, env(), sweep.Shard{}, false, 0, nil, "ahead"},
		{"bad start", shardOptions{index: 0, count: 2, startAt: "noon"}, env(), sweep.Shard{}, false, 0, nil, `--start-at "noon"`},
		{"negative gap", shardOptions{index: 0, count: 2, startAt: soon, gap: -time.Second}, env(), sweep.Shard{}, false, 0, nil, "--round-gap"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := c.o.resolve(c.env, now)
			if c.err != "" {
				var ue UsageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("err %v, want a one-line usage error containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.shard != c.want || s.sharded != c.sharded || s.startAt != c.startAt {
				t.Fatalf("got %+v, want shard %+v sharded %v start %d", s, c.want, c.sharded, c.startAt)
			}
			if len(s.notes) != len(c.notes) {
				t.Fatalf("notes %q, want %d containing %q", s.notes, len(c.notes), c.notes)
			}
			for i, n := range s.notes {
				if !strings.Contains(n, c.notes[i]) || strings.Contains(n, "\n") {
					t.Errorf("note %q: want one line containing %q", n, c.notes[i])
				}
			}
		})
	}
}

// benchPlan validates benchmark and shard flags the way the benchmark
// command parses them.
func benchPlan(t *testing.T, args ...string) (*benchOptions, *draft, *shardSpec, error) {
	t.Helper()
	var o benchOptions
	fs := NewFlagSet("benchmark", "", io.Discard)
	benchFlags(&o, fs)
	if err := ParseFlags(fs, args); err != nil {
		return nil, nil, nil, err
	}
	p, err := o.validate()
	if err != nil {
		return nil, nil, nil, err
	}
	spec, err := o.shard.resolve(func(string) string { return "" }, time.Now())
	return &o, p, spec, err
}

func TestShardPlanRefusals(t *testing.T) {
	start := time.Now().Add(time.Minute).UTC().Format(time.RFC3339)
	base := []string{"--target", "http://127.0.0.1:1", "--data", "prompt_tokens=8,output_tokens=4", "--shard-index", "1", "--shard-count", "3", "--start-at", start}
	with := func(extra ...string) []string { return append(append([]string{}, base...), extra...) }
	cases := []struct {
		name string
		args []string
		want string // "" for success
	}{
		{"synchronous", with("--rate-type", "synchronous", "--max-requests", "10"), "--rate-type synchronous cannot be sharded"},
		{"rounds need max seconds", with("--rate-type", "concurrent", "--rate", "3,6", "--max-requests", "30"), "needs --max-seconds"},
		{"cap below shards", with("--rate-type", "poisson", "--rate", "5", "--max-seconds", "5", "--max-concurrency", "2"), "--max-concurrency"},
		{"both-mode warmup", with("--rate-type", "concurrent", "--rate", "3", "--max-seconds", "5", "--max-requests", "30",
			"--warmup", `{"value":5,"mode":"both"}`), "--warmup"},
		{"concurrent list", with("--rate-type", "concurrent", "--rate", "3,6", "--max-seconds", "5"), ""},
		{"single request-bound round", with("--rate-type", "constant", "--rate", "9", "--max-requests", "30"), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, p, spec, err := benchPlan(t, c.args...)
			if err != nil {
				t.Fatal(err)
			}
			sp, err := spec.plan(o.rateType, p)
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(sp.Rounds) == 0 {
					t.Fatal("no rounds")
				}
				return
			}
			var ue UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err %v, want a one-line usage error containing %q", err, c.want)
			}
		})
	}
	// An adaptive planner is refused, naming the fixed-list alternative.
	o, p, spec, err := benchPlan(t, with("--rate-type", "concurrent", "--rate", "3", "--max-seconds", "5")...)
	if err != nil {
		t.Fatal(err)
	}
	p.Plan.Planner = adaptivePlanner{}
	o.rateType = "sweep"
	if _, err := spec.plan(o.rateType, p); err == nil || !strings.Contains(err.Error(), "--rate-type sweep cannot be sharded") || !strings.Contains(err.Error(), "fixed --rate list") {
		t.Fatalf("adaptive: %v", err)
	}
}

type adaptivePlanner struct{}

func (adaptivePlanner) Next([]sweep.Round) (loadgen.Strategy, bool, error) {
	return loadgen.Strategy{}, false, nil
}

// FuzzParseStartAt: any input either parses to a positive instant that
// its Unix-seconds form reads back to, or fails with the accepted forms.
func FuzzParseStartAt(f *testing.F) {
	for _, s := range []string{"2026-06-16T12:00:00Z", "2026-06-16T12:00:00.123456789+02:00", "1781611200", "1781611200.5", "1781611200000", "x", "", "1.", ".5", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ns, err := parseStartAt(s)
		if err != nil {
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "Unix seconds") {
				t.Fatalf("%q: error %q", s, msg)
			}
			return
		}
		if ns <= 0 {
			t.Fatalf("%q: instant %d", s, ns)
		}
		unix := strconv.FormatInt(ns/1e9, 10) + "." + strconv.FormatInt(1e9+ns%1e9, 10)[1:]
		if back, err := parseStartAt(unix); err != nil || back != ns {
			t.Fatalf("%q = %d; its Unix form %q reads back as %d, %v", s, ns, unix, back, err)
		}
	})
}

// Through the command: a benchmark in an Indexed Job's pod without a shard
// count (the warmup init container: Kubernetes sets $JOB_COMPLETION_INDEX
// there too, envFrom brings $GOODPUT_START_AT) runs at once and unsharded;
// with $GOODPUT_SHARD_COUNT the same variables make it a shard. A shard's
// --output-path FILE.json is written under exactly that name, which is
// what the merge Job of deploy/overlays/indexed reads.
func TestShardEnvDefaultsThroughTheCommand(t *testing.T) {
	url := clitest.Mock(t, nil)
	stale := time.Now().Add(-10 * time.Minute).UTC().Format(time.RFC3339)
	common := []string{"benchmark", "--target", url, "--data", "prompt_tokens=8,output_tokens=4",
		"--rate-type", "concurrent", "--rate", "2", "--max-requests", "4", "--disable-progress"}
	with := func(extra ...string) []string { return append(slices.Clone(common), extra...) }

	t.Run("warmup", func(t *testing.T) {
		code, _, stderr := runEnv(t, map[string]string{envShardIndex: "0", envStartAt: stale}, with("--outputs", "console")...)
		if code != ExitOK {
			t.Fatalf("exit %d, want %d (no shard count: the index and the start are not this run's): %s", code, ExitOK, stderr)
		}
	})
	t.Run("shard from the environment", func(t *testing.T) {
		code, _, stderr := runEnv(t, map[string]string{envShardIndex: "0", envShardCount: "2", envStartAt: stale}, with("--outputs", "console")...)
		if code != ExitUsage || !strings.Contains(stderr, "$"+envStartAt+" "+stale) || !strings.Contains(stderr, "in the past") {
			t.Fatalf("exit %d, stderr %q: want exit %d naming the stale $%s (a shard reads it)", code, stderr, ExitUsage, envStartAt)
		}
	})
	t.Run("explicit index without count", func(t *testing.T) {
		code, _, stderr := runEnv(t, nil, with("--outputs", "console", "--shard-index", "0")...)
		if code != ExitUsage || !strings.Contains(stderr, "--shard-index 0 needs the shard count") {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
	})
	t.Run("output path kept", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "run")
		out := filepath.Join(dir, "shard-0.json")
		start := time.Now().Add(300 * time.Millisecond).UTC().Format(time.RFC3339Nano)
		code, _, stderr := runEnv(t, map[string]string{envShardIndex: "0", envShardCount: "1", envStartAt: start},
			with("--outputs", "json,jsonl", "--output-path", out, "--run-id", "run")...)
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if want := []string{"shard-0.json", "shard-0.jsonl"}; !slices.Equal(names, want) {
			t.Fatalf("%s holds %q, want %q", dir, names, want)
		}
		if si := clitest.ReadReport(t, out).Run.Shard; si == nil || si.Index != 0 || si.Count != 1 || si.RunID != "run" {
			t.Fatalf("shard identity %+v", si)
		}
	})
}
