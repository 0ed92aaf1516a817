package loadgen

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// fired records when and with which cause a watchdog fired.
type fired struct {
	at    atomic.Int64 // Unix ns on the clock, 0 until it fires
	cause atomic.Value
}

func (f *fired) fire(clock *Clock) func(error) {
	return func(cause error) {
		f.cause.Store(cause)
		f.at.Store(clock.Now())
	}
}

// wait waits up to 5 s for f to fire with cause and returns when.
func (f *fired) wait(t *testing.T, cause error) int64 {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for f.at.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if f.at.Load() == 0 {
		t.Fatal("never fired")
	}
	if c := f.cause.Load(); c != cause {
		t.Fatalf("cause %v, want %v", c, cause)
	}
	return f.at.Load()
}

// A watchdog fires errStall once no chunk has come for its stall timeout,
// counted from the last chunk's arrival, and never while chunks keep
// coming. The watchdog's timer and clock run on synctest's fake clock:
// it fires exactly at its instant, whatever the machine's load.
func TestWatchdogStall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const d = 100 * time.Millisecond
		clock := NewClock()
		var f fired
		w := watch(clock, d, 0, f.fire(clock))
		defer w.stop()
		// Chunks every 10 ms for 300 ms: three timeouts in all, never one
		// without a chunk.
		var last int64
		for i := 0; i < 30; i++ {
			time.Sleep(10 * time.Millisecond)
			last = clock.Now()
			w.progress(last)
			if at := f.at.Load(); at != 0 {
				t.Fatalf("fired %v after the last chunk, with chunks every 10 ms", time.Duration(at-last))
			}
		}
		if idle := time.Duration(f.wait(t, errStall) - last); idle != d {
			t.Fatalf("fired %v after the last chunk, want its %v timeout", idle, d)
		}
	})
}

// The request timeout fires errTimeout at its instant even while chunks
// keep the stall timeout from firing, and the one timer serves both.
func TestWatchdogRequestTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const total = 150 * time.Millisecond
		clock := NewClock()
		var f fired
		start := clock.Now()
		w := watch(clock, 40*time.Millisecond, total, f.fire(clock))
		defer w.stop()
		for f.at.Load() == 0 && time.Duration(clock.Now()-start) < 5*time.Second {
			time.Sleep(5 * time.Millisecond)
			w.progress(clock.Now())
		}
		if el := time.Duration(f.wait(t, errTimeout) - start); el != total {
			t.Fatalf("fired after %v, want its %v request timeout", el, total)
		}
	})
}

// With both limits off there is no watchdog; a stopped one never fires.
func TestWatchdogOffAndStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		if w := watch(NewClock(), 0, 0, func(error) {}); w != nil {
			t.Fatal("a watchdog with no limit")
		}
		clock := NewClock()
		var f fired
		w := watch(clock, 20*time.Millisecond, 20*time.Millisecond, f.fire(clock))
		w.stop()
		time.Sleep(time.Hour)
		if f.at.Load() != 0 {
			t.Fatal("a stopped watchdog fired")
		}
	})
}

// wait aims the timer at the nearer limit.
func TestWatchdogWait(t *testing.T) {
	clock := NewClock()
	w := &watchdog{clock: clock, stall: 100 * time.Millisecond}
	w.last.Store(1_000_000_000)
	if got := w.wait(1_030_000_000); got != 70*time.Millisecond {
		t.Fatalf("stall only: wait %v, want 70ms", got)
	}
	w.end = 1_050_000_000
	if got := w.wait(1_030_000_000); got != 20*time.Millisecond {
		t.Fatalf("timeout nearer: wait %v, want 20ms", got)
	}
	w.stall = 0
	if got := w.wait(1_060_000_000); got != 0 {
		t.Fatalf("timeout past: wait %v, want 0", got)
	}
}

// An arrival older than the last one (kernel timestamps of a later read
// can precede a read-time fallback by microseconds) never moves the watch
// back.
func TestWatchdogKeepsLatestArrival(t *testing.T) {
	w := watch(NewClock(), time.Hour, 0, func(error) {})
	defer w.stop()
	now := w.last.Load()
	w.progress(now - 1000)
	if w.last.Load() != now {
		t.Fatalf("last %d, want %d", w.last.Load(), now)
	}
}
