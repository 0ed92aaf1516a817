package loadgen

import (
	"sync/atomic"
	"time"
)

// watchdog ends a request that runs past its timeout (errTimeout) or
// that no chunk reached for its stall timeout (errStall), with one timer.
// A chunk only stores its arrival time; the timer, armed for the nearer
// limit, re-arms itself for what is left when it fires early. A streamed
// chunk so costs one atomic store rather than a timer reset, and a
// request one timer rather than one per limit.
type watchdog struct {
	clock *Clock
	stall time.Duration // 0: no stall timeout
	end   int64         // the request timeout's instant, Unix ns on clock; 0: none
	fire  func(cause error)
	last  atomic.Int64 // arrival of the last chunk (or the start), Unix ns
	t     atomic.Pointer[time.Timer]
}

// watch starts a watchdog for a request that starts now: fire runs with
// errStall after stall without progress, or with errTimeout once total
// has passed; a zero duration turns its limit off. It returns nil when
// both are off.
func watch(clock *Clock, stall, total time.Duration, fire func(cause error)) *watchdog {
	if stall <= 0 && total <= 0 {
		return nil
	}
	now := clock.Now()
	w := &watchdog{clock: clock, stall: max(stall, 0), fire: fire}
	if total > 0 {
		w.end = now + int64(total)
	}
	w.last.Store(now)
	w.t.Store(time.AfterFunc(w.wait(now), w.check))
	return w
}

// wait is the time from now to the nearer limit, 0 when one has passed.
func (w *watchdog) wait(now int64) time.Duration {
	d := time.Duration(-1)
	if w.stall > 0 {
		d = w.stall - time.Duration(now-w.last.Load())
	}
	if w.end != 0 {
		if left := time.Duration(w.end - now); d < 0 || left < d {
			d = left
		}
	}
	return max(d, 0)
}

// progress notes a chunk that arrived at at (Unix ns on the clock).
func (w *watchdog) progress(at int64) {
	if at > w.last.Load() {
		w.last.Store(at)
	}
}

// check runs when the timer fires: fire for the limit that has passed,
// else wait out the rest.
func (w *watchdog) check() {
	now := w.clock.Now()
	switch {
	case w.end != 0 && now >= w.end:
		w.fire(errTimeout)
	case w.stall > 0 && time.Duration(now-w.last.Load()) >= w.stall:
		w.fire(errStall)
	default:
		if t := w.t.Load(); t != nil {
			t.Reset(w.wait(now))
		}
	}
}

// stop ends the watch; fire is not called after it returns unless it had
// already begun.
func (w *watchdog) stop() {
	if t := w.t.Load(); t != nil {
		t.Stop()
	}
}
