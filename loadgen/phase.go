package loadgen

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/record"
)

// A benchmark's warmup phase (AIPerf's): Benchmark.Warmup runs before the
// measured phase, with its own strategy, stop conditions and source.

// DrainAll is the Constraints.Drain that cancels no request in flight at
// MaxDuration: each finishes (AIPerf's warmup without a grace period).
const DrainAll = time.Duration(math.MaxInt64)

// Phase is a warmup run before a benchmark's measured phase, AIPerf's
// warmup phase: its own strategy, stop conditions and source. Its requests
// are handed on like the benchmark's, with record.Warmup set, and its
// limits are its own: the measured phase's MaxRequests and MaxDuration
// count from the warmup's end.
type Phase struct {
	Strategy    Strategy
	Constraints Constraints
	Source      Source
	// Sessions > 0 ends the phase after that many sessions (conversations)
	// started, each finishing its turns; a source of single requests
	// counts each request as one session.
	Sessions int
}

// String describes the phase, e.g. "concurrent@4, 10 requests".
func (p *Phase) String() string {
	var stops []string
	if n := p.Constraints.MaxRequests; n > 0 {
		stops = append(stops, fmt.Sprintf("%d requests", n))
	}
	if n := p.Sessions; n > 0 {
		stops = append(stops, fmt.Sprintf("%d sessions", n))
	}
	if d := p.Constraints.MaxDuration; d > 0 {
		stops = append(stops, d.String())
	}
	return p.Strategy.String() + ", " + strings.Join(stops, " or ")
}

// Run executes one benchmark and blocks until every request it started has
// resolved and been handed to out: its control's KV-cache reset, its
// warmup phase when it has one, then the measured phase (between the
// profiler's start and stop, when the control has them). Cancelling ctx interrupts it: in-flight
// requests are cancelled (recorded as incomplete) and Result.Interrupted is
// set.
func (e *Engine) Run(ctx context.Context, b Benchmark, out chan<- *record.Record) (Result, error) {
	if err := b.validate(); err != nil {
		return Result{}, err
	}
	resets, err := e.client.reset(ctx, b.Control)
	if err != nil {
		return Result{Control: resets}, err
	}
	measure := func(b Benchmark) (Result, error) {
		res, calls, err := e.client.profile(ctx, b.Control, func() (Result, error) { return e.runPhase(ctx, b, out, false) })
		res.Control = append(resets, calls...)
		return res, err
	}
	if b.Warmup == nil {
		return measure(b)
	}
	w := b.Warmup
	wb := Benchmark{Index: b.Index, Strategy: w.Strategy, Constraints: w.Constraints, Source: w.Source, StartAt: b.StartAt}
	if w.Sessions > 0 {
		wb.Source = limitSessions(w.Source, w.Sessions)
	}
	if err := wb.validate(); err != nil {
		return Result{}, fmt.Errorf("warmup: %w", err)
	}
	wr, err := e.runPhase(ctx, wb, out, true)
	if err != nil {
		return Result{}, fmt.Errorf("warmup: %w", err)
	}
	if wr.Interrupted {
		now := e.clock.Now()
		return Result{Start: now, QueuingEnd: now, StopTime: now, End: now, StopReason: StopInterrupted, Interrupted: true, Warmup: &wr, Control: resets}, nil
	}
	b.StartAt = 0
	res, err := measure(b)
	res.Warmup = &wr
	return res, err
}

// validate checks what Run needs of a benchmark (or a warmup phase).
func (b Benchmark) validate() error {
	if err := b.Strategy.Validate(); err != nil {
		return err
	}
	if err := b.Constraints.Validate(); err != nil {
		return err
	}
	if b.Source == nil {
		return errors.New("benchmark has no request source")
	}
	if b.Constraints.MaxDuration == 0 && b.Constraints.MaxRequests == 0 && !b.Strategy.Finite() {
		if _, finite := b.Source.(interface{ Len() int }); !finite {
			return errors.New("benchmark would never end: set max seconds or max requests")
		}
	}
	return nil
}
