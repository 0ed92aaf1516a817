package loadgen

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/mock"
)

// TestFullQueueRequestRate measures the request rate of 16 concurrent
// streams against a mock that answers every request 429 at once. It only
// prints (GOODPUT_MEASURE=1): the figure depends on the machine.
func TestFullQueueRequestRate(t *testing.T) {
	if os.Getenv("GOODPUT_MEASURE") == "" {
		t.Skip("set GOODPUT_MEASURE=1 to measure")
	}
	srv := startMock(t, func(c *mock.Config) { c.ErrorRate, c.ErrorCodes = 1, []int{429} })
	e := newEngine(t, ClientConfig{Target: srv.URL()})
	const d = 3 * time.Second
	res, recs := collect(t, e, context.Background(), Benchmark{
		Strategy: Strategy{Kind: Concurrent, Streams: 16}, Constraints: Constraints{MaxDuration: d},
		Source: fixedSource{NewRequest("", "hello", 16)},
	})
	t.Logf("16 streams, %v against an all-429 mock: %d requests (%.0f req/s), %d records, result %+v",
		d, res.Created, float64(res.Created)/d.Seconds(), len(recs), res)
}

func TestBackoffSchedule(t *testing.T) {
	want := []time.Duration{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000, 1000}
	for i, w := range want {
		if got := backoffDelay(i + 1); got != w*time.Millisecond {
			t.Errorf("backoffDelay(%d) = %v, want %v", i+1, got, w*time.Millisecond)
		}
	}
	if got := backoffDelay(1 << 30); got != backoffMax {
		t.Errorf("backoffDelay(2^30) = %v, want the cap %v", got, backoffMax)
	}
}

// TestClosedLoopBacksOffFromFullServer runs 4 streams against a server that
// answers every completion 429 at once for its first 1.2 s, then serves.
// The refusals are bounded by the backoff schedule, and once the server
// recovers the streams go back to full speed.
func TestClosedLoopBacksOffFromFullServer(t *testing.T) {
	m := startMock(t, func(c *mock.Config) { c.TTFT, c.ITL = 0, 0 })
	var full atomic.Bool
	var refused, served atomic.Int64
	full.Store(true)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "completions") {
			if full.Load() {
				refused.Add(1)
				w.Header().Set("Retry-After", "1")
				http.Error(w, `{"error":{"message":"queue full","code":429}}`, http.StatusTooManyRequests)
				return
			}
			served.Add(1)
		}
		m.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	e := newEngine(t, ClientConfig{Target: front.URL})

	const streams, fullFor, total = 4, 1200 * time.Millisecond, 3 * time.Second
	// Each stream sends at most 1 + #{k : backoff 1 + … + backoff k <= fullFor}
	// requests while the server is full: requests take time on top.
	perStream, sum := 1, time.Duration(0)
	for k := 1; ; k++ {
		if sum += backoffDelay(k); sum > fullFor {
			break
		}
		perStream++
	}
	recover := time.AfterFunc(fullFor, func() { full.Store(false) })
	defer recover.Stop()
	res, _ := collect(t, e, context.Background(), Benchmark{
		Strategy: Strategy{Kind: Concurrent, Streams: streams}, Constraints: Constraints{MaxDuration: total},
		Source: fixedSource{NewRequest("", "hello", 4)},
	})
	if n, bound := refused.Load(), int64(streams*perStream); n > bound || n < streams {
		t.Fatalf("%d requests refused in %v, want %d..%d (%d streams × %d by the backoff schedule)", n, fullFor, streams, bound, streams, perStream)
	}
	if res.Backoffs != refused.Load() || res.BackoffTime <= 0 || res.BackoffTime > streams*total {
		t.Fatalf("result records %d backoffs for %v, want one per refusal (%d) and a time in (0, %v]", res.Backoffs, res.BackoffTime, refused.Load(), streams*total)
	}
	// Every stream resumes within backoffMax of the recovery; the rest of
	// the run goes at the speed of a zero-latency mock (the last request of
	// each stream is cancelled at the end). On a quiet machine that is 20×
	// the refused rate or more; 3× still tells a resumed stream from one
	// stuck at the cap under the race detector on a loaded 2-core machine
	// (measured there: 8×).
	fast := total - fullFor - backoffMax
	if n := served.Load(); float64(n)/fast.Seconds() < 3*float64(refused.Load())/fullFor.Seconds() || res.Successful < n-streams {
		t.Fatalf("after recovery %d requests served (%d successful) in about %v, against %d refused in %v: the rate did not come back",
			n, res.Successful, fast, refused.Load(), fullFor)
	}
	t.Logf("refused %d (bound %d), then served %d; %d backoffs, %v backing off", refused.Load(), streams*perStream, served.Load(), res.Backoffs, res.BackoffTime)
}
