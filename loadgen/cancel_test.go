package loadgen

import (
	"context"
	"errors"
	"testing"
	"time"
)

// The requests picked for cancellation are the rate's share of them,
// the same ones for the same seed, and a picked request's context is
// cancelled with a cause naming the cancellation.
func TestCancellationPick(t *testing.T) {
	c := Cancellation{Rate: 0.3, Seed: 7}
	n, again := 0, 0
	for i := uint64(1); i <= 10000; i++ {
		if c.pick(i) {
			n++
		}
		if c.pick(i) == (Cancellation{Rate: 0.3, Seed: 7}).pick(i) {
			again++
		}
	}
	if n < 2850 || n > 3150 || again != 10000 {
		t.Errorf("picked %d of 10000 at rate 0.3 (want 2850..3150), %d the same again", n, again)
	}
	if !(Cancellation{Rate: 1}).pick(3) {
		t.Error("rate 1 left a request")
	}
	for _, bad := range []Cancellation{{Rate: 0}, {Rate: 1.5}, {Rate: 0.5, Delay: -time.Second}} {
		if bad.Validate() == nil {
			t.Errorf("%+v: no error", bad)
		}
	}

	all := &Cancellation{Rate: 1}
	ctx, release := all.cancelCtx(context.Background(), 1)
	<-ctx.Done() // delay 0: cancelled at once
	if cause := context.Cause(ctx); cause == nil || cause.Error() != "request cancellation after 0s (100% of the requests)" {
		t.Errorf("cause %v", cause)
	}
	release()
	var none *Cancellation
	if ctx, release := none.cancelCtx(context.Background(), 1); ctx.Err() != nil || errors.Is(context.Cause(ctx), context.Canceled) {
		t.Error("no cancellation cancelled the request")
	} else {
		release()
	}
}
