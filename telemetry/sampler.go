package telemetry

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"
)

// Sampler defaults.
const (
	DefaultInterval  = time.Second
	DefaultTimeout   = 5 * time.Second
	DefaultMaxPoints = 4096
	minMaxPoints     = 64
)

// SamplerOptions configures GPUSampler and ServerSampler. The zero value
// gives the defaults.
type SamplerOptions struct {
	// Interval between samples; default 1 s.
	Interval time.Duration
	// Timeout of one scrape or read; default 5 s.
	Timeout time.Duration
	// MaxPoints bounds the points kept per series (per GPU, or for the
	// server); default 4096, at least 64. Beyond it the oldest half is merged
	// pairwise (see README.md), so memory is bounded for any run length.
	MaxPoints int
	// Now is the clock used to stamp samples; default time.Now. Sample times
	// are Unix nanoseconds taken as a wall-clock anchor (read once, at
	// construction) plus the clock's elapsed time since, so with time.Now
	// they advance with the monotonic clock.
	Now func() time.Time
}

func (o SamplerOptions) withDefaults() (SamplerOptions, error) {
	if o.Interval < 0 || o.Timeout < 0 || o.MaxPoints < 0 {
		return o, fmt.Errorf("sampler options: Interval, Timeout and MaxPoints must not be negative (got %v, %v, %d)", o.Interval, o.Timeout, o.MaxPoints)
	}
	if o.Interval == 0 {
		o.Interval = DefaultInterval
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxPoints == 0 {
		o.MaxPoints = DefaultMaxPoints
	}
	if o.MaxPoints < minMaxPoints {
		return o, fmt.Errorf("sampler options: MaxPoints %d: want at least %d", o.MaxPoints, minMaxPoints)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o, nil
}

// clock turns the configured clock into Unix nanoseconds anchored once.
type clock struct {
	now    func() time.Time
	anchor time.Time
	wall   int64
}

func newClock(now func() time.Time) clock {
	a := now()
	return clock{now: now, anchor: a, wall: a.UnixNano()}
}

func (c clock) nanos() int64 { return c.wall + int64(c.now().Sub(c.anchor)) }

// nanosOf converts a caller's time to the sampler's time base: times carrying
// a monotonic reading of this process line up exactly with sample times.
func (c clock) nanosOf(t time.Time) int64 { return c.wall + int64(t.Sub(c.anchor)) }

func (c clock) timeOf(ns int64) time.Time { return time.Unix(0, ns) }

// poller runs a sample function at a fixed interval between Start and Stop.
type poller struct {
	mu      sync.Mutex
	started bool
	cancel  context.CancelFunc
	done    chan struct{} // closed when the loop has exited
}

var errStopped = errors.New("sampler stopped")

// start takes one sample with first synchronously, failing on its error,
// then samples every interval until ctx ends or stop is called.
func (p *poller) start(ctx context.Context, interval time.Duration, first, sample func(context.Context) error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started {
		return errors.New("sampler already started (a sampler runs once)")
	}
	if err := first(ctx); err != nil {
		return err
	}
	p.started = true
	lctx, cancel := context.WithCancel(ctx)
	p.cancel = cancel
	p.done = make(chan struct{})
	go func() {
		defer close(p.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-lctx.Done():
				return
			case <-t.C:
				_ = sample(lctx) // errors are recorded per source for windows
			}
		}
	}()
	return nil
}

// run samples every interval until ctx ends or stop is called, without a
// first synchronous sample.
func (p *poller) run(ctx context.Context, interval time.Duration, sample func(context.Context) error) error {
	return p.start(ctx, interval, func(context.Context) error { return nil }, sample)
}

// stop ends the loop and waits for it; safe to call more than once or
// without start.
func (p *poller) stop() {
	p.mu.Lock()
	cancel, done := p.cancel, p.done
	p.mu.Unlock()
	if cancel == nil {
		return
	}
	cancel()
	<-done
}

// stoppedCh returns a channel closed when the loop has exited, or nil when it
// was never started.
func (p *poller) stoppedCh() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.done
}

// errorLog keeps the latest scrape errors of one source, bounded.
type errorLog struct {
	events []errEvent
	total  int
}

type errEvent struct {
	t   int64
	msg string
}

const maxErrEvents = 64

func (l *errorLog) add(t int64, err error) {
	l.total++
	if len(l.events) == maxErrEvents {
		copy(l.events, l.events[1:])
		l.events = l.events[:maxErrEvents-1]
	}
	l.events = append(l.events, errEvent{t: t, msg: err.Error()})
}

// lastAt returns the time and message of the latest error; msg is "" when
// there was none.
func (l *errorLog) lastAt() (t int64, msg string) {
	if len(l.events) == 0 {
		return math.MinInt64, ""
	}
	e := l.events[len(l.events)-1]
	return e.t, e.msg
}

// in counts the errors with a <= t <= b and returns the last one's message.
// atLeast is true when older events in the window may have been dropped.
func (l *errorLog) in(a, b int64) (n int, last string, atLeast bool) {
	for _, e := range l.events {
		if e.t >= a && e.t <= b {
			n++
			last = e.msg
		}
	}
	atLeast = n > 0 && len(l.events) == maxErrEvents && l.events[0].t >= a
	return n, last, atLeast
}

// errorWarning formats the scrape-error warning of a source for a window.
func (l *errorLog) warning(source string, a, b int64) (string, bool) {
	n, last, atLeast := l.in(a, b)
	if n == 0 {
		return "", false
	}
	more := ""
	if atLeast {
		more = "at least "
	}
	return fmt.Sprintf("missing samples: %s%d reads of %s failed during the window (last error: %s)", more, n, source, last), true
}
