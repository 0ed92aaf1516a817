package loadgen

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
)

// controlServer answers the control paths 200 (those in fail with their
// status) and keeps what it was sent: "path auth-header".
type controlServer struct {
	*httptest.Server
	fail map[string]int
	mu   sync.Mutex
	seen []string
}

func newControlServer(t *testing.T, fail map[string]int) *controlServer {
	s := &controlServer{fail: fail}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.seen = append(s.seen, r.Method+" "+r.URL.RequestURI()+" "+r.Header.Get("Authorization"))
		s.mu.Unlock()
		if code := s.fail[r.URL.Path]; code != 0 {
			w.WriteHeader(code)
			return
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *controlServer) calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.seen)
}

// Control requests go once to each distinct origin (two targets on one
// server are one origin; the targets' paths are not kept), as empty POSTs
// with the requests' auth header; a query in the path is sent.
func TestControlGoesToEachOrigin(t *testing.T) {
	a, b := newControlServer(t, nil), newControlServer(t, nil)
	c, err := NewClient(ClientConfig{Targets: []string{a.URL + "/one", a.URL + "/two/v1", b.URL}, Model: "m", APIKey: "sk-1"}, NewClock())
	if err != nil {
		t.Fatal(err)
	}
	calls, err := c.reset(context.Background(), &Control{ResetPath: "/flush_cache?timeout=30"})
	if err != nil || len(calls) != 2 || calls[0].URL != a.URL+"/flush_cache?timeout=30" || calls[1].Status != 200 || calls[0].Hook != report.HookResetKVCache {
		t.Fatalf("calls %+v, err %v", calls, err)
	}
	for _, s := range []*controlServer{a, b} {
		if got := s.calls(); !slices.Equal(got, []string{"POST /flush_cache?timeout=30 Bearer sk-1"}) {
			t.Errorf("%s saw %q", s.URL, got)
		}
	}
}

// A refused reset stops the benchmark before it sends anything; a
// profiler start refused by the second origin stops the first (already
// started) and sends nothing either.
func TestControlFailuresStopTheBenchmark(t *testing.T) {
	srv := startMock(t, nil)
	e := newEngine(t, ClientConfig{Target: srv.URL()})
	b := Benchmark{Strategy: Strategy{Kind: Concurrent, Streams: 1}, Constraints: Constraints{MaxRequests: 2},
		Source: fixedSource{NewRequest("", "hi", 2)}, Control: &Control{ResetPath: "/nope"}}
	out := make(chan *record.Record, 4)
	_, err := e.Run(context.Background(), b, out)
	if !errors.Is(err, ErrControl) || !strings.Contains(err.Error(), "reset_kv_cache: POST "+srv.URL()+"/nope: HTTP 404") {
		t.Fatalf("err %v", err)
	}
	if len(out) != 0 || srv.Stats().Requests != 0 {
		t.Fatalf("a refused reset sent %d requests", srv.Stats().Requests)
	}

	ok, bad := newControlServer(t, nil), newControlServer(t, map[string]int{"/start_profile": 503})
	c, err := NewClient(ClientConfig{Targets: []string{ok.URL, bad.URL}, Model: "m"}, NewClock())
	if err != nil {
		t.Fatal(err)
	}
	measured := false
	_, calls, err := c.profile(context.Background(), &Control{ProfilerStart: "/start_profile", ProfilerStop: "/stop_profile"},
		func() (Result, error) { measured = true; return Result{}, nil })
	if !errors.Is(err, ErrControl) || measured {
		t.Fatalf("err %v, measured %v", err, measured)
	}
	var hooks []string
	for _, c := range calls {
		hooks = append(hooks, c.Hook+" "+c.URL)
	}
	want := []string{"profiler_start " + ok.URL + "/start_profile", "profiler_start " + bad.URL + "/start_profile", "profiler_stop " + ok.URL + "/stop_profile"}
	if !slices.Equal(hooks, want) || len(bad.calls()) != 1 {
		t.Fatalf("calls %q, want %q; the failing origin saw %q", hooks, want, bad.calls())
	}
}

// The profiler is started after the warmup and stopped after the measured
// phase, even one interrupted; its stop's failure is only recorded.
func TestProfilerAroundTheMeasuredPhase(t *testing.T) {
	srv := startMock(t, nil)
	e := newEngine(t, ClientConfig{Target: srv.URL()})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := make(chan *record.Record, 64)
	done := make(chan struct{})
	var warm, measured int
	var startsAtFirstMeasured uint64
	go func() {
		defer close(done)
		for r := range out {
			if r.Warmup {
				warm++
			} else {
				if measured == 0 {
					startsAtFirstMeasured = srv.Stats().ProfilerStarts
					cancel() // interrupt the measured phase
				}
				measured++
			}
			e.Release(r)
		}
	}()
	res, err := e.Run(ctx, Benchmark{Strategy: Strategy{Kind: Concurrent, Streams: 1}, Constraints: Constraints{MaxDuration: time.Minute},
		Source: fixedSource{NewRequest("", "hi", 2)}, Control: &Control{ProfilerStart: "/start_profile", ProfilerStop: "/stop_profile"},
		Warmup: &Phase{Strategy: Strategy{Kind: Concurrent, Streams: 1}, Constraints: Constraints{MaxRequests: 2}, Source: fixedSource{NewRequest("", "w", 2)}}}, out)
	close(out)
	<-done
	if err != nil || !res.Interrupted || warm != 2 || startsAtFirstMeasured != 1 {
		t.Fatalf("err %v, interrupted %v, %d warmup records, %d starts at the first measured one", err, res.Interrupted, warm, startsAtFirstMeasured)
	}
	if st := srv.Stats(); st.ProfilerStarts != 1 || st.ProfilerStops != 1 || len(res.Control) != 2 || res.Control[1].Hook != report.HookProfilerStop {
		t.Fatalf("starts %d, stops %d, calls %+v", st.ProfilerStarts, st.ProfilerStops, res.Control)
	}
	// A second stop (the mock's profiler is off) is refused: recorded, no error.
	c := e.client
	_, calls, err := c.profile(context.Background(), &Control{ProfilerStart: "/stop_profile", ProfilerStop: "/stop_profile"},
		func() (Result, error) { return Result{}, nil })
	if !errors.Is(err, ErrControl) || len(calls) != 1 || calls[0].Status != 400 {
		t.Fatalf("err %v, calls %+v", err, calls)
	}
	_, calls, err = c.profile(context.Background(), &Control{ProfilerStart: "/start_profile", ProfilerStop: "/nope"},
		func() (Result, error) { return Result{Created: 7}, nil })
	if err != nil || len(calls) != 2 || calls[1].Status != 404 || !strings.Contains(calls[1].Error, "HTTP 404") {
		t.Fatalf("a refused stop: err %v, calls %+v", err, calls)
	}
}
