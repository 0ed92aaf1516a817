package loadgen

import "time"

// Clock turns the monotonic clock into Unix nanoseconds: one wall-clock
// anchor taken at creation plus monotonic elapsed time. Differences of two
// readings are exact monotonic intervals; wall-clock steps during a run do
// not move them.
type Clock struct {
	anchor   time.Time
	anchorNS int64
}

// NewClock anchors a clock at the current instant.
func NewClock() *Clock {
	t := time.Now()
	return &Clock{anchor: t, anchorNS: t.UnixNano()}
}

// Now returns the current time in Unix nanoseconds.
func (c *Clock) Now() int64 { return c.anchorNS + int64(time.Since(c.anchor)) }

// Until returns the monotonic duration until the Unix-nanosecond instant ns.
func (c *Clock) Until(ns int64) time.Duration { return time.Duration(ns - c.Now()) }

// Time converts a Unix-nanosecond reading of this clock to a time.Time that
// carries the monotonic reading, so time.Until on it stays monotonic.
func (c *Clock) Time(ns int64) time.Time { return c.anchor.Add(time.Duration(ns - c.anchorNS)) }

// FromRealtime converts rt, a CLOCK_REALTIME reading in Unix nanoseconds
// taken a moment ago (a kernel receive timestamp), to this clock: now
// minus its age. It returns now as well, and ok false (with at = now)
// when rt is 0 or its age is negative or at least maxRxAge (a wall-clock
// step happened in between). Within that age the conversion's only error
// is the drift between the wall and monotonic clocks over the age (NTP
// slews at most 500 ppm: 0.5 µs per ms).
func (c *Clock) FromRealtime(rt int64) (now, at int64, ok bool) {
	t := time.Now()
	now = c.anchorNS + int64(t.Sub(c.anchor))
	if rt == 0 {
		return now, now, false
	}
	age := t.UnixNano() - rt
	if age < 0 || age >= int64(maxRxAge) {
		return now, now, false
	}
	return now, now - age, true
}
