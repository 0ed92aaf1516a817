package loadgen

import (
	"context"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/record"
)

// split separates a benchmark's records into its warmup's and its
// measured phase's.
func split(recs []*record.Record) (warm, measured []*record.Record) {
	for _, r := range recs {
		if r.Warmup {
			warm = append(warm, r)
		} else {
			measured = append(measured, r)
		}
	}
	return warm, measured
}

// A warmup phase runs first with its own strategy, limits and source; the
// measured phase starts once its last request resolved, with its own
// request limit and its schedule counted from that start.
func TestWarmupPhaseRunsBeforeTheMeasuredPhase(t *testing.T) {
	srv := startMock(t, nil) // TTFT 20 ms, ITL 2 ms, no jitter
	e := newEngine(t, ClientConfig{Target: srv.URL()})
	warmReq, req := NewRequest("", "warm", 4), NewRequest("", "measured", 4)
	res, recs := collect(t, e, context.Background(), Benchmark{
		Strategy:    Strategy{Kind: Constant, Rate: 50},
		Constraints: Constraints{MaxRequests: 5},
		Source:      fixedSource{req},
		Warmup: &Phase{Strategy: Strategy{Kind: Concurrent, Streams: 2}, Constraints: Constraints{MaxRequests: 3},
			Source: fixedSource{warmReq}},
	})
	warm, measured := split(recs)
	if len(warm) != 3 || len(measured) != 5 || res.Warmup == nil || res.Warmup.Created != 3 || res.Warmup.StopReason != StopMaxRequests ||
		res.Created != 5 || res.Successful != 5 || res.StopReason != StopMaxRequests {
		t.Fatalf("%d warmup and %d measured records; result %+v, warmup %+v", len(warm), len(measured), res, res.Warmup)
	}
	var warmEnd int64
	for _, r := range warm {
		if r.Status != record.StatusSuccessful {
			t.Errorf("warmup request %s/%s", r.Status, r.ErrorClass)
		}
		warmEnd = max(warmEnd, r.End)
	}
	if res.Warmup.End < warmEnd || res.Start < res.Warmup.End {
		t.Errorf("measured phase starts at %d, the warmup's last request ended at %d (warmup end %d)", res.Start, warmEnd, res.Warmup.End)
	}
	// The constant rate's schedule counts from the measured phase's start:
	// requests at 0, 20, 40, 60 and 80 ms of it.
	seen := map[int64]bool{}
	for _, r := range measured {
		off := r.Intended - res.Start
		if off%int64(20*time.Millisecond) != 0 || off < 0 || off > int64(80*time.Millisecond) || seen[off] {
			t.Errorf("intended offset %v from the measured start: want a distinct one of 0, 20, …, 80 ms", time.Duration(off))
		}
		seen[off] = true
		if r.Dispatched < warmEnd {
			t.Errorf("a measured request was sent at %d, before the warmup ended at %d", r.Dispatched, warmEnd)
		}
	}
}

// A warmup ended by its duration lets its requests in flight finish by
// default (AIPerf waits for every warmup response); with a grace of 0 they
// are cancelled at once.
func TestWarmupDurationWaitsForItsRequests(t *testing.T) {
	srv := startMock(t, func(c *mock.Config) { c.TTFT = 300 * time.Millisecond })
	e := newEngine(t, ClientConfig{Target: srv.URL()})
	for _, c := range []struct {
		name   string
		drain  time.Duration
		status record.Status
	}{
		{"wait for all", DrainAll, record.StatusSuccessful},
		{"grace 0", 0, record.StatusIncomplete},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, recs := collect(t, e, context.Background(), Benchmark{
				Strategy: Strategy{Kind: Concurrent, Streams: 1}, Constraints: Constraints{MaxRequests: 1},
				Source: fixedSource{NewRequest("", "x", 2)},
				Warmup: &Phase{Strategy: Strategy{Kind: Concurrent, Streams: 2},
					Constraints: Constraints{MaxDuration: 50 * time.Millisecond, Drain: c.drain}, Source: fixedSource{NewRequest("", "w", 2)}},
			})
			warm, measured := split(recs)
			if len(warm) != 2 || len(measured) != 1 || res.Warmup.StopReason != StopMaxDuration {
				t.Fatalf("%d warmup, %d measured records, warmup %+v", len(warm), len(measured), res.Warmup)
			}
			for _, r := range warm {
				if r.Status != c.status {
					t.Errorf("warmup request %s/%s, want %s", r.Status, r.ErrorClass, c.status)
				}
				if r.End > res.Start {
					t.Errorf("warmup request ended at %d, after the measured phase started at %d", r.End, res.Start)
				}
			}
		})
	}
}

// Phase.Sessions ends the warmup after that many sessions; a source of
// single requests counts each request as one.
func TestWarmupSessions(t *testing.T) {
	srv := startMock(t, nil)
	e := newEngine(t, ClientConfig{Target: srv.URL()})
	res, recs := collect(t, e, context.Background(), Benchmark{
		Strategy: Strategy{Kind: Concurrent, Streams: 1}, Constraints: Constraints{MaxRequests: 2},
		Source: fixedSource{NewRequest("", "x", 2)},
		Warmup: &Phase{Strategy: Strategy{Kind: Concurrent, Streams: 4}, Sessions: 3, Source: fixedSource{NewRequest("", "w", 2)}},
	})
	warm, measured := split(recs)
	if len(warm) != 3 || len(measured) != 2 || res.Warmup.StopReason != StopDataExhausted {
		t.Fatalf("%d warmup, %d measured records, warmup %+v", len(warm), len(measured), res.Warmup)
	}
	if got := (&Phase{Strategy: Strategy{Kind: Concurrent, Streams: 4}, Sessions: 3, Constraints: Constraints{MaxDuration: time.Minute}}).String(); got != "concurrent@4, 3 sessions or 1m0s" {
		t.Errorf("String %q", got)
	}
}
