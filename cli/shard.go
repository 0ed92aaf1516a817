package cli

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/sweep"
)

// Multi-pod flags of goodput benchmark. An Indexed Job runs the same
// command line in n pods; Kubernetes gives each its index in
// $JOB_COMPLETION_INDEX, the manifest gives all of them the shard count
// ($GOODPUT_SHARD_COUNT: Kubernetes has no downward-API field for a Job's
// completions) and the shared start, and every pod generates its share of
// every round from that instant on. "goodput merge" combines the shard
// reports. The environment applies only to a run given a shard count:
// Kubernetes sets $JOB_COMPLETION_INDEX in the pod's init containers too
// (a warmup step is no shard).

// Environment variables read by the shard flags.
const (
	envShardIndex = "JOB_COMPLETION_INDEX" // set by Kubernetes in the pods of an Indexed Job
	envShardCount = "GOODPUT_SHARD_COUNT"  // set by the Job manifest to spec.completions
	envStartAt    = "GOODPUT_START_AT"     // optional: the shared start, instead of --start-at
)

// defaultRoundGap is the pause between the rounds of a sharded run.
const defaultRoundGap = 5 * time.Second

// maxStartAhead bounds how far in the future --start-at may be (a typo
// guard: a Job waiting days for its start is almost certainly a mistake).
const maxStartAhead = 24 * time.Hour

// shardOptions are the raw shard flags.
type shardOptions struct {
	index, count int
	startAt      string
	gap          time.Duration
}

// shardFlags registers --shard-index, --shard-count, --start-at and
// --round-gap.
func shardFlags(o *shardOptions, fs *pflag.FlagSet) {
	fs.IntVar(&o.index, "shard-index", -1, "this pod's shard, 0-based (default $"+envShardIndex+", set in an Indexed Job's pods, when a shard count is given)")
	fs.IntVar(&o.count, "shard-count", 0, "number of pods sharing the load: each runs its share of every round (default $"+envShardCount+")")
	fs.StringVar(&o.startAt, "start-at", "", "wall-clock instant every shard starts at: RFC 3339 (2026-06-16T12:00:00Z) or Unix seconds (default $"+envStartAt+" when a shard count is given)")
	fs.DurationVar(&o.gap, "round-gap", defaultRoundGap, "pause between rounds: in a sharded run round k starts at --start-at + k × (--max-seconds + gap); otherwise the least wait before each round for the server to drain (default 0 when not sharded)")
}

// shardSpec is the resolved shard setting of a benchmark.
type shardSpec struct {
	shard   sweep.Shard
	sharded bool  // a shard count was given: the report carries a shard identity
	startAt int64 // shared start (Unix ns), 0 for none
	gap     time.Duration
	// notes name the environment defaults that were set but not applied
	// (one line each, for the run's log): $JOB_COMPLETION_INDEX and
	// $GOODPUT_START_AT in a run that is not sharded.
	notes []string
}

// resolve applies the environment defaults and checks the shard flags.
// Errors are usage errors naming the flag.
//
// A run is sharded when it has a shard count: --shard-count, else
// $GOODPUT_SHARD_COUNT. Only then do $JOB_COMPLETION_INDEX (the default of
// --shard-index) and $GOODPUT_START_AT (the default of --start-at) apply.
// Kubernetes sets $JOB_COMPLETION_INDEX in every container of an Indexed
// Job's pods, init containers included, and a ConfigMap given with envFrom
// reaches them all: a warmup step in the same pod is no shard and must
// neither take the index nor wait for the shards' start. Those variables
// are then ignored, with a note. The flags are the user's explicit word:
// --shard-index without a shard count is an error, and --start-at alone
// makes a single run wait for that instant.
func (o *shardOptions) resolve(getenv func(string) string, now time.Time) (*shardSpec, error) {
	s := &shardSpec{gap: o.gap}
	if o.index < -1 {
		return nil, Usagef("--shard-index %d: want a shard index ≥ 0", o.index)
	}
	if o.count < 0 {
		return nil, Usagef("--shard-count %d: want a number of shards ≥ 1", o.count)
	}
	count, countFrom := o.count, "--shard-count"
	if count == 0 {
		if v := getenv(envShardCount); v != "" {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < 1 {
				return nil, Usagef("$%s %q: want a number of shards ≥ 1", envShardCount, v)
			}
			count, countFrom = n, "$"+envShardCount
		}
	}
	s.sharded = count >= 1
	index, indexFrom := o.index, "--shard-index"
	if v := getenv(envShardIndex); index == -1 && v != "" {
		if !s.sharded {
			s.notes = append(s.notes, fmt.Sprintf("$%s=%q ignored: no shard count (--shard-count or $%s), so this run is not a shard", envShardIndex, v, envShardCount))
		} else {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < 0 {
				return nil, Usagef("$%s %q: want a shard index ≥ 0", envShardIndex, v)
			}
			index, indexFrom = n, "$"+envShardIndex
		}
	}
	switch {
	case index >= 0 && !s.sharded:
		return nil, Usagef("--shard-index %d needs the shard count: give --shard-count or set $%s (the Job's completions)", index, envShardCount)
	case count > 1 && index < 0:
		return nil, Usagef("%s %d needs this pod's index: give --shard-index or run as an Indexed Job ($%s)", countFrom, count, envShardIndex)
	case s.sharded:
		if index >= count {
			return nil, Usagef("shard index %d (from %s) is outside 0..%d for %s %d", index, indexFrom, count-1, countFrom, count)
		}
		s.shard = sweep.Shard{Index: max(index, 0), Count: count}
	}
	if o.gap < 0 {
		return nil, Usagef("--round-gap %v: want a duration ≥ 0", o.gap)
	}
	at, from := o.startAt, "--start-at"
	if v := getenv(envStartAt); at == "" && v != "" {
		if s.sharded {
			at, from = v, "$"+envStartAt
		} else {
			s.notes = append(s.notes, fmt.Sprintf("$%s=%q ignored: no shard count (--shard-count or $%s), so this run does not wait for the shards' start (give --start-at to wait)", envStartAt, v, envShardCount))
		}
	}
	if at != "" {
		ns, err := parseStartAt(at)
		if err != nil {
			return nil, Usagef("%s %q: %v", from, at, err)
		}
		switch d := time.Unix(0, ns).Sub(now); {
		case d < -sweep.MaxShardLateness:
			return nil, Usagef("%s %s is %v in the past: the pods must be running before the shared start (choose a later instant)", from, at, (-d).Round(time.Second))
		case d > maxStartAhead:
			return nil, Usagef("%s %s is %v ahead (more than %v): check the instant", from, at, d.Round(time.Second), maxStartAhead)
		}
		s.startAt = ns
	}
	if s.shard.Count > 1 && s.startAt == 0 {
		return nil, Usagef("%s %d needs --start-at (or $%s): the shards must start together, e.g. --start-at %s", countFrom, count, envStartAt, now.Add(2*time.Minute).UTC().Truncate(time.Minute).Format(time.RFC3339))
	}
	return s, nil
}

// drainOptions are the flags of the wait for an idle server before each
// round (a sharded run keeps its timetable instead).
type drainOptions struct {
	maxDrain time.Duration
	keepBusy bool
}

// drainFlags registers --max-drain and --judge-busy-rounds.
func drainFlags(o *drainOptions, fs *pflag.FlagSet) {
	fs.DurationVar(&o.maxDrain, "max-drain", sweep.DefaultMaxDrain, "before each round wait at most this long for the server to finish what earlier rounds left (its running and waiting gauges from the server metrics, else one-token probes until one is as fast as on the idle server, or with --server-metrics off the previous round's longest request); a round that starts on a busy server is marked and left out of sweep and knee verdicts")
	fs.BoolVar(&o.keepBusy, "judge-busy-rounds", false, "keep rounds that started on a busy server (--max-drain ran out) in sweep and knee verdicts")
}

// drain is the runner's wait before each round: gap (--round-gap) is its
// floor when the user gave it, else there is none.
func (o *drainOptions) drain(gap time.Duration, gapGiven bool) (*sweep.Drain, error) {
	if o.maxDrain <= 0 {
		return nil, Usagef("--max-drain %v: want a duration > 0, e.g. 2m", o.maxDrain)
	}
	if !gapGiven {
		gap = 0
	}
	return &sweep.Drain{Gap: gap, Max: o.maxDrain, KeepBusy: o.keepBusy}, nil
}

// errorRate is a benchmark's errored share of the requests in its window
// (goodput's figure, else GuideLLM's totals); ok=false when unknown.
func errorRate(b *report.Benchmark) (rate float64, ok bool) {
	if g := b.Extras; g != nil {
		return float64(g.Errors.ErrorRate), true
	}
	if t := b.Metrics.RequestTotals; t != nil && t.Total > 0 {
		return float64(t.Errored) / float64(t.Total), true
	}
	return 0, false
}

// parseStartAt reads an instant as RFC 3339 (with optional fractional
// seconds) or as Unix seconds (an integer with up to 9 decimals), returning
// Unix nanoseconds.
func parseStartAt(s string) (int64, error) {
	s = strings.TrimSpace(s)
	bad := errors.New("want an RFC 3339 instant (2026-06-16T12:00:00Z) or Unix seconds (1781611200)")
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		if t.Unix() <= 0 || t.Year() >= 2200 {
			return 0, bad
		}
		return t.UnixNano(), nil
	}
	whole, frac, hasFrac := strings.Cut(s, ".")
	if whole == "" || len(whole) > 18 || (hasFrac && (frac == "" || len(frac) > 9)) || !digits(whole) || !digits(frac) {
		return 0, bad
	}
	sec, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || sec <= 0 {
		return 0, bad
	}
	switch {
	case sec >= 1e11:
		return 0, errors.New("looks like milliseconds: give Unix seconds (1781611200) or RFC 3339 (2026-06-16T12:00:00Z)")
	case sec >= 7e9: // beyond the year 2191: not an instant anyone means
		return 0, bad
	}
	ns := int64(0)
	if frac != "" {
		f, _ := strconv.ParseInt((frac + "000000000")[:9], 10, 64)
		ns = f
	}
	return sec*1e9 + ns, nil
}

func digits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// plan splits a validated benchmark plan into this shard's rounds. It
// refuses what cannot be sharded: synchronous load, adaptive planners and,
// for several rounds, a run without --max-seconds.
func (s *shardSpec) plan(rateType string, p *draft) (*sweep.ShardPlan, error) {
	list, ok := p.Plan.Planner.(sweep.List)
	if !ok {
		return nil, Usagef("--rate-type %s cannot be sharded: an adaptive planner needs every shard's results and the shards cannot coordinate without a server; use a fixed --rate list instead, e.g. --rate-type constant --rate 2,4,8", rateType)
	}
	if s.shard.Count > 1 {
		for _, st := range list {
			if st.Kind == loadgen.Synchronous {
				return nil, Usagef("--rate-type synchronous cannot be sharded: it sends one request at a time (for N requests at a time across the shards use --rate-type concurrent --rate N)")
			}
		}
	}
	if len(list) > 1 && p.Plan.Constraints.MaxDuration <= 0 {
		return nil, Usagef("--rate with %d values needs --max-seconds when sharded: round k starts at --start-at + k × (--max-seconds + --round-gap), so every round must be time-bound", len(list))
	}
	sp, err := sweep.NewShardPlan(sweep.ShardConfig{
		Shard: s.shard, Planner: list, Constraints: p.Plan.Constraints, Warmup: p.Plan.Warmup, Cooldown: p.Plan.Cooldown,
		StartAt: s.startAt, Gap: s.gap, Seed: uint64(p.Plan.Seed),
	})
	if err != nil {
		var flag string
		switch {
		case errors.Is(err, sweep.ErrSynchronousShards):
			flag = "--rate-type synchronous: "
		case errors.Is(err, sweep.ErrReplayShards), errors.Is(err, sweep.ErrAdaptiveShards):
			flag = "--rate-type " + rateType + ": "
		case strings.Contains(err.Error(), "max concurrency"):
			flag = "--max-concurrency: "
		case strings.HasPrefix(err.Error(), "warmup"):
			flag = "--"
		case strings.HasPrefix(err.Error(), "cooldown"):
			flag = "--"
		}
		return nil, Usagef("%s%v", flag, err)
	}
	return sp, nil
}
