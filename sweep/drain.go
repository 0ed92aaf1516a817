package sweep

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/report"
)

// Drain defaults.
const (
	DefaultMaxDrain  = 2 * time.Minute
	DefaultDrainPoll = 250 * time.Millisecond
	// DefaultBaselineProbes is the number of idle probes of the baseline,
	// after one warm-up probe that is not counted.
	DefaultBaselineProbes = 5
	// BaselineTimeout bounds the idle baseline's probes, all together
	// (--max-drain does not).
	BaselineTimeout = 10 * time.Second
	// DrainProgressEvery is how often a wait says what it waits for.
	DrainProgressEvery = 5 * time.Second
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
// that round ended; at least Gap after the previous round, at most Max.
// Without gauges but with a Probe, it sends one-token probes instead,
// until one comes back about as fast as on the idle server (see byProbe). A
// round that starts when Max ran out is marked busy in its report
// (report.DrainWait) and left out of knee and sweep verdicts unless
// KeepBusy. The wait may pass Max by one gauge read. A Drain serves one
// Runner at a time.
type Drain struct {
	// Gauges reads the server's queue; nil waits by Probe, else by
	// latency.
	Gauges QueueGauges
	// Probe checks idleness where the server has no gauges (Gauges nil,
	// or unreadable at the first read); nil waits by latency.
	Probe IdleProbe
	// BaselineProbes is the number of probes measuring the idle baseline
	// before the first round (default DefaultBaselineProbes).
	BaselineProbes int
	// Progress, when set, receives a line while a wait goes on (at its
	// first busy reading, then every DrainProgressEvery).
	Progress func(line string)
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

	read      bool          // the gauges were read once: a failed read is then transient
	probeMax  time.Duration // the most an idle probe takes; 0 until the baseline is measured
	probeOff  bool          // the baseline could not be measured: wait by latency
	lastShown time.Time     // the last progress line
}

// IdleProbe sends one request asking for one output token and returns its
// time to first token.
type IdleProbe interface {
	ProbeTTFT(ctx context.Context) (time.Duration, error)
}

// RequestProbe is the IdleProbe that sends Request through Client.
type RequestProbe struct {
	Client  *loadgen.Client
	Request *loadgen.Request
}

// ProbeTTFT sends the probe request with its output cut to one token.
func (p RequestProbe) ProbeTTFT(ctx context.Context) (time.Duration, error) {
	return p.Client.ProbeTTFT(ctx, p.Request)
}

// Validate checks the settings.
func (d *Drain) Validate() error {
	if d.BaselineProbes < 0 {
		return fmt.Errorf("drain: %d baseline probes must not be negative", d.BaselineProbes)
	}
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
	d.lastShown = time.Time{} // each wait says at once what it waits for
	if d.Gauges != nil {
		err = d.byGauges(ctx, &w, floor, limit)
	}
	if w.Method == "" && err == nil && d.Probe != nil && !d.probeOff {
		err = d.byProbe(ctx, &w, prev, floor, limit)
	}
	if w.Method == "" && err == nil {
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
		if err == nil && !idle {
			d.progress(now, fmt.Sprintf("waiting for the server to go idle: %g running, %g waiting", run, wait))
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

// byProbe waits, where the server has no gauges, until a one-token probe
// comes back about as fast as on the idle server, from floor on and at
// most until limit (a round that starts then is marked busy).
//
// Before the first round (prev nil) it measures the idle baseline: one
// warm-up probe (a first request may pay for a connection or a model
// load), then BaselineProbes probes in a row. A later probe is "near" the
// baseline, and the server idle, when its TTFT is at most
//
//	max + 3·(max − min), and at least 1.25·median and median + 2 ms,
//
// of the baseline's probes: their own spread, with a floor so that a
// server whose idle probes all take the same time does not count a
// millisecond of scheduling noise as a backlog. A server busy with
// requests an earlier round cut queues or slows the probe well past that.
// When the baseline cannot be measured (a probe fails), the drain waits by
// latency for the rest of the run, with a note.
func (d *Drain) byProbe(ctx context.Context, w *report.DrainWait, prev *Round, floor, limit time.Time) error {
	if d.probeMax == 0 {
		// A server that never answers must not hold the run: the baseline
		// has BaselineTimeout. It is a measurement of the idle server, not
		// a wait for one, so --max-drain does not bound it (a bound shorter
		// than six probes would lose the baseline for the whole run).
		bctx, cancel := context.WithTimeout(ctx, BaselineTimeout)
		ttfts, err := d.baseline(bctx)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			d.probeOff = true
			w.Note = fmt.Sprintf("idle probe failed, waited by latency instead: %v", err)
			return nil
		}
		d.probeMax = ProbeLimit(ttfts)
		if prev == nil {
			w.Method = report.DrainProbe
			w.Probes = report.Int(len(ttfts) + 1)
			w.ProbeTTFTMs = msPtr(ttfts[len(ttfts)/2])
			w.ProbeLimitMs = msPtr(d.probeMax)
			return d.sleep(ctx, floor.Sub(d.now()))
		}
	}
	w.Method = report.DrainProbe
	w.ProbeLimitMs = msPtr(d.probeMax)
	if err := d.sleep(ctx, floor.Sub(d.now())); err != nil {
		return err
	}
	poll := d.Poll
	if poll == 0 {
		poll = DefaultDrainPoll
	}
	for {
		// A probe queued behind a backlog may take long: it may run to
		// the bound, and always gets twice the idle limit.
		sent := d.now()
		pctx, cancel := context.WithTimeout(ctx, max(limit.Sub(sent), 2*d.probeMax))
		ttft, err := d.Probe.ProbeTTFT(pctx)
		timedOut := pctx.Err() != nil
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		w.Probes++
		now := d.now()
		switch {
		case err != nil && (timedOut || now.Sub(sent) > d.probeMax):
			// No first token in time (the probe's deadline, or the
			// client's stall timeout on a server that sends nothing): the
			// wait is a lower bound of its TTFT.
			if !timedOut {
				w.Note = fmt.Sprintf("an idle probe got no first token: %v", err)
			}
			ttft, err = now.Sub(sent), nil
			w.ProbeTTFTMs = msPtr(ttft)
		case err != nil:
			w.Note = fmt.Sprintf("an idle probe failed: %v", err)
		default:
			w.ProbeTTFTMs = msPtr(ttft)
			if ttft <= d.probeMax {
				return nil
			}
		}
		if !now.Before(limit) {
			w.Busy = true
			return nil
		}
		if err == nil {
			d.progress(now, fmt.Sprintf("waiting for the server to go idle: a one-token probe took %.0f ms to its first token (idle: at most %.0f ms)",
				ms(ttft), ms(d.probeMax)))
		}
		if err := d.sleep(ctx, min(poll, limit.Sub(now))); err != nil {
			return err
		}
	}
}

// baseline sends a warm-up probe, then BaselineProbes probes, and returns
// the latter's TTFTs, sorted.
func (d *Drain) baseline(ctx context.Context) ([]time.Duration, error) {
	n := d.BaselineProbes
	if n == 0 {
		n = DefaultBaselineProbes
	}
	ttfts := make([]time.Duration, 0, n)
	for i := 0; i <= n; i++ {
		ttft, err := d.Probe.ProbeTTFT(ctx)
		if err != nil {
			return nil, fmt.Errorf("measuring the idle baseline: %w", err)
		}
		if i > 0 {
			ttfts = append(ttfts, ttft)
		}
	}
	slices.Sort(ttfts)
	return ttfts, nil
}

// ProbeLimit is the most a probe may take for the server to count as idle,
// from the idle baseline's TTFTs (sorted, at least one): max + 3·(max −
// min), at least 1.25·median and median + 2 ms.
func ProbeLimit(sorted []time.Duration) time.Duration {
	lo, hi, med := sorted[0], sorted[len(sorted)-1], sorted[len(sorted)/2]
	return max(hi+3*(hi-lo), med*5/4, med+2*time.Millisecond)
}

// progress passes line to Progress at a wait's first busy reading, then
// at most every DrainProgressEvery.
func (d *Drain) progress(now time.Time, line string) {
	if d.Progress == nil || !d.lastShown.IsZero() && now.Sub(d.lastShown) < DrainProgressEvery {
		return
	}
	d.lastShown = now
	d.Progress(line)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func msPtr(d time.Duration) *report.Float { return floatPtr(ms(d)) }

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
	now := d.now()
	if w.Method == report.DrainLatency && until.After(now) {
		d.progress(now, fmt.Sprintf("waiting %.1f s for the server to go idle (no server gauges: the previous round's longest request)", until.Sub(now).Seconds()))
	}
	return d.sleep(ctx, until.Sub(now))
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
