package loadgen

import (
	"sync/atomic"
	"time"
)

// stallWatch calls fire when no chunk has arrived for its timeout. A chunk
// only stores its arrival time; the timer, armed for the whole timeout,
// re-arms itself for the remainder when it fires and a chunk came since.
// A streamed chunk so costs one atomic store rather than a timer reset.
type stallWatch struct {
	clock *Clock
	d     time.Duration
	fire  func()
	last  atomic.Int64 // arrival of the last chunk (or the start), Unix ns
	t     atomic.Pointer[time.Timer]
}

// watchStall starts a watch that calls fire after d without progress,
// counted from now.
func watchStall(clock *Clock, d time.Duration, fire func()) *stallWatch {
	w := &stallWatch{clock: clock, d: d, fire: fire}
	w.last.Store(clock.Now())
	w.t.Store(time.AfterFunc(d, w.check))
	return w
}

// progress notes a chunk that arrived at at (Unix ns on the clock).
func (w *stallWatch) progress(at int64) {
	if at > w.last.Load() {
		w.last.Store(at)
	}
}

// check runs when the timer fires: fire if the timeout has passed since
// the last chunk, else wait out the rest.
func (w *stallWatch) check() {
	idle := time.Duration(w.clock.Now() - w.last.Load())
	if t := w.t.Load(); t != nil && idle < w.d {
		t.Reset(w.d - idle)
		return
	}
	w.fire()
}

// stop ends the watch; fire is not called after it returns unless it had
// already begun.
func (w *stallWatch) stop() {
	if t := w.t.Load(); t != nil {
		t.Stop()
	}
}
