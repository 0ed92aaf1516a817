package loadgen

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/ssetest"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
)

// startMock serves a deterministic mock on loopback for the test.
func startMock(t *testing.T, edit func(*mock.Config)) *mock.Server {
	t.Helper()
	cfg := mock.DefaultConfig()
	cfg.TTFT, cfg.TTFTStdev, cfg.ITL, cfg.ITLStdev = 20*time.Millisecond, 0, 2*time.Millisecond, 0
	cfg.OutputTokensStdev = 0
	if edit != nil {
		edit(&cfg)
	}
	srv, err := mock.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// fixedSource hands out the same request forever.
type fixedSource struct{ req *Request }

func (f fixedSource) Request(uint64) (*Request, bool) { return f.req, true }

func newEngine(t *testing.T, cfg ClientConfig) *Engine {
	t.Helper()
	c, err := NewClient(cfg, NewClock())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	return NewEngine(c)
}

// collect runs b and returns its result and every record.
func collect(t *testing.T, e *Engine, ctx context.Context, b Benchmark) (Result, []*record.Record) {
	t.Helper()
	out := make(chan *record.Record, 1024)
	var recs []*record.Record
	done := make(chan struct{})
	go func() {
		for r := range out {
			cp := *r
			cp.ChunkTimes = append([]int64(nil), r.ChunkTimes...)
			cp.ChunkTokens = append([]int32(nil), r.ChunkTokens...)
			cp.EmitTimes = append([]int64(nil), r.EmitTimes...)
			recs = append(recs, &cp)
			e.Release(r)
		}
		close(done)
	}()
	res, err := e.Run(ctx, b, out)
	close(out)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	return res, recs
}

func TestConcurrentStreamsMeasureEveryPhase(t *testing.T) {
	for _, ep := range []Endpoint{EndpointChat, EndpointCompletions} {
		t.Run(string(ep), func(t *testing.T) {
			srv := startMock(t, nil)
			e := newEngine(t, ClientConfig{Target: srv.URL() + "/v1/", Endpoint: ep})
			if e.Client().Model() != mock.DefaultModel {
				t.Fatalf("model resolved to %q, want the first listed %q", e.Client().Model(), mock.DefaultModel)
			}
			req := NewRequest("be brief", "hello there", 16)
			res, recs := collect(t, e, context.Background(), Benchmark{
				Strategy: Strategy{Kind: Concurrent, Streams: 4}, Constraints: Constraints{MaxRequests: 20},
				Source: fixedSource{req},
			})
			if res.Created != 20 || res.Successful != 20 || len(recs) != 20 || res.StopReason != StopMaxRequests {
				t.Fatalf("result %+v, %d records", res, len(recs))
			}
			for _, r := range recs {
				if r.Status != record.StatusSuccessful || r.OutputTokens != 16 || len(r.ChunkTimes) != 16 || r.OutputSource != record.TokensUsage {
					t.Fatalf("record %+v", r)
				}
				if len(r.ChunkTokens) != 16 || len(r.EmitTimes) != 16 {
					t.Fatalf("per-chunk tokens %v, stamps %d", r.ChunkTokens, len(r.EmitTimes))
				}
				if !(r.Intended <= r.Dispatched && r.Dispatched <= r.Sent && r.Sent <= r.Headers && r.Headers <= r.FirstChunk &&
					r.FirstChunk <= r.FirstToken && r.FirstToken == r.FirstOutputToken && r.FirstToken <= r.LastToken && r.LastToken <= r.End) {
					t.Fatalf("timestamps out of order: %+v", r)
				}
				// The mock's TTFT is 20 ms from arrival; the client's TTFT
				// cannot be shorter and on loopback is not much longer.
				if ttft := time.Duration(r.FirstToken - r.Dispatched); ttft < 20*time.Millisecond || ttft > 200*time.Millisecond {
					t.Fatalf("TTFT %v, mock says 20ms", ttft)
				}
				if r.PromptTokens <= 0 || r.ServerPromptTokens != r.PromptTokens || r.FinishReason != "length" || r.ResponseID == "" {
					t.Fatalf("usage/ids not taken: %+v", r)
				}
				// HTTP/1.1 on Linux: arrivals are kernel receive timestamps,
				// and the client read every byte after it arrived.
				if r.RxKernel != rxStampsAvailable || (r.RxKernel && r.MaxReadLag <= 0) {
					t.Fatalf("rx kernel %v (available %v), read lag %d", r.RxKernel, rxStampsAvailable, r.MaxReadLag)
				}
			}
			if want := map[bool]string{true: "kernel", false: "user"}[rxStampsAvailable]; res.Client.ArrivalTimestamps != want {
				t.Fatalf("client arrival timestamps %q, want %q", res.Client.ArrivalTimestamps, want)
			}
		})
	}
}

// With UserTimestamps every arrival is the time a read returned, and the
// records and the client load say so.
func TestUserTimestamps(t *testing.T) {
	srv := startMock(t, nil)
	e := newEngine(t, ClientConfig{Target: srv.URL(), UserTimestamps: true})
	res, recs := collect(t, e, context.Background(), Benchmark{
		Strategy: Strategy{Kind: Concurrent, Streams: 2}, Constraints: Constraints{MaxRequests: 4},
		Source: fixedSource{NewRequest("", "hello", 8)},
	})
	for _, r := range recs {
		if r.Status != record.StatusSuccessful || r.RxKernel || r.MaxReadLag != 0 || len(r.ChunkTimes) != 8 {
			t.Fatalf("record %+v", r)
		}
	}
	if res.Client.ArrivalTimestamps != "user" || res.Client.ReadLagSamples != 0 {
		t.Fatalf("client load %+v", res.Client)
	}
}

// A client that reads late is flagged by its read lag (kernel timestamps
// keep the lag out of the latencies, but the client is falling behind).
func TestMonitorFlagsReadLag(t *testing.T) {
	for _, c := range []struct {
		name     string
		lag      time.Duration
		n        int
		saturate bool
	}{
		{"prompt reads", 200 * time.Microsecond, 200, false},
		{"reads 80 ms late", 80 * time.Millisecond, 200, true},
		{"too few samples", 80 * time.Millisecond, 50, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := newMonitor(NewClock(), 0)
			m.start()
			// A benchmark an hour long: the CPU rule (cores used over the
			// wall time) stays out of this test of the read-lag rule.
			m.t0 -= int64(time.Hour)
			for i := 0; i < c.n; i++ {
				m.observe(&record.Record{Headers: 1, RxKernel: true, MaxReadLag: int64(c.lag)})
			}
			m.observe(&record.Record{Headers: 1})
			l := m.finish()
			if l.Saturated != c.saturate || (c.saturate && !strings.Contains(l.Reason, "read lag")) {
				t.Fatalf("saturated %v (%s), want %v", l.Saturated, l.Reason, c.saturate)
			}
			if l.ReadLagSamples != report.Int(c.n) || l.ArrivalTimestamps != fmt.Sprintf("kernel for %d of %d responses, else user", c.n, c.n+1) {
				t.Fatalf("read lag samples %d, arrivals %q", l.ReadLagSamples, l.ArrivalTimestamps)
			}
			if got := time.Duration(l.ReadLagP99us) * time.Microsecond; got < c.lag*99/100 || got > c.lag*101/100 {
				t.Fatalf("read lag P99 %v, want %v", got, c.lag)
			}
		})
	}
}

// Requests that end once the benchmark has cancelled those in flight
// read late because of the cancellation itself (at 10,000 streams about
// 0.4 s of closing): their read lag is not the load's and is not counted.
func TestMonitorIgnoresReadLagAfterAbort(t *testing.T) {
	m := newMonitor(NewClock(), 0)
	m.start()
	m.t0 -= int64(time.Hour)
	m.aborted.Store(1000)
	for i := 0; i < 200; i++ {
		m.observe(&record.Record{Headers: 1, RxKernel: true, MaxReadLag: int64(200 * time.Microsecond), End: 999})
		m.observe(&record.Record{Headers: 1, RxKernel: true, MaxReadLag: int64(80 * time.Millisecond), End: 1000})
	}
	l := m.finish()
	if l.Saturated || l.ReadLagSamples != 200 || l.ReadLagP99us > 1000 {
		t.Fatalf("saturated %v (%s), %d read lag samples, P99 %v µs: want the 200 prompt reads before the end only", l.Saturated, l.Reason, l.ReadLagSamples, l.ReadLagP99us)
	}
}

func TestConstantRateIsOpenLoop(t *testing.T) {
	srv := startMock(t, func(c *mock.Config) { c.TTFT = 300 * time.Millisecond })
	e := newEngine(t, ClientConfig{Target: srv.URL()})
	res, recs := collect(t, e, context.Background(), Benchmark{
		Strategy:    Strategy{Kind: Constant, Rate: 50},
		Constraints: Constraints{MaxRequests: 25},
		Source:      fixedSource{NewRequest("", "x", 4)},
	})
	if res.Created != 25 || len(recs) != 25 {
		t.Fatalf("created %d, records %d", res.Created, len(recs))
	}
	// Each request takes > 300 ms, yet requests are sent every 20 ms: the
	// schedule never waits for responses. Intended times are exact.
	first := recs[0].Intended
	for _, r := range recs {
		if r.Intended < first {
			first = r.Intended
		}
	}
	seen := map[int64]bool{}
	for _, r := range recs {
		off := r.Intended - first
		if off%int64(20*time.Millisecond) != 0 || seen[off] {
			t.Fatalf("intended offset %v is not a distinct multiple of 20ms", time.Duration(off))
		}
		seen[off] = true
		// A closed loop would send each request a full TTFT (300 ms)
		// after the previous one; the open loop sends on schedule. Half a
		// TTFT of lateness separates the two whatever the machine's load.
		if late := time.Duration(r.Dispatched - r.Intended); late < 0 || late > 150*time.Millisecond {
			t.Fatalf("dispatch lateness %v", late)
		}
	}
	// Sequentially, 25 requests of ≥ 300 ms take ≥ 7.5 s; on schedule they
	// take 0.48 s plus one TTFT.
	if wall := time.Duration(res.End - res.Start); wall > 3*time.Second {
		t.Fatalf("25 requests at 50/s with 300ms TTFT took %v: the schedule waited for responses", wall)
	}
}

func TestFaultsAreClassified(t *testing.T) {
	cases := []struct {
		name   string
		mock   func(*mock.Config)
		client func(*ClientConfig)
		class  record.ErrorClass
		status record.Status
	}{
		{"http error", func(c *mock.Config) { c.ErrorRate, c.ErrorCodes = 1, []int{503} }, nil, record.ErrHTTPStatus, record.StatusErrored},
		{"disconnect", func(c *mock.Config) { c.DisconnectRate = 1 }, nil, record.ErrDisconnect, record.StatusErrored},
		{"stream error", func(c *mock.Config) { c.StreamErrorRate = 1 }, nil, record.ErrStreamError, record.StatusErrored},
		{"stall", func(c *mock.Config) { c.StallRate, c.StallDuration = 1, 2*time.Second }, func(c *ClientConfig) { c.StallTimeout = 200 * time.Millisecond }, record.ErrStall, record.StatusErrored},
		{"timeout", func(c *mock.Config) { c.TTFT = 2 * time.Second }, func(c *ClientConfig) { c.RequestTimeout = 200 * time.Millisecond }, record.ErrTimeout, record.StatusErrored},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := startMock(t, tc.mock)
			cfg := ClientConfig{Target: srv.URL()}
			if tc.client != nil {
				tc.client(&cfg)
			}
			e := newEngine(t, cfg)
			res, recs := collect(t, e, context.Background(), Benchmark{
				Strategy: Strategy{Kind: Concurrent, Streams: 2}, Constraints: Constraints{MaxRequests: 4},
				Source: fixedSource{NewRequest("", "x", 32)},
			})
			if len(recs) != 4 {
				t.Fatalf("%d records, result %+v", len(recs), res)
			}
			for _, r := range recs {
				if r.Status != tc.status || r.ErrorClass != tc.class || r.Error == "" || strings.Contains(r.Error, "\n") {
					t.Fatalf("got %s/%s %q, want %s/%s", r.Status, r.ErrorClass, r.Error, tc.status, tc.class)
				}
			}
		})
	}
}

func TestMaxDurationCancelsInFlight(t *testing.T) {
	srv := startMock(t, func(c *mock.Config) { c.TTFT = 5 * time.Second })
	e := newEngine(t, ClientConfig{Target: srv.URL()})
	start := time.Now()
	res, recs := collect(t, e, context.Background(), Benchmark{
		Strategy: Strategy{Kind: Concurrent, Streams: 3}, Constraints: Constraints{MaxDuration: 300 * time.Millisecond},
		Source: fixedSource{NewRequest("", "x", 8)},
	})
	// Cut requests end incomplete (checked below); the time only has to
	// show they were not waited for: less than the mock's 5 s TTFT, with
	// the rest of that as slack for a busy machine.
	if took := time.Since(start); took >= 5*time.Second {
		t.Fatalf("benchmark took %v after a 300ms limit: the requests were waited for", took)
	}
	if res.StopReason != StopMaxDuration || res.Incomplete != 3 || len(recs) != 3 {
		t.Fatalf("result %+v", res)
	}
	for _, r := range recs {
		if r.Status != record.StatusIncomplete || r.ErrorClass != record.ErrCancelled {
			t.Fatalf("record %s/%s", r.Status, r.ErrorClass)
		}
		// The mock sent its headers before the first token: their arrival
		// is a kernel timestamp, and the record says so.
		if r.Headers == 0 || len(r.ChunkTimes) != 0 || r.RxKernel != rxStampsAvailable {
			t.Fatalf("headers %d, %d chunks, rx kernel %v", r.Headers, len(r.ChunkTimes), r.RxKernel)
		}
	}
}

func TestInterruptStopsPromptly(t *testing.T) {
	srv := startMock(t, func(c *mock.Config) { c.TTFT = 5 * time.Second })
	e := newEngine(t, ClientConfig{Target: srv.URL()})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	res, _ := collect(t, e, ctx, Benchmark{
		Strategy: Strategy{Kind: Poisson, Rate: 20, Seed: 1}, Constraints: Constraints{MaxDuration: time.Minute},
		Source: fixedSource{NewRequest("", "x", 8)},
	})
	if !res.Interrupted || res.StopReason != StopInterrupted || res.Incomplete != res.Created {
		t.Fatalf("result %+v", res)
	}
}

func TestUnreachableTargetFailsFast(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c, err := NewClient(ClientConfig{Target: "http://" + addr, ConnectTimeout: time.Second}, NewClock())
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Ready(context.Background())
	if err == nil || !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("got %v, want an error naming %s and the cause", err, addr)
	}
}

func TestUnknownModelIsRejected(t *testing.T) {
	srv := startMock(t, nil)
	c, err := NewClient(ClientConfig{Target: srv.URL(), Model: "llama-9000"}, NewClock())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Ready(context.Background()); err == nil || !strings.Contains(err.Error(), `"llama-9000"`) || !strings.Contains(err.Error(), mock.DefaultModel) {
		t.Fatalf("got %v", err)
	}
}

func TestAPIKeyNeverInErrors(t *testing.T) {
	const key = "sk-SENTINEL-7f3a"
	// A server that echoes the Authorization header into its error body.
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":{"message":"bad key ` + r.Header.Get("Authorization") + `"}}`))
	})}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	c, err := NewClient(ClientConfig{Target: "http://" + l.Addr().String(), Model: "m", APIKey: key}, NewClock())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Ready(context.Background()); err == nil || strings.Contains(err.Error(), key) {
		t.Fatalf("readiness error leaks the key or is missing: %v", err)
	}
	rec := record.New()
	c.Do(context.Background(), NewRequest("", "x", 4), rec, newConn())
	if rec.Status != record.StatusErrored || rec.HTTPStatus != 401 || strings.Contains(rec.Error, key) || !strings.Contains(rec.Error, "***") {
		t.Fatalf("record error %q (status %d)", rec.Error, rec.HTTPStatus)
	}
}

// The client's output count is its tokenizer's: without one it is unknown
// (-1), never 0 (a non-streaming body has no chunks to count) nor the chunk
// count, so the mismatch report does not read the server's 8 against a
// made-up figure. With a tokenizer the client counts the text it received.
func TestClientOutputCount(t *testing.T) {
	srv := startMock(t, nil)
	words := func(s string) int { return len(strings.Fields(s)) }
	for _, c := range []struct {
		name     string
		noStream bool
		count    func(string) int
	}{
		{"non-streaming, no tokenizer", true, nil},
		{"non-streaming, tokenizer", true, words},
		{"streaming, no tokenizer", false, nil},
		{"streaming, tokenizer", false, words},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEngine(t, ClientConfig{Target: srv.URL(), NoStream: c.noStream, KeepText: true, CountTokens: c.count})
			_, recs := collect(t, e, context.Background(), Benchmark{
				Strategy: Strategy{Kind: Synchronous}, Constraints: Constraints{MaxRequests: 2},
				Source: fixedSource{NewRequest("", "x", 8)},
			})
			for _, r := range recs {
				if r.Status != record.StatusSuccessful || r.OutputTokens != 8 || r.OutputSource != record.TokensUsage || r.ServerOutputTokens != 8 {
					t.Fatalf("record %+v: want 8 tokens from usage", r)
				}
				if c.noStream && (r.FirstToken != 0 || len(r.ChunkTimes) != 0) {
					t.Fatalf("non-streaming record %+v: want no TTFT", r)
				}
				want := -1
				if c.count != nil {
					want = c.count(r.OutputText)
				}
				if r.ClientOutputTokens != want || (c.count != nil && want <= 0) {
					t.Fatalf("client output tokens %d, want %d", r.ClientOutputTokens, want)
				}
			}
		})
	}
}

// Over HTTP/2 one connection carries many streams and the transport's own
// goroutine reads it, so a receive timestamp is not one stream's: arrivals
// are read times, and the records say so. HTTP/1.1 over TLS keeps kernel
// timestamps (read through the TLS connection).
func TestTLSArrivalTimestamps(t *testing.T) {
	for _, c := range []struct {
		name   string
		http2  bool
		client string
		kernel bool
	}{
		{"HTTP/2", true, HTTPClientAuto, false},
		{"HTTP/1.1", false, HTTPClientAuto, rxStampsAvailable},
		// goodput's own client offers only HTTP/1.1, even to a server
		// that would speak HTTP/2.
		{"HTTP/1.1, goodput's client", false, HTTPClientGoodput, rxStampsAvailable},
	} {
		t.Run(c.name, func(t *testing.T) {
			mux := http.NewServeMux()
			mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"m","object":"model"}]}`))
			})
			mux.HandleFunc("POST /", func(w http.ResponseWriter, r *http.Request) {
				if (r.ProtoMajor == 2) != c.http2 {
					http.Error(w, "unexpected protocol "+r.Proto, http.StatusBadRequest)
					return
				}
				ssetest.OK(w)
			})
			srv := httptest.NewUnstartedServer(mux)
			srv.EnableHTTP2 = c.http2 || c.client == HTTPClientGoodput
			srv.StartTLS()
			t.Cleanup(srv.Close)
			e := newEngine(t, ClientConfig{Target: srv.URL, Insecure: true, HTTPClient: c.client})
			want := HTTPClientNet
			if c.client == HTTPClientGoodput {
				want = HTTPClientGoodput
			}
			if got := e.Client().HTTPClients(); len(got) != 1 || got[0] != want {
				t.Fatalf("HTTP clients %v, want %s", got, want)
			}
			res, recs := collect(t, e, context.Background(), Benchmark{
				Strategy: Strategy{Kind: Concurrent, Streams: 2}, Constraints: Constraints{MaxRequests: 4},
				Source: fixedSource{NewRequest("", "hello", 3)},
			})
			for _, r := range recs {
				if r.Status != record.StatusSuccessful || r.RxKernel != c.kernel || len(r.ChunkTimes) != 3 {
					t.Fatalf("record %+v", r)
				}
			}
			if want := map[bool]string{true: "kernel", false: "user"}[c.kernel]; res.Client.ArrivalTimestamps != want {
				t.Fatalf("client arrival timestamps %q, want %q", res.Client.ArrivalTimestamps, want)
			}
		})
	}
}

// The client load records the collector's GOGC setting of the benchmark
// (it trades the client's memory against its CPU).
func TestClientLoadRecordsGOGC(t *testing.T) {
	prev := debug.SetGCPercent(73)
	defer debug.SetGCPercent(prev)
	srv := startMock(t, nil)
	e := newEngine(t, ClientConfig{Target: srv.URL(), Model: mock.DefaultModel})
	res, _ := collect(t, e, context.Background(), Benchmark{
		Strategy: Strategy{Kind: Synchronous}, Constraints: Constraints{MaxRequests: 1},
		Source: fixedSource{NewRequest("", "hello", 4)},
	})
	if res.Client.GOGC != 73 {
		t.Fatalf("client load gogc %d, want 73", res.Client.GOGC)
	}
}

// GuideLLM's max_global_error_rate: the errored share of every request so
// far, judged once the minimum were processed. With every request failing,
// a synchronous benchmark stops at exactly the minimum; a rate above what
// the server fails never stops it.
func TestMaxGlobalErrorRate(t *testing.T) {
	srv := startMock(t, func(c *mock.Config) { c.ErrorRate, c.ErrorCodes = 1, []int{500} })
	e := newEngine(t, ClientConfig{Target: srv.URL()})
	res, recs := collect(t, e, context.Background(), Benchmark{
		Strategy: Strategy{Kind: Synchronous}, Source: fixedSource{NewRequest("", "x", 4)},
		Constraints: Constraints{MaxRequests: 40, MaxGlobalErrorRate: 0.5, GlobalErrorMin: 12},
	})
	if res.StopReason != StopMaxGlobalErrorRate || len(recs) != 12 {
		t.Fatalf("all failing, minimum 12: stop %q after %d records, want max_global_error_rate after 12", res.StopReason, len(recs))
	}

	ok := startMock(t, func(c *mock.Config) { c.TTFT, c.ITL = time.Millisecond, 0 })
	e = newEngine(t, ClientConfig{Target: ok.URL()})
	res, recs = collect(t, e, context.Background(), Benchmark{
		Strategy: Strategy{Kind: Synchronous}, Source: fixedSource{NewRequest("", "x", 4)},
		Constraints: Constraints{MaxRequests: 20, MaxGlobalErrorRate: 0.01},
	})
	if res.StopReason != StopMaxRequests || len(recs) != 20 {
		t.Fatalf("none failing: stop %q after %d records, want max_requests after 20", res.StopReason, len(recs))
	}
}
