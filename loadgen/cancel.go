package loadgen

import (
	"context"
	"fmt"
	"time"
)

// Cancellation cancels a share of a benchmark's requests on the client's
// side, as AIPerf's --request-cancellation-rate and -delay do: each request
// is picked with probability Rate (seeded by Seed and its order of
// sending) and cancelled Delay after it was sent, unless it ended before.
// A cancelled request is recorded incomplete with error class cancelled.
type Cancellation struct {
	Rate  float64 // share of the requests, 0 < Rate ≤ 1
	Delay time.Duration
	Seed  uint64
}

// Validate checks the ranges.
func (c Cancellation) Validate() error {
	if !(c.Rate > 0 && c.Rate <= 1) || c.Delay < 0 {
		return fmt.Errorf("request cancellation: rate %v and delay %v: want 0 < rate ≤ 1 and delay ≥ 0", c.Rate, c.Delay)
	}
	return nil
}

// pick reports whether the n-th request sent is cancelled.
func (c Cancellation) pick(n uint64) bool {
	return c.Rate >= 1 || float64(mix64(c.Seed^mix64(n))>>11)/(1<<53) < c.Rate
}

// cancelCtx returns the context the n-th request is sent with: ctx itself,
// or, for a picked request, one cancelled Delay from now; stop releases it.
func (c *Cancellation) cancelCtx(ctx context.Context, n uint64) (context.Context, func()) {
	if c == nil || !c.pick(n) {
		return ctx, func() {}
	}
	cctx, cancel := context.WithCancelCause(ctx)
	t := time.AfterFunc(c.Delay, func() {
		cancel(fmt.Errorf("request cancellation after %s (%.3g%% of the requests)", c.Delay, c.Rate*100))
	})
	return cctx, func() { t.Stop(); cancel(nil) }
}
