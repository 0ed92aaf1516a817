package measure

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/sweep"
)

// Observer is a sweep.Observer that measures every round's telemetry over
// the round's measurement window. It forwards every call to Next first
// (the progress display), so it can be the Runner's only observer.
//
// BenchmarkStart and BenchmarkEnd take a GPU reading at the edge in the
// background (they never delay the load); Record bins the record's tokens
// by arrival time (no allocation once the bins have grown); BenchmarkEnd
// fixes the window — scheduler_metrics.measure_start_time to
// measure_end_time, else the round's start to end — counts the tokens
// inside it and starts reading the sources for it in the background, so
// that waiting for a reading after the window end overlaps the next round.
// Finish waits for those reads and writes each benchmark's
// goodput.telemetry.
type Observer struct {
	t      *Telemetry
	next   sweep.Observer
	toTime func(ns int64) time.Time

	abort       context.Context
	cancelAbort context.CancelFunc

	bins   tokenBins // the current round's; runner goroutines only
	mu     sync.Mutex
	rounds []*roundState
	wg     sync.WaitGroup
}

// roundState is what the observer keeps of one round.
type roundState struct {
	bench       *report.Benchmark
	start, end  time.Time
	basis       string
	sums        [numCols]float64
	meas        measurements
	windowError string
}

// Observer returns an observer for a run. next may be nil. toTime converts
// the engine clock's Unix nanoseconds to a time.Time carrying a monotonic
// reading (loadgen.Engine.Clock().Time), so that windows line up exactly
// with the samplers' readings.
func (t *Telemetry) Observer(next sweep.Observer, toTime func(ns int64) time.Time) *Observer {
	if toTime == nil {
		toTime = func(ns int64) time.Time { return time.Unix(0, ns) }
	}
	o := &Observer{t: t, next: next, toTime: toTime}
	o.abort, o.cancelAbort = context.WithCancel(t.life)
	return o
}

// BenchmarkStart implements sweep.Observer.
func (o *Observer) BenchmarkStart(index int, s loadgen.Strategy, c loadgen.Constraints, start int64) {
	if o.next != nil {
		o.next.BenchmarkStart(index, s, c, start)
	}
	o.bins.reset(start)
	o.edgeSample()
}

// Record implements sweep.Observer.
func (o *Observer) Record(r *record.Record) {
	if o.next != nil {
		o.next.Record(r)
	}
	o.bins.add(r)
}

// BenchmarkEnd implements sweep.Observer.
func (o *Observer) BenchmarkEnd(index int, round sweep.Round) {
	if o.next != nil {
		o.next.BenchmarkEnd(index, round)
	}
	o.edgeSample()
	rs := &roundState{bench: round.Benchmark}
	var a, z int64
	rs.basis = "round"
	if b := round.Benchmark; b != nil && b.SchedulerMetrics != nil && b.SchedulerMetrics.MeasureStartTime != nil && b.SchedulerMetrics.MeasureEndTime != nil {
		a, z = secToNs(float64(*b.SchedulerMetrics.MeasureStartTime)), secToNs(float64(*b.SchedulerMetrics.MeasureEndTime))
		rs.basis = "measurement"
	}
	if z <= a {
		if rs.basis == "measurement" {
			rs.windowError = "the measurement window is empty; the figures cover the whole round"
		}
		a, z, rs.basis = round.Result.Start, round.Result.End, "round"
	}
	rs.start, rs.end = o.toTime(a), o.toTime(z)
	rs.sums = o.bins.sum(a, z)
	o.mu.Lock()
	o.rounds = append(o.rounds, rs)
	o.mu.Unlock()
	if z <= a {
		rs.windowError = "the round has no duration; no telemetry"
		return
	}
	o.wg.Add(1)
	go func() {
		defer o.wg.Done()
		rs.meas = o.t.measure(o.abort, rs.start, rs.end)
	}()
}

// edgeSample takes a GPU reading now, in the background.
func (o *Observer) edgeSample() {
	if o.t.gpu == nil {
		return
	}
	o.wg.Add(1)
	go func() {
		defer o.wg.Done()
		ctx, cancel := context.WithTimeout(o.abort, o.t.cfg.probeTimeout())
		defer cancel()
		_ = o.t.gpu.Sample(ctx) // errors are recorded by the sampler for the window's warnings
	}()
}

// Finish waits for every round's telemetry (each bounded by Config.Wait
// after its window end; ctx cuts the wait short, and the figures then use
// the readings so far), then writes goodput.telemetry into each
// benchmark's extras (unless Telemetry.Active is false). Call it after the run (interrupted or not), after the
// SLO results are in the benchmarks (the cost per million tokens uses the
// goodput), and before writing the report. ctx should not be the run's
// context when that was cancelled by an interrupt: the completed rounds'
// telemetry is still wanted.
func (o *Observer) Finish(ctx context.Context) {
	done := make(chan struct{})
	go func() {
		o.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		o.cancelAbort()
		<-done
	}
	if !o.t.Active() {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, rs := range o.rounds {
		if rs.bench == nil || rs.bench.Extras == nil {
			continue
		}
		rs.bench.Extras.Telemetry = o.t.assemble(rs)
	}
}

func secToNs(s float64) int64 { return int64(math.Round(s * 1e9)) }
