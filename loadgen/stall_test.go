package loadgen

import (
	"sync/atomic"
	"testing"
	"time"
)

// A stall watch fires once no chunk has come for its timeout, counted from
// the last chunk's arrival, and never while chunks keep coming.
func TestStallWatch(t *testing.T) {
	const d = 100 * time.Millisecond
	clock := NewClock()
	var fired atomic.Int64 // when it fired, Unix ns on clock
	w := watchStall(clock, d, func() { fired.Store(clock.Now()) })
	defer w.stop()
	// Chunks every 10 ms for 300 ms: three timeouts in all, never one
	// without a chunk (a scheduling hiccup under 90 ms cannot fire it).
	var last int64
	for i := 0; i < 30; i++ {
		time.Sleep(10 * time.Millisecond)
		last = clock.Now()
		w.progress(last)
		if f := fired.Load(); f != 0 {
			t.Fatalf("fired %v after the last chunk, with chunks every 10 ms", time.Duration(f-last))
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for fired.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	f := fired.Load()
	if f == 0 {
		t.Fatal("never fired after the chunks stopped")
	}
	if idle := time.Duration(f - last); idle < d {
		t.Fatalf("fired %v after the last chunk, before the %v timeout", idle, d)
	}
}

// A stopped watch never fires.
func TestStallWatchStop(t *testing.T) {
	var fired atomic.Bool
	w := watchStall(NewClock(), 20*time.Millisecond, func() { fired.Store(true) })
	w.stop()
	time.Sleep(60 * time.Millisecond)
	if fired.Load() {
		t.Fatal("a stopped watch fired")
	}
}

// An arrival older than the last one (kernel timestamps of a later read
// can precede a read-time fallback by microseconds) never moves the watch
// back.
func TestStallWatchKeepsLatestArrival(t *testing.T) {
	w := watchStall(NewClock(), time.Hour, func() {})
	defer w.stop()
	now := w.last.Load()
	w.progress(now - 1000)
	if w.last.Load() != now {
		t.Fatalf("last %d, want %d", w.last.Load(), now)
	}
}
