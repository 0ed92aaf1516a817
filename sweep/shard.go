package sweep

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/accum"
)

// Multi-pod runs. When one pod cannot generate the load, n pods (an
// Indexed Job) each run a Shard of it: every round's streams, rate,
// in-flight cap and request limit are split across the shards, and all
// shards start every round at the same wall-clock instant. Round k starts
// at StartAt + k × (round duration + gap); a multi-round run must be
// time-bound so that every shard's round ends at the same deadline.

// Shard is one pod's place in a multi-pod run: shard Index of Count.
type Shard struct {
	Index, Count int
}

// Validate checks that the index lies in 0..Count-1.
func (s Shard) Validate() error {
	if s.Count < 1 {
		return fmt.Errorf("shard count %d: want ≥ 1", s.Count)
	}
	if s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("shard index %d: want 0..%d for %d shards", s.Index, s.Count-1, s.Count)
	}
	return nil
}

// Share is this shard's part of total whole units (streams, requests, an
// in-flight cap): ⌊total/n⌋, plus one for the first total mod n shards,
// so that the shares add up to total. It may be 0.
func (s Shard) Share(total int) int {
	if s.Count <= 1 {
		return total
	}
	q, r := total/s.Count, total%s.Count
	if s.Index < r {
		q++
	}
	return q
}

// Seed derives this shard's seed from the run's: distinct for every
// index (SplitMix64 of the seed and the index), the run's own seed for a
// single shard. Poisson shards draw from independent streams, so their
// superposition is a Poisson process; data seeded per shard keeps the
// shards from sending identical prompts at the same moment.
func (s Shard) Seed(seed uint64) uint64 {
	if s.Count <= 1 {
		return seed
	}
	z := seed + uint64(s.Index+1)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// Errors of a strategy that cannot be split.
var (
	// ErrSynchronousShards: one request at a time cannot be split.
	ErrSynchronousShards = errors.New("synchronous load is one request at a time and cannot be split across shards (use concurrent with the total number of streams)")
	// ErrReplayShards: a trace's send times cannot be split without
	// changing its schedule.
	ErrReplayShards = errors.New("a replayed trace cannot be split across shards")
	// ErrUserCentricShards: the users' staggered slots are one schedule;
	// splitting it is not done yet.
	ErrUserCentricShards = errors.New("a user-centric rate cannot be split across shards yet (run it from one pod)")
	// ErrShapeShards: n gamma processes merge into a smoother one than
	// the target, and a shaped constant schedule has no interleaving
	// offset; poisson shards of a ramp or series merge exactly.
	ErrShapeShards = errors.New("gamma arrivals and a constant rate series or shaped ramp cannot be split across shards (poisson ramps and series can)")
	// ErrAdaptiveShards: planners that choose the next round from the
	// results (GuideLLM's sweep, the knee search) would need every shard's
	// results, and shards do not talk to each other.
	ErrAdaptiveShards = errors.New("adaptive planners (sweep, knee search) cannot be sharded: the shards cannot coordinate without a server; give a fixed list of rates or concurrencies instead")
)

// Strategy returns this shard's share of a round's strategy:
// concurrent streams and a throughput concurrency are split like Share
// (0 leaves the shard empty for the round); a constant or poisson rate r
// becomes r/n. A constant shard i is offset i/r from the round start so
// that the shards' evenly spaced sends interleave into one stream of rate
// r (n shards at r/n from the same instant would send in bursts of n);
// poisson shards get distinct seeds (Seed). An open-loop in-flight cap is
// split like Share and must leave every shard at least 1. Synchronous and
// replay strategies cannot be split. A ramp's start and a rate series are
// split like the rate (poisson processes at r(t)/n merge into one at
// r(t)); gamma arrivals and shaped constant schedules cannot be split.
func (s Shard) Strategy(total loadgen.Strategy) (share loadgen.Strategy, offset time.Duration, empty bool, err error) {
	if err := s.Validate(); err != nil {
		return loadgen.Strategy{}, 0, false, err
	}
	if err := total.Validate(); err != nil {
		return loadgen.Strategy{}, 0, false, err
	}
	share = total
	if s.Count == 1 {
		return share, 0, false, nil
	}
	if total.MaxPrefill > 0 {
		// Like the in-flight cap, the prefill cap is split: each shard
		// caps its own requests waiting for a first token.
		if total.MaxPrefill < s.Count {
			return loadgen.Strategy{}, 0, false, fmt.Errorf("max prefill %d is less than the shard count %d: every shard needs a prefill cap of at least 1", total.MaxPrefill, s.Count)
		}
		share.MaxPrefill = s.Share(total.MaxPrefill)
	}
	switch total.Kind {
	case loadgen.Synchronous:
		return loadgen.Strategy{}, 0, false, ErrSynchronousShards
	case loadgen.Replay:
		return loadgen.Strategy{}, 0, false, ErrReplayShards
	case loadgen.UserCentric:
		return loadgen.Strategy{}, 0, false, ErrUserCentricShards
	case loadgen.Concurrent, loadgen.Throughput:
		share.Streams = s.Share(total.Streams)
		share.RampFrom = total.RampFrom / float64(s.Count)
		return share, 0, share.Streams == 0, nil
	}
	shaped := len(total.Series) > 0 || total.RampShape == loadgen.RampExponential || total.RampFrom != 0
	if (total.Burstiness != 0 && total.Burstiness != 1) || (total.Kind == loadgen.Constant && shaped) {
		return loadgen.Strategy{}, 0, false, ErrShapeShards
	}
	share.Rate = total.Rate / float64(s.Count)
	share.RampFrom = total.RampFrom / float64(s.Count)
	if len(total.Series) > 0 {
		share.Series = make([]loadgen.RateSegment, len(total.Series))
		for i, g := range total.Series {
			share.Series[i] = loadgen.RateSegment{Duration: g.Duration, From: g.From / float64(s.Count), To: g.To / float64(s.Count)}
		}
	}
	if total.MaxConcurrency > 0 {
		if total.MaxConcurrency < s.Count {
			return loadgen.Strategy{}, 0, false, fmt.Errorf("max concurrency %d is less than the shard count %d: every shard needs an in-flight cap of at least 1", total.MaxConcurrency, s.Count)
		}
		share.MaxConcurrency = s.Share(total.MaxConcurrency)
	}
	if total.Kind == loadgen.Poisson {
		share.Seed = s.Seed(total.Seed)
		return share, 0, false, nil
	}
	return share, time.Duration(math.Round(float64(s.Index) / total.Rate * 1e9)), false, nil
}

// Constraints returns this shard's limits: the request limit is split
// like Share (a shard whose share is 0 is empty: 0 would mean "no
// limit"); the duration limit is the round's; the error limits stay per
// shard (each shard stops on its own errors).
func (s Shard) Constraints(total loadgen.Constraints) (share loadgen.Constraints, empty bool) {
	share = total
	if total.MaxRequests > 0 {
		share.MaxRequests = s.Share(total.MaxRequests)
		empty = share.MaxRequests == 0
	}
	return share, empty
}

// Phase returns this shard's share of a warmup or cooldown: a phase that
// counts an absolute number of requests (given the run's limits) is split
// like Share; fractions and seconds apply to every shard as they are.
// An absolute value in mode "both" counts seconds and requests at once
// and cannot be split.
func (s Shard) Phase(t report.TransientPhase, maxRequests int, maxSeconds float64) (report.TransientPhase, error) {
	if s.Count <= 1 || t.Value == nil {
		return t, nil
	}
	secs, reqs := t.Limits(maxRequests, maxSeconds)
	if reqs == nil {
		return t, nil
	}
	if secs != nil {
		return t, fmt.Errorf("a phase of %v in mode both counts seconds and requests at once and cannot be split across shards; use a fraction (10%%) or one unit (30s, 100r)", *t.Value)
	}
	v := float64(s.Share(*reqs))
	out := t
	out.Value = &v
	return out, nil
}

// ShardConfig describes the whole run a shard belongs to.
type ShardConfig struct {
	Shard Shard
	// Planner must be a List: adaptive planners cannot be sharded.
	Planner Planner
	// Constraints, Warmup and Cooldown are the whole run's (not split).
	Constraints      loadgen.Constraints
	Warmup, Cooldown report.TransientPhase
	// StartAt is the shared start of the first round (Unix ns); Gap the
	// pause between rounds.
	StartAt int64
	Gap     time.Duration
	// Seed is the run's seed (before the per-shard derivation).
	Seed uint64
}

// ShardPlan is one shard's timetable and share of every round.
type ShardPlan struct {
	Config ShardConfig
	// Warmup and Cooldown are this shard's phases (Phase).
	Warmup, Cooldown report.TransientPhase
	Rounds           []ShardRound
}

// ShardRound is one round of a shard.
type ShardRound struct {
	Total       loadgen.Strategy    // the whole run's strategy
	Strategy    loadgen.Strategy    // this shard's share
	Constraints loadgen.Constraints // this shard's limits (duration shortened by Offset)
	Start       int64               // the round's shared start (Unix ns)
	End         int64               // the shared deadline (0: request-bound round)
	Offset      time.Duration       // this shard's phase offset after Start
	Empty       bool                // no share of this round: nothing is sent
}

// NewShardPlan splits a run into this shard's rounds. Only a fixed List
// can be sharded; more than one round needs a duration limit (round k
// starts at StartAt + k × (duration + Gap)).
func NewShardPlan(c ShardConfig) (*ShardPlan, error) {
	if err := c.Shard.Validate(); err != nil {
		return nil, err
	}
	list, ok := c.Planner.(List)
	if !ok {
		return nil, ErrAdaptiveShards
	}
	if len(list) == 0 {
		return nil, errors.New("no rounds to run")
	}
	if c.StartAt <= 0 {
		return nil, errors.New("a sharded run needs a shared start instant")
	}
	if c.Gap < 0 {
		return nil, fmt.Errorf("round gap %v: want ≥ 0", c.Gap)
	}
	d := c.Constraints.MaxDuration
	if len(list) > 1 && d <= 0 {
		return nil, fmt.Errorf("%d rounds need a duration limit: shards start round k at start + k × (duration + gap)", len(list))
	}
	p := &ShardPlan{Config: c}
	maxSecs := d.Seconds()
	var err error
	if p.Warmup, err = c.Shard.Phase(c.Warmup, c.Constraints.MaxRequests, maxSecs); err != nil {
		return nil, fmt.Errorf("warmup: %w", err)
	}
	if p.Cooldown, err = c.Shard.Phase(c.Cooldown, c.Constraints.MaxRequests, maxSecs); err != nil {
		return nil, fmt.Errorf("cooldown: %w", err)
	}
	cons, emptyReqs := c.Shard.Constraints(c.Constraints)
	for k, total := range list {
		s, off, empty, err := c.Shard.Strategy(total)
		if err != nil {
			return nil, fmt.Errorf("round %d (%s): %w", k, total, err)
		}
		r := ShardRound{Total: total, Strategy: s, Constraints: cons, Offset: off, Empty: empty || emptyReqs}
		r.Start = c.StartAt + int64(k)*int64(d+c.Gap)
		if d > 0 {
			r.End = r.Start + int64(d)
			if off >= d {
				r.Empty = true // its first send would fall after the deadline
			} else {
				r.Constraints.MaxDuration = d - off
			}
		}
		p.Rounds = append(p.Rounds, r)
	}
	return p, nil
}

// Info is the shard's identity for the report's top-level "goodput"
// (report.RunExtras.Shard). configHash identifies the run's configuration
// (every shard of a run computes the same); runID is the whole run's id.
func (p *ShardPlan) Info(configHash, runID string) *report.ShardInfo {
	c := p.Config
	return &report.ShardInfo{
		Index: report.Int(c.Shard.Index), Count: report.Int(c.Shard.Count), ConfigHash: configHash, RunID: runID,
		StartAt: time.Unix(0, c.StartAt).UTC().Format(time.RFC3339Nano), StartAtNs: report.Int(c.StartAt),
		RoundSeconds: report.Float(c.Constraints.MaxDuration.Seconds()), GapSeconds: report.Float(c.Gap.Seconds()),
		Rounds: report.Int(len(p.Rounds)), Warmup: c.Warmup, Cooldown: c.Cooldown,
		MaxRequests: report.Int(c.Constraints.MaxRequests), Seed: report.Int(int64(c.Seed)),
	}
}

// roundInfo is round k's entry for the benchmark's "goodput"."shard".
func (p *ShardPlan) roundInfo(k int, res loadgen.Result) *report.ShardRound {
	r := p.Rounds[k]
	return &report.ShardRound{
		Shard: report.Int(p.Config.Shard.Index), Count: report.Int(p.Config.Shard.Count), Round: report.Int(k),
		ScheduledStartNs: report.Int(r.Start), ScheduledEndNs: report.Int(r.End), OffsetNs: report.Int(int64(r.Offset)),
		Total: reportStrategy(r.Total), TotalArrival: reportArrival(r.Total), Empty: r.Empty,
		StartNs: report.Int(res.Start), StopNs: report.Int(res.StopTime), EndNs: report.Int(res.End),
	}
}

// MaxShardLateness is how late a shard may begin a round before RunShard
// gives up (the merge refuses a shard that started later than its
// tolerance, 1 s by default, anyway).
const MaxShardLateness = time.Second

// ErrShardLate is returned by RunShard when a round could not start on
// time.
var ErrShardLate = errors.New("shard started late")

// RunShard executes the plan's rounds at their scheduled instants, with
// r's engine, source, report configuration and outputs (r.Constraints
// and r.StartAt are replaced per round; r.Report.Warmup and Cooldown
// should be the plan's). The engine waits for each round's instant
// (precise to tens of µs) and schedules from it, so every shard's
// intended send times follow the shared timetable exactly and a late
// start shows as dispatch lateness. Every benchmark carries its place in
// the timetable (Extras.Shard). A round the shard has no share of yields
// a valid empty benchmark without sending anything. A round that cannot
// start within MaxShardLateness of its scheduled instant ends the run
// with ErrShardLate (the rounds done are returned).
func (r *Runner) RunShard(ctx context.Context, p *ShardPlan) ([]Round, error) {
	clock := r.Engine.Clock()
	var rounds []Round
	for k, sr := range p.Rounds {
		if ctx.Err() != nil {
			return rounds, ctx.Err()
		}
		at := sr.Start + int64(sr.Offset)
		if late := -clock.Until(at); late > MaxShardLateness {
			return rounds, fmt.Errorf("%w: round %d was due at %s and could not start until %v later (the pod started late, or the previous round overran the gap between rounds)",
				ErrShardLate, k, time.Unix(0, at).UTC().Format(time.RFC3339Nano), late.Round(time.Millisecond))
		}
		var round Round
		var err error
		if sr.Empty {
			sub := *r
			sub.Constraints = sr.Constraints
			round, err = sub.emptyRound(k, sr, at)
		} else {
			round, err = r.scheduledRound(ctx, k, sr.Strategy, sr.Constraints, at)
		}
		if err != nil {
			return rounds, err
		}
		if round.Benchmark.Extras != nil {
			round.Benchmark.Extras.Shard = p.roundInfo(k, round.Result)
		}
		rounds = append(rounds, round)
		if round.Result.Interrupted {
			return rounds, context.Canceled
		}
	}
	return rounds, nil
}

// scheduledRound runs round index starting at the instant at. Runner.round
// honours StartAt for its first round only, so the round runs as a first
// round of a copy of the runner (with round index's source), and
// indexObserver restores its index: on the records (before they are
// written), for the observer and in the report.
func (r *Runner) scheduledRound(ctx context.Context, index int, s loadgen.Strategy, cons loadgen.Constraints, at int64) (Round, error) {
	sub := *r
	sub.Constraints, sub.StartAt = cons, at
	// Shards start their rounds on a timetable: no warmup, no control.
	sub.Warmup, sub.Control = nil, nil
	if r.Sources != nil { // the round's own source, not the first round's
		sub.Source, sub.Sources = r.Sources(index), nil
	}
	ix := &indexObserver{index: index, next: r.Observer, enc: r.Records}
	sub.Observer, sub.Records = ix, nil
	sub.Info.RunIndex = index
	if sub.Info.ID == "" {
		sub.Info.ID = report.BenchmarkID(r.Info.RunID, index)
	}
	round, err := sub.round(ctx, 0, s, sub.Constraints, nil)
	if r.Records != nil {
		_ = r.Records.Flush() // a write error is the encoder's to report (Loss)
	}
	if err != nil {
		return Round{}, err
	}
	round.Benchmark.Config.RunIndex = report.Int(index)
	return round, nil
}

// indexObserver gives the records and events of a round run as a first
// round its real index, writes the records, and forwards to the run's
// observer.
type indexObserver struct {
	index int
	next  Observer
	enc   *record.Encoder
}

func (o *indexObserver) BenchmarkStart(_ int, s loadgen.Strategy, c loadgen.Constraints, start int64) {
	if o.next != nil {
		o.next.BenchmarkStart(o.index, s, c, start)
	}
}

func (o *indexObserver) Record(rec *record.Record) {
	rec.Benchmark = o.index
	if o.enc != nil {
		_ = o.enc.Encode(rec) // a write error is the encoder's to report (Loss)
	}
	if o.next != nil {
		o.next.Record(rec)
	}
}

// FlushRecords writes the buffered records to the file.
func (o *indexObserver) FlushRecords() {
	if o.enc != nil {
		_ = o.enc.Flush()
	}
}

func (o *indexObserver) BenchmarkEnd(_ int, round Round) {
	if round.Benchmark != nil {
		round.Benchmark.Config.RunIndex = report.Int(o.index)
	}
	if o.next != nil {
		o.next.BenchmarkEnd(o.index, round)
	}
}

// EmptyStopReason is the stop reason of a round a shard had no share of.
const EmptyStopReason = "no_shard_share"

// emptyRound finishes a benchmark without load for a round this shard
// has no share of, so that every shard's report has every round. A share
// of zero streams is no strategy GuideLLM's schema accepts (streams > 0):
// the benchmark then names the whole run's strategy, and its
// goodput.shard.empty says that this shard sent nothing.
func (r *Runner) emptyRound(index int, sr ShardRound, start int64) (Round, error) {
	s := sr.Strategy
	if r.Observer != nil {
		r.Observer.BenchmarkStart(index, s, r.Constraints, start)
	}
	cfg := r.Report
	cfg.Start = start
	cfg.Constraints = ReportConstraints(r.Constraints)
	acc, err := accum.New(cfg)
	if err != nil {
		return Round{}, err
	}
	res := loadgen.Result{Start: start, End: start, StopReason: EmptyStopReason}
	info := r.Info
	info.RunIndex = index
	info.Strategy = reportStrategy(s)
	if info.Strategy.Validate() != nil {
		info.Strategy = reportStrategy(sr.Total)
	}
	info.Start, info.End, info.ProcessingEnd = start, start, start
	info.StopReason = EmptyStopReason
	info.Workers = max(s.Workers(), 1)
	b := acc.Finish(info)
	round := Round{Strategy: s, Result: res, Benchmark: b}
	if r.Observer != nil {
		r.Observer.BenchmarkEnd(index, round)
	}
	return round, nil
}
