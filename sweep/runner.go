package sweep

import (
	"context"
	"errors"
	"runtime"
	"time"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/accum"
)

// Round is one executed benchmark.
type Round struct {
	Strategy  loadgen.Strategy
	Result    loadgen.Result
	Benchmark *report.Benchmark
	// Excluded says the round started on a busy server (the runner's
	// Drain ran out of time; Benchmark.Goodput.Drain.Busy) and knee and
	// sweep verdicts leave it out (the Drain did not say KeepBusy).
	Excluded bool
}

// Planner decides the next round from the finished ones. ok=false ends
// the run.
//
// A planner says what else it is through optional methods, never through
// its type: RoundCounter (rounds known ahead), StreamLimiter (the most
// connections a round holds), RoundScaler (longer rounds), Kneer (its
// own knee), Repeater (repetitions) and AdaptivePlanner (a knee
// detection's grid). A planner that wraps another implements each by
// asking the wrapped one, so a new planner needs no edit elsewhere.
type Planner interface {
	Next(done []Round) (s loadgen.Strategy, ok bool, err error)
}

// RoundCounter is a planner that knows its rounds in advance.
type RoundCounter interface {
	Rounds() int
}

// StreamLimiter is a planner that knows the most connections a round of
// its plan holds at once (MaxStreams).
type StreamLimiter interface {
	MaxStreams() int
}

// Repeater is a planner that plays a plan several times (Repeat):
// Repetition is round i's, 0-based.
type Repeater interface {
	Repetition(i int) int
}

// AdaptivePlanner is a planner that adds a knee detection's adaptive grid
// after its inner plan (KneePlanner): AdaptivePlan is the inner plan's
// round count and the grid's streams, ok=false before the grid is made.
type AdaptivePlanner interface {
	AdaptivePlan() (initial int, grid []int, ok bool)
}

// List plans a fixed series of strategies, in order.
type List []loadgen.Strategy

// Next returns the next strategy of the list.
func (l List) Next(done []Round) (loadgen.Strategy, bool, error) {
	if len(done) >= len(l) {
		return loadgen.Strategy{}, false, nil
	}
	return l[len(done)], true, nil
}

// Rounds is the list's length.
func (l List) Rounds() int { return len(l) }

// MaxStreams is the most streams of a round of the list.
func (l List) MaxStreams() int {
	n := 0
	for _, s := range l {
		n = max(n, strategyStreams(s))
	}
	return n
}

// Observer watches a run live (progress display, logs). Its methods are
// called from the runner's collector goroutine, never concurrently.
type Observer interface {
	BenchmarkStart(index int, s loadgen.Strategy, c loadgen.Constraints, start int64)
	Record(r *record.Record)
	BenchmarkEnd(index int, round Round)
}

// Runner executes rounds.
type Runner struct {
	Engine *loadgen.Engine
	Source loadgen.Source
	// Sources, when set, gives each round its own source (index = round),
	// so a later round does not resend an earlier round's prompts (which
	// the server's prefix cache would answer): see dataset.Dataset.Round.
	Sources     func(round int) loadgen.Source
	Constraints loadgen.Constraints
	// TargetMOE, when set, watches every round (GuideLLM's target_moe).
	TargetMOE *TargetMOE
	// Report is the accumulator configuration of every round (warmup,
	// cooldown, sample size, seed, and the SLO each round is judged
	// against: the knee search needs it); Start and Constraints are filled
	// in per round.
	Report accum.Config
	// Info is the template of every round's accum.BenchmarkInfo (run id,
	// backend, requests, environment); strategy, timings and counters are
	// filled in per round.
	Info accum.BenchmarkInfo
	// Records, when set, receives every record as a JSON line. A write
	// error does not stop the run: the caller reads what it lost from
	// Records.Loss.
	Records *record.Encoder
	// Observer, when set, watches the run.
	Observer Observer
	// StartAt, when set, is the start of the first round (multi-pod runs).
	StartAt int64
	// Drain, when set, waits before every round until the server has
	// drained what earlier rounds left, and records the wait in the
	// round's benchmark (Extras.Drain). Run uses it; RunShard, whose
	// rounds start on a timetable, does not.
	Drain *Drain
	// Warmup, when set, is the warmup phase run before every round's
	// measured one (AIPerf's warmup phase; loadgen.Benchmark.Warmup): its
	// records go to Records and the observers marked record.Warmup, and
	// the round's window starts after it. RunShard does not run it.
	Warmup *loadgen.Phase
	// Control, when set, is what every round asks of the server (AIPerf's
	// control hooks: a KV-cache reset after the drain, before the round's
	// warmup; the profiler around its measured phase); the calls are in
	// the round's benchmark (Extras.Control). RunShard does not send it.
	Control *loadgen.Control
}

// Run executes rounds until the planner stops or ctx is cancelled. An
// interrupted round is still finished into the report (marked as such) and
// returned with the others, along with ctx's error. A round that stopped
// because the server went away (loadgen.StopServerGone) is the last.
func (r *Runner) Run(ctx context.Context, p Planner) ([]Round, error) {
	if r.Drain != nil {
		if err := r.Drain.Validate(); err != nil {
			return nil, err
		}
	}
	var rounds []Round
	var prevEnd time.Time
	for i := 0; ; i++ {
		if ctx.Err() != nil {
			return rounds, ctx.Err()
		}
		s, ok, err := p.Next(rounds)
		if err != nil {
			return rounds, err
		}
		if !ok {
			return rounds, nil
		}
		var drain *report.DrainWait
		if r.Drain != nil {
			var prev *Round
			if len(rounds) > 0 {
				prev = &rounds[len(rounds)-1]
			}
			w, err := r.Drain.Wait(ctx, prev, prevEnd)
			if err != nil {
				return rounds, err
			}
			drain = &w
		}
		cons := r.Constraints
		if f := ScaleOf(p, rounds, s); f > 1 {
			cons.MaxDuration = time.Duration(float64(cons.MaxDuration) * f)
			cons.MaxRequests = int(float64(cons.MaxRequests) * f)
		}
		round, err := r.round(ctx, i, s, cons, drain)
		if err != nil {
			return rounds, err
		}
		if r.Drain != nil {
			prevEnd = r.Drain.now()
		}
		rounds = append(rounds, round)
		if round.Result.Interrupted {
			return rounds, context.Canceled
		}
		if round.Result.StopReason == loadgen.StopServerGone {
			return rounds, nil // the server went away: no more rounds are sent to it
		}
	}
}

// RoundScaler is a planner that lengthens some rounds: the runner
// multiplies the next round's MaxDuration and MaxRequests by Scale (a
// factor > 1; 1 leaves them). The knee search uses it to measure an
// undecided load again with more requests.
type RoundScaler interface {
	Scale(done []Round, next loadgen.Strategy) float64
}

// ScaleOf is p's factor for the next round (RoundScaler), 1 when p
// lengthens no round. A planner that wraps another implements Scale by
// calling ScaleOf on it, so the wrapped knee search still extends its
// rounds.
func ScaleOf(p Planner, done []Round, next loadgen.Strategy) float64 {
	if sc, ok := p.(RoundScaler); ok {
		return sc.Scale(done, next)
	}
	return 1
}

// RecordsFlushEvery is how often the request records written during a
// benchmark are flushed to the file.
const RecordsFlushEvery = time.Second

// recordsFlusher is an observer that writes records itself (a shard's
// round) and can flush them.
type recordsFlusher interface{ FlushRecords() }

// round runs one benchmark and finishes it into a report benchmark; drain,
// when not nil, is the wait before it.
func (r *Runner) round(ctx context.Context, index int, s loadgen.Strategy, cons loadgen.Constraints, drain *report.DrainWait) (Round, error) {
	clock := r.Engine.Clock()
	start := r.StartAt
	if index > 0 || start == 0 {
		start = clock.Now()
	}
	cfg := r.Report
	cfg.Start = start
	cfg.Constraints = ReportConstraints(cons)
	acc, err := accum.New(cfg)
	if err != nil {
		return Round{}, err
	}
	out := make(chan *record.Record, 4096)
	collected := make(chan struct{})
	if r.Observer != nil {
		r.Observer.BenchmarkStart(index, s, cons, start)
	}
	go func() {
		defer close(collected)
		// The records reach the disk at least every RecordsFlushEvery,
		// so a killed process loses at most that much of them. A write
		// error (a full disk) does not stop the round: the encoder keeps
		// the file at its whole lines and counts the records it loses.
		tick := time.NewTicker(RecordsFlushEvery)
		defer tick.Stop()
		fl, _ := r.Observer.(recordsFlusher)
		dirty := false
		for {
			select {
			case rec, ok := <-out:
				if !ok {
					if r.Records != nil {
						_ = r.Records.Flush()
					}
					return
				}
				if r.Records != nil {
					_ = r.Records.Encode(rec)
				}
				acc.Add(rec)
				if r.Observer != nil {
					r.Observer.Record(rec)
				}
				r.Engine.Release(rec)
				dirty = true
			case <-tick.C:
				if dirty {
					if r.Records != nil {
						_ = r.Records.Flush()
					}
					if fl != nil {
						fl.FlushRecords()
					}
					dirty = false
				}
			}
		}
	}()
	var moe *moeWatcher
	if r.TargetMOE != nil {
		moe = r.TargetMOE.watcher()
		cons.Watcher = moe
	}
	bench := loadgen.Benchmark{Index: index, Strategy: s, Constraints: cons, Source: r.source(index), StartAt: start}
	if r.Warmup != nil {
		w := *r.Warmup
		bench.Warmup = &w
	}
	bench.Control = r.Control
	res, runErr := r.Engine.Run(ctx, bench, out)
	close(out)
	<-collected
	if runErr != nil {
		return Round{}, runErr
	}
	// The load's garbage is collected before the round is summarised, so
	// that the summary's own allocations reuse it instead of adding to
	// the process's peak (at 10,000 streams the two added up to 60 MB
	// more), and so that the next round does not start with a collection
	// due.
	runtime.GC()
	info := r.Info
	info.RunIndex = index
	info.Strategy = reportStrategy(s)
	info.Start, info.End, info.StopTime = res.Start, res.End, res.StopTime
	info.StopReason = string(res.StopReason)
	info.Workers = s.Workers()
	info.QueuingEnd = res.QueuingEnd
	info.ProcessingEnd = res.End
	info.Scheduler = schedulerCounts(res)
	if w := res.Warmup; w != nil {
		// The scheduler ran both phases; the window is the measured one's.
		info.Start, info.MeasureStart = w.Start, res.Start
		c := schedulerCounts(*w)
		info.Scheduler.Created += c.Created
		info.Scheduler.Processed += c.Processed
		info.Scheduler.Successful += c.Successful
		info.Scheduler.Errored += c.Errored
		info.Scheduler.Cancelled += c.Cancelled
	}
	b := acc.Finish(info)
	if b == nil {
		return Round{}, errors.New("report: accumulator returned no benchmark")
	}
	if b.Extras != nil {
		c := res.Client
		c.Backoffs, c.BackoffS = report.Int(res.Backoffs), report.Float(res.BackoffTime.Seconds())
		b.Extras.Client = &c
		b.Extras.Requests.NotSent = report.Int(res.NotSent)
		b.Extras.Drain = drain
		b.Extras.Control = res.Control
		b.Extras.Arrival = reportArrival(s)
		if res.Warmup != nil {
			b.Extras.WarmupPhase = reportWarmup(bench.Warmup, res.Warmup)
		}
		if o := reportSaturation(res.Saturation, cons.OverSaturation); o != nil {
			b.Extras.OverSaturation = o
			if b.SchedulerState != nil {
				if b.SchedulerState.SchedulerConstraints == nil {
					b.SchedulerState.SchedulerConstraints = map[string]report.SchedulerUpdateAction{}
				}
				b.SchedulerState.SchedulerConstraints["over_saturation"] = saturationAction(o)
			}
		}
		if moe != nil {
			b.Extras.TargetMOE = moe.result()
			if b.SchedulerState != nil {
				if b.SchedulerState.EndProcessingConstraints == nil {
					b.SchedulerState.EndProcessingConstraints = map[string]report.SchedulerUpdateAction{}
				}
				b.SchedulerState.EndProcessingConstraints["target_moe"] = moeAction(b.Extras.TargetMOE, r.TargetMOE.ScopeAll)
			}
		}
	}
	round := Round{Strategy: s, Result: res, Benchmark: b}
	round.Excluded = drain != nil && drain.Busy && !r.Drain.KeepBusy
	if r.Observer != nil {
		r.Observer.BenchmarkEnd(index, round)
	}
	return round, nil
}

// schedulerCounts are a phase's counters in GuideLLM's scheduler terms.
func schedulerCounts(res loadgen.Result) accum.SchedulerCounts {
	return accum.SchedulerCounts{
		Created:    int(res.Created + res.NotSent),
		Processed:  int(res.Successful + res.Errored + res.Incomplete),
		Successful: int(res.Successful), Errored: int(res.Errored),
		Cancelled: int(res.Incomplete + res.NotSent),
	}
}

// reportWarmup describes a warmup phase and what it did.
func reportWarmup(p *loadgen.Phase, res *loadgen.Result) *report.WarmupPhase {
	w := &report.WarmupPhase{Strategy: reportStrategy(p.Strategy), Arrival: reportArrival(p.Strategy),
		MaxRequests: report.Int(p.Constraints.MaxRequests), MaxSessions: report.Int(p.Sessions),
		MaxSeconds: report.Float(p.Constraints.MaxDuration.Seconds()), StopReason: string(res.StopReason),
		Successful: report.Int(res.Successful), Errored: report.Int(res.Errored), Incomplete: report.Int(res.Incomplete),
		DurationS: report.Float(float64(res.End-res.Start) / 1e9)}
	if d := p.Constraints.Drain; p.Constraints.MaxDuration > 0 && d != loadgen.DrainAll {
		w.GraceS = report.FloatPtr(d.Seconds())
	}
	return w
}

// ReportConstraints turns engine constraints into the report's constraint list.
func ReportConstraints(c loadgen.Constraints) []report.Constraint {
	var out []report.Constraint
	if c.MaxDuration > 0 {
		out = append(out, report.Constraint{Kind: report.ConstraintMaxDuration, Seconds: c.MaxDuration.Seconds()})
	}
	if c.MaxRequests > 0 {
		out = append(out, report.Constraint{Kind: report.ConstraintMaxRequests, Count: c.MaxRequests})
	}
	if c.MaxErrors > 0 {
		out = append(out, report.Constraint{Kind: report.ConstraintMaxErrors, Count: c.MaxErrors})
	}
	if c.MaxErrorRate > 0 {
		w := c.ErrorRateWindow
		if w == 0 {
			w = 30
		}
		out = append(out, report.Constraint{Kind: report.ConstraintMaxErrorRate, Rate: c.MaxErrorRate, Window: w})
	}
	if c.MaxGlobalErrorRate > 0 {
		m := c.GlobalErrorMin
		if m == 0 {
			m = 30
		}
		out = append(out, report.Constraint{Kind: report.ConstraintMaxGlobalErrorRate, Rate: c.MaxGlobalErrorRate, Minimum: m})
	}
	return out
}

// reportStrategy describes a strategy in the report's terms (a rate
// series at its mean rate; its shape goes to reportArrival).
func reportStrategy(s loadgen.Strategy) report.Strategy {
	rs := report.Strategy{Type: string(s.Kind), Rate: s.MeanRate(), WorkerCount: s.Workers(), RampupDuration: s.Rampup.Seconds()}
	switch s.Kind {
	case loadgen.Concurrent:
		rs.Streams = s.Streams
	case loadgen.Throughput:
		rs.MaxConcurrency = s.Streams
	case loadgen.Constant, loadgen.Poisson, loadgen.Replay:
		rs.MaxConcurrency = s.Workers()
	case loadgen.UserCentric:
		// GuideLLM's nearest reading: constant at the users' total rate,
		// each user at most one request in flight (fewer under a cap).
		rs.Type, rs.MaxConcurrency = report.StrategyConstant, s.Workers()
	}
	if s.Kind == loadgen.Poisson {
		rs.RandomSeed = int64(s.Seed)
	}
	return rs
}

// reportArrival records what GuideLLM's strategy object cannot say about
// the load's shape (report.Arrival): nil for GuideLLM's own shapes.
func reportArrival(s loadgen.Strategy) *report.Arrival {
	a := &report.Arrival{MaxPrefill: report.Int(s.MaxPrefill), PrefillRamp: slotRamp(s.PrefillRampup, s.MaxPrefill),
		CapRamp: slotRamp(s.CapRampup, s.MaxConcurrency)}
	if s.Kind == loadgen.UserCentric {
		a.Process, a.Users, a.TurnGapS = string(s.Kind), s.Streams, report.Float(float64(s.Streams)/s.Rate)
		return a
	}
	gamma := s.Burstiness != 0 && s.Burstiness != 1
	ramp := s.Rampup > 0 && (s.RampShape == loadgen.RampExponential || s.RampFrom != 0 || s.Kind == loadgen.Poisson)
	if !gamma && !ramp && len(s.Series) == 0 && s.MaxPrefill == 0 && s.CapRampup == 0 {
		return nil
	}
	if s.OpenLoop() {
		a.Process = string(s.Kind)
		if gamma {
			a.Process, a.Burstiness = "gamma", report.Float(s.Burstiness)
		}
	}
	if s.Rampup > 0 {
		shape := s.RampShape
		if shape == "" {
			shape = loadgen.RampLinear
		}
		r := &report.Ramp{Shape: string(shape), DurationS: report.Float(s.Rampup.Seconds()), From: report.Float(s.RampFrom), To: report.Float(s.Rate), Unit: "rate"}
		if !s.OpenLoop() {
			r.To, r.Unit = report.Float(s.Workers()), "streams"
			if shape == loadgen.RampExponential {
				r.From = report.Float(max(s.RampFrom, 1))
			}
		}
		a.Ramp = r
	}
	for _, g := range s.Series {
		a.Series = append(a.Series, report.RateSegment{DurationS: report.Float(g.Duration.Seconds()), FromRate: report.Float(g.From), ToRate: report.Float(g.To)})
	}
	return a
}

// slotRamp describes a cap's ramp from 1 to n slots over d; nil without one.
func slotRamp(d time.Duration, n int) *report.Ramp {
	if d <= 0 {
		return nil
	}
	return &report.Ramp{Shape: string(loadgen.RampLinear), DurationS: report.Float(d.Seconds()), From: 1, To: report.Float(n), Unit: "slots"}
}

// source is round index's request source.
func (r *Runner) source(index int) loadgen.Source {
	if r.Sources != nil {
		return r.Sources(index)
	}
	return r.Source
}
