package sweep

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/goodput-dev/goodput/report"
)

// Drain defaults.
const (
	DefaultMaxDrain  = 2 * time.Minute
	DefaultDrainPoll = 250 * time.Millisecond
)

// QueueGauges reads the server's own count of requests running and waiting
// now (telemetry.QueueReader reads those of every engine in its table).
type QueueGauges interface {
	Queue(ctx context.Context) (running, waiting float64, err error)
}

// Drain makes every round start on an idle server. At the end of a round
// the runner cancels its requests in flight, but many servers and gateways
// go on working on a request whose client left: the next round would start
// on their backlog. Before each round the runner waits until the server's
// gauges read no request running or waiting (polled every Poll), or, when
// it has no gauges, for the previous round's longest request latency since
// that round ended; at least Gap after the previous round, at most Max. A
// round that starts when Max ran out is marked busy in its report
// (report.DrainWait) and left out of knee and sweep verdicts unless
// KeepBusy. The wait may pass Max by one gauge read. A Drain serves one
// Runner at a time.
type Drain struct {
	// Gauges reads the server's queue; nil waits by latency.
	Gauges QueueGauges
	// Gap is the least time between the end of a round and the start of
	// the next (a floor, whatever the gauges say).
	Gap time.Duration
	// Max bounds the wait for the server to be idle (default
	// DefaultMaxDrain); the wait is at least Gap.
	Max time.Duration
	// Poll is the interval between gauge reads (default DefaultDrainPoll).
	Poll time.Duration
	// KeepBusy keeps rounds that started on a busy server in knee and
	// sweep verdicts.
	KeepBusy bool
	// Now and After are the clock (default time.Now and time.After);
	// tests inject their own.
	Now   func() time.Time
	After func(time.Duration) <-chan time.Time

	read bool // the gauges were read once: a failed read is then transient
}

// Validate checks the settings.
func (d *Drain) Validate() error {
	if d.Gap < 0 || d.Max < 0 || d.Poll < 0 {
		return fmt.Errorf("drain: gap %v, max %v and poll %v must not be negative", d.Gap, d.Max, d.Poll)
	}
	return nil
}

func (d *Drain) now() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}

func (d *Drain) sleep(ctx context.Context, dur time.Duration) error {
	if dur <= 0 {
		return ctx.Err()
	}
	after := time.After
	if d.After != nil {
		after = d.After
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-after(dur):
		return nil
	}
}

// Wait waits before a round until the server is idle. prev is the previous
// round (nil before the first), which ended at prevEnd (by d's clock). It
// returns the wait's record, or ctx's error when ctx ends first.
func (d *Drain) Wait(ctx context.Context, prev *Round, prevEnd time.Time) (report.DrainWait, error) {
	start := d.now()
	floor := start
	if prev != nil {
		floor = prevEnd.Add(d.Gap)
	}
	maxWait := d.Max
	if maxWait == 0 {
		maxWait = DefaultMaxDrain
	}
	limit := start.Add(maxWait)
	if limit.Before(floor) {
		limit = floor
	}
	var w report.DrainWait
	var err error
	if d.Gauges != nil {
		err = d.byGauges(ctx, &w, floor, limit)
	}
	if d.Gauges == nil || w.Method == "" && err == nil {
		err = d.byLatency(ctx, &w, prev, prevEnd, floor, limit)
	}
	w.WaitedS = report.Float(d.now().Sub(start).Seconds())
	return w, err
}

// byGauges polls the gauges until the server is idle and floor has passed,
// or limit. When the first read of the first wait fails it leaves w.Method
// empty (and a note) for the latency estimate; once the gauges have been
// read, a failed read is retried at the next poll.
func (d *Drain) byGauges(ctx context.Context, w *report.DrainWait, floor, limit time.Time) error {
	poll := d.Poll
	if poll == 0 {
		poll = DefaultDrainPoll
	}
	for reads := 0; ; reads++ {
		run, wait, err := d.Gauges.Queue(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		now := d.now()
		switch {
		case err != nil && reads == 0 && !d.read:
			w.Note = fmt.Sprintf("server gauges unreadable, waited by latency instead: %v", err)
			return nil
		case err != nil:
			w.Note = fmt.Sprintf("a gauge read failed: %v", err)
		default:
			d.read = true
			w.Method = report.DrainGauges
			w.Running, w.Waiting = floatPtr(run), floatPtr(wait)
		}
		idle := err == nil && run+wait == 0
		if idle && !now.Before(floor) {
			return nil
		}
		if !now.Before(limit) {
			w.Busy = !idle
			return nil
		}
		next := poll
		if idle {
			next = floor.Sub(now) // idle already: only the gap is left
		}
		next = min(next, limit.Sub(now))
		if err := d.sleep(ctx, next); err != nil {
			return err
		}
	}
}

// byLatency waits until the previous round's longest request, cut at its
// end, would have finished: its longest end-to-end latency after prevEnd.
func (d *Drain) byLatency(ctx context.Context, w *report.DrainWait, prev *Round, prevEnd, floor, limit time.Time) error {
	w.Method = report.DrainNone
	until := floor
	if longest := longestLatency(prev); longest > 0 {
		w.Method = report.DrainLatency
		if end := prevEnd.Add(longest); end.After(until) {
			until = end
		}
	}
	if until.After(limit) {
		until, w.Busy = limit, true
	}
	return d.sleep(ctx, until.Sub(d.now()))
}

// longestLatency is the longest end-to-end latency of a round's requests,
// 0 when it has none.
func longestLatency(r *Round) time.Duration {
	if r == nil || r.Benchmark == nil || r.Benchmark.Extras == nil {
		return 0
	}
	s := r.Benchmark.Extras.Metrics.RequestLatency
	if s == nil {
		return 0
	}
	longest := 0.0
	for _, d := range []*report.DistributionSummary{s.Successful, s.Total} {
		if d != nil && d.Count > 0 && !math.IsNaN(float64(d.Max)) {
			longest = math.Max(longest, float64(d.Max))
		}
	}
	return time.Duration(longest * float64(time.Second))
}

func floatPtr(v float64) *report.Float {
	f := report.Float(v)
	return &f
}
