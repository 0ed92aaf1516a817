package loadgen

import "time"

// Caps on requests in some state (AIPerf's session and prefill slots): a
// buffered channel whose capacity is the cap. Sending takes a slot,
// receiving gives one back; no lock is shared between requests.

// limiter is a cap of cap(l) slots. A ramped limiter starts with all but
// one slot held back and frees them one by one (see ramp).
type limiter chan struct{}

// newLimiter returns a cap of n slots (nil for n < 1: no cap). With a ramp
// the cap starts at 1 and rises by one at a time to n over ramp, from
// start (Unix ns on c) (AIPerf's linear ramp of a concurrency: cap v from
// ramp × (v-1)/(n-1)); the ramp stops early when done closes.
func newLimiter(n int, ramp time.Duration, c *Clock, start int64, done <-chan struct{}) limiter {
	if n < 1 {
		return nil
	}
	l := make(limiter, n)
	if ramp <= 0 || n == 1 {
		return l
	}
	for range n - 1 {
		l <- struct{}{} // held back until the ramp frees it
	}
	go l.ramp(n, ramp, c, start, done)
	return l
}

// rampStep is when a ramp of ramp from 1 to n raises the cap to v.
func rampStep(v, n int, ramp time.Duration) time.Duration {
	return time.Duration(int64(ramp) * int64(v-1) / int64(n-1))
}

// ramp frees the held-back slots on the ramp's schedule. The channel
// always holds the slots not yet freed, so each receive returns at once:
// slots are alike, and one fewer taken is one more free.
func (l limiter) ramp(n int, ramp time.Duration, c *Clock, start int64, done <-chan struct{}) {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for v := 2; v <= n; v++ {
		t.Reset(max(0, c.Until(start+int64(rampStep(v, n, ramp)))))
		select {
		case <-t.C:
		case <-done:
			return
		}
		<-l
	}
}

// take waits for a slot; false when stop closed first. A nil limiter
// takes at once.
func (l limiter) take(stop <-chan struct{}) bool {
	if l == nil {
		return true
	}
	select {
	case l <- struct{}{}:
		return true
	case <-stop:
		return false
	}
}

// give returns a slot taken by take.
func (l limiter) give() {
	if l != nil {
		<-l
	}
}

// holdPrefill makes cn hold a prefill slot of l for its next request:
// the client gives it back at the first token, send at the latest when
// the request resolves (an error, a response without tokens).
func (cn *conn) holdPrefill(l limiter) { cn.prefill = l }

// givePrefill gives back the prefill slot cn holds, once.
func (cn *conn) givePrefill() {
	if cn.prefill != nil {
		cn.prefill.give()
		cn.prefill = nil
	}
}

// takePrefill takes a prefill slot for a request about to be sent on cn
// (Strategy.MaxPrefill); false when the benchmark stopped first.
func (r *run) takePrefill(cn *conn) bool {
	if r.prefill == nil {
		return true
	}
	if !r.prefill.take(r.stopCh) {
		return false
	}
	cn.holdPrefill(r.prefill)
	return true
}
