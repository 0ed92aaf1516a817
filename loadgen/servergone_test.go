package loadgen

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
)

// A server that goes away mid-benchmark is named the moment the
// requests in a row that cannot reach it reach MaxConnectFailures, and
// the benchmark stops there instead of hammering the closed port until
// its max duration.
func TestServerGoneStopsTheBenchmark(t *testing.T) {
	srv := startMock(t, nil)
	e := newEngine(t, ClientConfig{Target: srv.URL()})
	var mu sync.Mutex
	var gone []ServerGone
	e.SetServerGone(func(g ServerGone) { mu.Lock(); gone = append(gone, g); mu.Unlock() })
	out := make(chan *record.Record, 1024)
	var ok, unreach int
	done := make(chan struct{})
	go func() {
		for r := range out {
			switch {
			case r.Status == record.StatusSuccessful:
				if ok++; ok == 10 {
					_ = srv.Close() // the server goes away
				}
			case unreachable(r):
				unreach++
			}
			e.Release(r)
		}
		close(done)
	}()
	const streams, max = 4, 5
	start := time.Now()
	res, err := e.Run(context.Background(), Benchmark{Index: 3, Strategy: Strategy{Kind: Concurrent, Streams: streams},
		Constraints: Constraints{MaxDuration: time.Minute, MaxConnectFailures: max}, Source: fixedSource{NewRequest("", "hi", 4)}}, out)
	close(out)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != StopServerGone {
		t.Fatalf("stop reason %q, want %q", res.StopReason, StopServerGone)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Fatalf("the benchmark took %v after its server went away", took)
	}
	// The streams in flight when the count was reached may fail too, and
	// none sends after.
	if unreach < max || unreach > max+streams-1 {
		t.Errorf("%d requests could not reach the server, want %d to %d", unreach, max, max+streams-1)
	}
	if len(gone) != 1 || gone[0].Benchmark != 3 || gone[0].Failures != max || gone[0].LastError == "" {
		t.Fatalf("told %+v, want once, benchmark 3, %d failures, with the last error", gone, max)
	}
	if !strings.Contains(gone[0].LastError, "refused") && !strings.Contains(gone[0].LastError, "EOF") && !strings.Contains(gone[0].LastError, "closed") {
		t.Errorf("last error %q names no lost connection", gone[0].LastError)
	}
}

// A response of any kind restarts the count: HTTP errors are the
// server answering, and only requests that never reached it count.
func TestUnreachable(t *testing.T) {
	for _, c := range []struct {
		r    record.Record
		want bool
	}{
		{record.Record{Status: record.StatusErrored, ErrorClass: record.ErrConnect}, true},
		{record.Record{Status: record.StatusErrored, ErrorClass: record.ErrDisconnect}, true},
		{record.Record{Status: record.StatusErrored, ErrorClass: record.ErrDisconnect, Headers: 1}, false},
		{record.Record{Status: record.StatusErrored, ErrorClass: record.ErrHTTPStatus, HTTPStatus: 503}, false},
		{record.Record{Status: record.StatusIncomplete, ErrorClass: record.ErrCancelled}, false},
	} {
		if got := unreachable(&c.r); got != c.want {
			t.Errorf("%s (headers %d): unreachable %v, want %v", c.r.ErrorClass, c.r.Headers, got, c.want)
		}
	}
}
