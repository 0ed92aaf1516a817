package mock

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// endsRing is the number of step end times the engine keeps for streams
// that fall behind (a client not reading, a stall): 8192 steps.
const endsRing = 1 << 13

// engine runs the capacity model: one goroutine advancing the batcher step
// by step on absolute times of the monotonic clock, with no lock per token.
//
// Streams submit their request (a seq) through a small locked inbox, once
// per request. A step's duration is fixed when it is composed, so the engine
// publishes its end time right then: the end in a ring of step ends, then
// planned = n, then a broadcast (the close of a per-step channel) that wakes
// the streams waiting to learn it. Each stream then sleeps to that absolute
// deadline on its own timer, as in the independent model, so the engine's
// own wake-up lateness is off the emission path: it only has to compose
// step n+1 before step n ends. A sequence emits a step at the end of every
// engine step from its first one on, so its step i is engine step first+i
// and needs no per-sequence publication; first is set, and the request's own
// channel signalled, when the step carrying its step 0 is composed, so
// requests still queued or prefilling are not woken by every step.
type engine struct {
	b      *batcher
	origin time.Time // engine clock zero
	power  *powerMeter

	mu       sync.Mutex // the inbox
	arrivals []*seq
	aborts   []*seq
	signal   chan struct{} // capacity 1: the inbox is not empty

	planned atomic.Int64 // last composed step, whose end is published; -1 before the first
	ends    [endsRing]atomic.Int64
	tick    atomic.Pointer[chan struct{}] // closed when the next step is published

	running, waiting, kvTokens atomic.Int64 // gauges for /metrics
	busySlots                  atomic.Int64 // sequences in every step planned, summed (llama.cpp's busy slots)
	iterTokens                 *histogram   // vllm:iteration_tokens_total: tokens scheduled per step

	done chan struct{} // closed when run returns
}

func newEngine(m *CapacityModel, origin time.Time, power *powerMeter) *engine {
	e := &engine{b: newBatcher(m), origin: origin, power: power, signal: make(chan struct{}, 1), done: make(chan struct{}),
		iterTokens: newCountHistogram(iterationTokenBuckets)}
	e.planned.Store(-1)
	ch := make(chan struct{})
	e.tick.Store(&ch)
	return e
}

// now is the engine clock: ns since origin, monotonic.
func (e *engine) now() int64 { return int64(time.Since(e.origin)) }

// submit hands q to the engine; it joins the waiting queue at the first step
// boundary at or after now.
func (e *engine) submit(q *seq) {
	e.mu.Lock()
	q.at = e.now() // under the lock: arrivals are in time order
	e.arrivals = append(e.arrivals, q)
	e.mu.Unlock()
	select {
	case e.signal <- struct{}{}:
	default:
	}
}

// abort asks the engine to drop q (the request ended early).
func (e *engine) abort(q *seq) {
	e.mu.Lock()
	e.aborts = append(e.aborts, q)
	e.mu.Unlock()
	select {
	case e.signal <- struct{}{}:
	default:
	}
}

// drain applies the aborts and moves the arrivals submitted at or before t
// to the waiting queue. It returns the submission time of the first arrival
// left in the inbox, or -1.
func (e *engine) drain(t int64) int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, q := range e.aborts {
		e.b.abort(q)
		e.aborts[i] = nil
	}
	e.aborts = e.aborts[:0]
	n := 0
	for n < len(e.arrivals) && e.arrivals[n].at <= t {
		if q := e.arrivals[n]; q.state == seqNew {
			e.b.enqueue(q)
		}
		n++
	}
	rest := copy(e.arrivals, e.arrivals[n:])
	clear(e.arrivals[rest:])
	e.arrivals = e.arrivals[:rest]
	if rest > 0 {
		return e.arrivals[0].at
	}
	return -1
}

// run is the engine loop; it returns when ctx ends.
func (e *engine) run(ctx context.Context) {
	defer close(e.done)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var (
		t int64 // start of the next step on the engine clock
		n int64 // next step number
	)
	for {
		next := e.drain(t)
		if e.b.idle() {
			e.publishGauges(0)
			e.power.set(t, 0)
			if next >= 0 {
				t = next // the engine starts when the request arrives
				continue
			}
			select {
			case <-e.signal: // the next drain finds the arrival and starts at its time
			case <-ctx.Done():
				return
			}
			continue
		}
		end, _ := e.plan(n, t)
		if d := time.Duration(end - e.now()); d > 0 {
			timer.Reset(d)
			select {
			case <-timer.C:
			case <-ctx.Done():
				timer.Stop()
				return
			}
		}
		e.b.complete()
		e.kvTokens.Store(e.b.kv)
		t = end
		n++
	}
}

// plan composes step n starting at t and publishes it: the power and the
// gauges, its end time, the step number, the broadcast to streams waiting
// to learn it, and the signal to requests whose step 0 it carries. It
// returns the step's end and the number of sequences emitting at its end.
func (e *engine) plan(n, t int64) (end int64, emitting int) {
	e.b.stepStart = t
	p := e.b.compose(n)
	observeCount(e.iterTokens, p.prefill+p.decodes) // as vLLM: prompt tokens prefilled plus one per decoding sequence
	e.busySlots.Add(int64(p.running))
	e.power.set(t, p.running)
	e.publishGauges(p.running)
	end = t + int64(p.dur)
	e.ends[n&(endsRing-1)].Store(end)
	e.planned.Store(n)
	fresh := make(chan struct{})
	close(*e.tick.Swap(&fresh))
	for _, q := range e.b.firsts {
		select {
		case q.kick <- struct{}{}:
		default:
		}
	}
	return end, p.decodes + len(e.b.firsts)
}

func (e *engine) publishGauges(running int) {
	e.running.Store(int64(running))
	e.waiting.Store(int64(e.b.nWaiting))
	e.kvTokens.Store(e.b.kv)
}

// stepEnd returns the end time of planned step n. A step endsRing or more
// steps older than the last planned one has been overwritten; its stream is
// that far behind, so the end of the step before the last planned one (in
// the past) does as well.
func (e *engine) stepEnd(n int64) time.Time {
	v := e.ends[n&(endsRing-1)].Load()
	if p := e.planned.Load(); p-n >= endsRing-1 {
		v = e.ends[(p-1)&(endsRing-1)].Load()
	}
	return e.origin.Add(time.Duration(v))
}

// capacitySchedule is a request's tokenSchedule under the capacity model.
// It is embedded in a pooled stream; the seq it points to is allocated per
// request, because the engine may still hold it after the stream is reused.
type capacitySchedule struct {
	e *engine
	q *seq
}

// due returns the end of engine step first+i once that step is planned.
func (s *capacitySchedule) due(i int) (time.Time, bool) {
	f := s.q.first.Load()
	if f < 0 {
		return time.Time{}, false
	}
	n := f + int64(i)
	if n > s.e.planned.Load() {
		return time.Time{}, false
	}
	return s.e.stepEnd(n), true
}

// wait blocks until step i is planned or ctx ends.
func (s *capacitySchedule) wait(ctx context.Context, i int) error {
	for {
		if s.q.first.Load() < 0 {
			select {
			case <-s.q.kick:
			case <-ctx.Done():
				return ctx.Err()
			}
			continue
		}
		// Load the broadcast channel before checking, so a step planned in
		// between closes the channel we wait on.
		ch := *s.e.tick.Load()
		if _, ok := s.due(i); ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// release frees the request's slot (or queue place) unless the engine has
// already scheduled its last step.
func (s *capacitySchedule) release() {
	if !s.q.done.Load() {
		s.e.abort(s.q)
	}
	s.q = nil
}
