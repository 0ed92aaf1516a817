package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"
)

// Scrape retries. Real servers answer /metrics with an occasional HTTP 500
// or a slow reply; one failed read must not drop a source for a whole run
// (the startup probe) nor leave a hole in a window (a periodic scrape). A
// read is tried up to scrapeTries times, 100 ms apart, doubling: 0.7 s of
// backoff in all, which fits inside the default 1 s sampling interval and
// the probe timeout, and is long enough for a server to get over a burst
// of garbage collection or a lock held across one scrape. A retry starts
// only while the bound (the interval for a periodic scrape, the context's
// deadline for a probe) leaves room for it, so retries never make samples
// pile up.
const (
	scrapeTries   = 4
	scrapeBackoff = 100 * time.Millisecond
)

// httpStatusError is a scrape answered with a status other than 200.
type httpStatusError struct {
	code int
	msg  string
}

func (e *httpStatusError) Error() string { return e.msg }

// Transient reports whether a failed read may succeed when tried again:
// HTTP 5xx and 429, time-outs and connection errors. A 404, a body that does
// not parse or an exposition without the expected metrics is permanent.
func Transient(err error) bool {
	var he *httpStatusError
	if errors.As(err, &he) {
		return he.code >= 500 || he.code == 429
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	var oe *net.OpError
	return errors.As(err, &oe)
}

// retry calls read until it succeeds, fails permanently, has been tried
// scrapeTries times, or the next try would start later than bound after the
// first one or after ctx's deadline. Each try gets its own timeout. It
// returns the last error and the number of tries made.
func retry(ctx context.Context, bound, timeout time.Duration, read func(context.Context) error) (int, error) {
	start := time.Now()
	wait := scrapeBackoff
	var err error
	for try := 1; ; try++ {
		rctx, cancel := context.WithTimeout(ctx, timeout)
		err = read(rctx)
		cancel()
		if err == nil || try == scrapeTries || !Transient(err) || ctx.Err() != nil {
			return try, err
		}
		next := time.Now().Add(wait)
		if next.Sub(start) > bound {
			return try, err
		}
		if dl, ok := ctx.Deadline(); ok && next.After(dl) {
			return try, err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return try, err
		case <-t.C:
		}
		wait *= 2
	}
}

// probeBound is the retry bound of a read made outside the sampling loop:
// up to ctx's deadline, else one timeout.
func probeBound(ctx context.Context, timeout time.Duration) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		return time.Until(dl)
	}
	return timeout
}

// ProbeGPUs reads a GPU source once before a run, retrying transient errors
// (HTTP 5xx, time-outs, connection errors) until ctx's deadline, so that an
// exporter's occasional error does not drop or refuse it.
func ProbeGPUs(ctx context.Context, src GPUSource) ([]GPUReading, error) {
	var rs []GPUReading
	tries, err := retry(ctx, probeBound(ctx, DefaultTimeout), DefaultTimeout, func(rctx context.Context) error {
		var err error
		rs, err = src.ReadGPUs(rctx)
		return err
	})
	if err != nil && tries > 1 {
		err = fmt.Errorf("%w (tried %d times)", err, tries)
	}
	return rs, err
}
