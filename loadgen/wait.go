package loadgen

import (
	"time"
)

// Go's timers on Linux fire up to about a millisecond late: the runtime's
// netpoller sleeps in whole milliseconds. A dispatcher that slept on a timer
// alone would send open-loop requests ~0.5 ms late on average. waitUntil
// sleeps on a timer until shortly before the deadline, then finishes with
// short nanosleep calls on its own thread (precise to tens of µs), checking
// for a stop between them. It is used by the one dispatcher goroutine of a
// benchmark, never per request.
const (
	timerSlack = 1500 * time.Microsecond // the part left to nanosleep
	napMax     = 500 * time.Microsecond  // longest single nanosleep
)

// waitUntil blocks until the Unix-ns instant due on c, or until stop is
// closed. It reports whether the deadline was reached (false: stopped).
func waitUntil(c *Clock, due int64, stop <-chan struct{}, t *time.Timer) bool {
	if d := c.Until(due) - timerSlack; d > 0 {
		t.Reset(d)
		select {
		case <-t.C:
		case <-stop:
			t.Stop()
			return false
		}
	}
	for {
		d := c.Until(due)
		if d <= 0 {
			return true
		}
		select {
		case <-stop:
			return false
		default:
		}
		nap(min(d, napMax))
	}
}
