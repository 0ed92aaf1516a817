package loadgen

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/clitest"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/record"
)

// TestPrefillCapClosedLoop: 6 streams under a prefill cap of 2 against a
// server with a 20 ms TTFT and 30 ms of decode. A request takes its slot
// before it is sent and gives it back at its first token, so never more
// than 2 wait for a first token at once, while requests that have theirs
// decode beside the next ones' prefill: more than 2 are in flight.
func TestPrefillCapClosedLoop(t *testing.T) {
	srv := startMock(t, nil)
	e := newEngine(t, ClientConfig{Target: srv.URL() + "/v1/", Endpoint: EndpointChat})
	_, recs := collect(t, e, context.Background(), Benchmark{
		Strategy:    Strategy{Kind: Concurrent, Streams: 6, MaxPrefill: 2},
		Constraints: Constraints{MaxRequests: 24},
		Source:      fixedSource{NewRequest("", "hello", 16)},
	})
	if len(recs) != 24 {
		t.Fatalf("%d records, want 24", len(recs))
	}
	for _, r := range recs {
		if r.Status != record.StatusSuccessful {
			t.Fatalf("request %d: %s %s", r.ID, r.Status, r.Error)
		}
	}
	if m := clitest.MostOpen(recs, clitest.Dispatched, clitest.FirstToken, 0); m != 2 {
		t.Errorf("%d requests waited for their first token at once, want the cap, 2", m)
	}
	if m := clitest.MostOpen(recs, clitest.Dispatched, clitest.Ended, 0); m <= 2 {
		t.Errorf("at most %d requests in flight: the prefill cap capped decoding requests too", m)
	}
}

// TestPrefillCapOpenLoop: 6 requests at 200/s (one every 5 ms) under a
// prefill cap of 1, TTFT 20 ms: each is sent only after the one before
// had its first token, and the wait is lateness from its place in the
// schedule, which stays 5 ms apart.
func TestPrefillCapOpenLoop(t *testing.T) {
	srv := startMock(t, nil)
	e := newEngine(t, ClientConfig{Target: srv.URL() + "/v1/", Endpoint: EndpointChat})
	res, recs := collect(t, e, context.Background(), Benchmark{
		Strategy:    Strategy{Kind: Constant, Rate: 200, MaxPrefill: 1},
		Constraints: Constraints{MaxRequests: 6},
		Source:      fixedSource{NewRequest("", "hello", 4)},
	})
	if len(recs) != 6 || res.NotSent != 0 {
		t.Fatalf("%d records, %d not sent; want 6, 0", len(recs), res.NotSent)
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].Intended < recs[j].Intended })
	for k, r := range recs {
		if r.Status != record.StatusSuccessful {
			t.Fatalf("request %d: %s %s", k, r.Status, r.Error)
		}
		if want := res.Start + int64(k)*int64(5*time.Millisecond); r.Intended != want {
			t.Errorf("request %d intended at %v, want %v (the schedule)", k, time.Duration(r.Intended-res.Start), time.Duration(want-res.Start))
		}
		if k == 0 {
			continue
		}
		prev := recs[k-1]
		if r.Dispatched < prev.FirstToken {
			t.Errorf("request %d sent %v before request %d's first token, under a prefill cap of 1", k, time.Duration(prev.FirstToken-r.Dispatched), k-1)
		}
		// Each waits for the one before's 20 ms TTFT and is due 5 ms
		// after it: at least 15 ms late per request ahead of it.
		if late := r.Dispatched - r.Intended; late < int64(k)*int64(15*time.Millisecond) {
			t.Errorf("request %d sent %v late, want at least %v (the wait for a prefill slot)", k, time.Duration(late), time.Duration(k)*15*time.Millisecond)
		}
	}
}

// TestPrefillSlotWithoutToken: requests that end without a first token (an
// HTTP error; a non-streamed response) give their slot back when they
// resolve, so a cap of 1 never stalls the benchmark.
func TestPrefillSlotWithoutToken(t *testing.T) {
	for _, tc := range []struct {
		name string
		mock func(*mock.Config)
		cfg  ClientConfig
		want record.Status
	}{
		{"http error", func(c *mock.Config) { c.ErrorRate, c.ErrorCodes = 1, []int{500} }, ClientConfig{Endpoint: EndpointChat}, record.StatusErrored},
		{"no stream", nil, ClientConfig{Endpoint: EndpointChat, NoStream: true}, record.StatusSuccessful},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startMock(t, tc.mock)
			tc.cfg.Target = srv.URL() + "/v1/"
			e := newEngine(t, tc.cfg)
			_, recs := collect(t, e, context.Background(), Benchmark{
				Strategy:    Strategy{Kind: Concurrent, Streams: 3, MaxPrefill: 1},
				Constraints: Constraints{MaxRequests: 6},
				Source:      fixedSource{NewRequest("", "hello", 4)},
			})
			if len(recs) != 6 {
				t.Fatalf("%d records, want 6", len(recs))
			}
			for _, r := range recs {
				if r.Status != tc.want {
					t.Fatalf("request %d: %s %s, want %s", r.ID, r.Status, r.Error, tc.want)
				}
			}
			if m := clitest.MostOpen(recs, clitest.Dispatched, clitest.Ended, 0); m != 1 {
				t.Errorf("%d requests without a first token in flight at once, want 1: each holds its slot to its end", m)
			}
		})
	}
}

// TestRampStep: AIPerf's linear ramp of a concurrency from 1 to 5 over
// 30 s raises it by one every 7.5 s (its prefill tutorial's figure).
func TestRampStep(t *testing.T) {
	for v, want := range map[int]time.Duration{1: 0, 2: 7500 * time.Millisecond, 3: 15 * time.Second, 4: 22500 * time.Millisecond, 5: 30 * time.Second} {
		if got := rampStep(v, 5, 30*time.Second); got != want {
			t.Errorf("step to %d at %v, want %v", v, got, want)
		}
	}
}

// TestPrefillRamp: a prefill cap of 3 ramped over 120 ms is 1 until
// 60 ms: no two requests sent before then wait for a first token at
// once, whichever the machine's speed (a late ramp only holds it at 1
// longer). Every request still goes out.
func TestPrefillRamp(t *testing.T) {
	srv := startMock(t, nil)
	e := newEngine(t, ClientConfig{Target: srv.URL() + "/v1/", Endpoint: EndpointChat})
	res, recs := collect(t, e, context.Background(), Benchmark{
		Strategy:    Strategy{Kind: Concurrent, Streams: 3, MaxPrefill: 3, PrefillRampup: 120 * time.Millisecond},
		Constraints: Constraints{MaxRequests: 12},
		Source:      fixedSource{NewRequest("", "hello", 4)},
	})
	if len(recs) != 12 {
		t.Fatalf("%d records, want 12", len(recs))
	}
	var early []*record.Record
	for _, r := range recs {
		if r.Dispatched < res.Start+int64(60*time.Millisecond) {
			early = append(early, r)
		}
	}
	if len(early) < 2 {
		t.Fatalf("%d requests sent in the first 60 ms, want the streams' first ones one after another", len(early))
	}
	if m := clitest.MostOpen(early, clitest.Dispatched, clitest.FirstToken, 0); m != 1 {
		t.Errorf("%d requests sent in the ramp's first 60 ms waited for a first token at once, want 1", m)
	}
}

// TestCapRampOpenLoop: 1,000 requests/s under an in-flight cap of 4
// ramped over 90 ms (AIPerf's --concurrency-ramp-duration with a rate):
// the cap is 1 until 30 ms, so requests of over 30 ms go out one at
// a time until then, the others late; all 12 go out.
func TestCapRampOpenLoop(t *testing.T) {
	srv := startMock(t, nil)
	e := newEngine(t, ClientConfig{Target: srv.URL() + "/v1/", Endpoint: EndpointChat})
	res, recs := collect(t, e, context.Background(), Benchmark{
		Strategy:    Strategy{Kind: Constant, Rate: 1000, MaxConcurrency: 4, CapRampup: 90 * time.Millisecond},
		Constraints: Constraints{MaxRequests: 12},
		Source:      fixedSource{NewRequest("", "hello", 8)},
	})
	if len(recs) != 12 {
		t.Fatalf("%d records, want 12", len(recs))
	}
	if m := clitest.MostOpen(recs, clitest.Dispatched, clitest.Ended, res.Start+int64(30*time.Millisecond)); m != 1 {
		t.Errorf("%d requests in flight at once in the first 30 ms, want 1 (the ramp's first step)", m)
	}
	if m := clitest.MostOpen(recs, clitest.Dispatched, clitest.Ended, 0); m > 4 {
		t.Errorf("%d requests in flight at once, over the cap of 4", m)
	}
	late := 0
	for _, r := range recs {
		if r.Dispatched-r.Intended >= int64(10*time.Millisecond) {
			late++
		}
	}
	if late == 0 {
		t.Error("no request went out late: the ramp never held one back")
	}
}

func TestStrategyValidatePrefill(t *testing.T) {
	for _, s := range []Strategy{
		{Kind: Concurrent, Streams: 2, MaxPrefill: -1},
		{Kind: Concurrent, Streams: 2, PrefillRampup: time.Second},
		{Kind: Concurrent, Streams: 2, MaxConcurrency: 2, CapRampup: time.Second},
		{Kind: Constant, Rate: 1, CapRampup: time.Second},
	} {
		if s.Validate() == nil {
			t.Errorf("%+v: no error", s)
		}
	}
	if err := (Strategy{Kind: Poisson, Rate: 1, MaxConcurrency: 4, CapRampup: time.Second, MaxPrefill: 2, PrefillRampup: time.Second}).Validate(); err != nil {
		t.Error(err)
	}
}

// TestPrefillCapSessions: every turn of a conversation takes a prefill
// slot, on the streams of a closed loop and on the users of a
// user-centric rate alike.
func TestPrefillCapSessions(t *testing.T) {
	var sessions sessionList
	for range 6 {
		sessions = append(sessions, &Session{Turns: []Turn{{Prompt: "a", MaxTokens: 4}, {Prompt: "b", MaxTokens: 4}}})
	}
	for _, s := range []Strategy{
		{Kind: Concurrent, Streams: 3, MaxPrefill: 1},
		{Kind: UserCentric, Rate: 300, Streams: 3, MaxPrefill: 1},
	} {
		t.Run(string(s.Kind), func(t *testing.T) {
			srv := startMock(t, nil)
			e := newEngine(t, ClientConfig{Target: srv.URL() + "/v1/", Endpoint: EndpointChat})
			_, recs := collect(t, e, context.Background(), Benchmark{Strategy: s, Source: sessions})
			if len(recs) != 12 {
				t.Fatalf("%d records, want the 12 turns of 6 sessions", len(recs))
			}
			for _, r := range recs {
				if r.Status != record.StatusSuccessful {
					t.Fatalf("turn %d of %s: %s %s", r.Session.Turn, r.Session.ID, r.Status, r.Error)
				}
			}
			if m := clitest.MostOpen(recs, clitest.Dispatched, clitest.FirstToken, 0); m != 1 {
				t.Errorf("%d turns waited for their first token at once, want 1", m)
			}
		})
	}
}
