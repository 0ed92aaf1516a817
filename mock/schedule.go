package mock

import (
	"context"
	"math/rand/v2"
	"time"
)

// tokenSchedule answers, for one request, "when is step i due?". A step is
// one SSE chunk carrying Config.TokensPerChunk tokens (the last one possibly
// fewer). The stream writer asks for steps in increasing order, waits until
// the deadline, writes every step already due with one write and one flush,
// and never computes a deadline from the time of a previous write, so
// lateness does not accumulate.
//
// Two implementations: independentSchedule, each request on its own with
// deadlines drawn from the configured TTFT and ITL; and capacitySchedule
// (engine.go), the continuous-batching capacity model, which answers
// known=false for steps its engine has not planned yet, wakes wait once it
// has, and frees its slot in release.
type tokenSchedule interface {
	// due returns the absolute time at which step i is due. known is false
	// when the schedule cannot tell yet; the writer then flushes what it has
	// and calls wait(i).
	due(i int) (at time.Time, known bool)
	// wait blocks until due(i) is known, or ctx is done (returning its error).
	wait(ctx context.Context, i int) error
	// release is called exactly once when the request ends, whatever the
	// reason (finished, fault, client gone, server closing).
	release()
}

// independentSchedule is the per-request latency model: step 0 is due at
// arrival + ttft, step j at arrival + ttft + the sum of j gaps, each gap drawn
// from N(ITL, ITLStdev) clamped at 0, in order, from the request's generator.
// It is embedded in a pooled stream, so using it allocates nothing.
type independentSchedule struct {
	rng      *rand.Rand
	itl      time.Duration
	itlStdev time.Duration
	step     int       // the last step whose deadline was computed
	at       time.Time // the deadline of step
}

func (s *independentSchedule) init(rng *rand.Rand, arrival time.Time, ttft, itl, itlStdev time.Duration) {
	*s = independentSchedule{rng: rng, itl: itl, itlStdev: itlStdev, at: arrival.Add(ttft)}
}

// due requires i to be at least the largest step asked before.
func (s *independentSchedule) due(i int) (time.Time, bool) {
	for s.step < i {
		s.step++
		s.at = s.at.Add(sampleDuration(s.itl, s.itlStdev, s.gapZ()))
	}
	return s.at, true
}

// gapZ draws the standard normal for one gap, or nothing when the gaps are
// deterministic.
func (s *independentSchedule) gapZ() float64 {
	if s.itlStdev == 0 {
		return 0
	}
	return s.rng.NormFloat64()
}

// wait returns at once: every deadline is known in advance.
func (s *independentSchedule) wait(context.Context, int) error { return nil }

// release has nothing to free: requests do not share capacity in this model.
func (s *independentSchedule) release() {}
