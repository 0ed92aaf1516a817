package loadgen

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/leaktest"
	"github.com/goodput-dev/goodput/internal/ssetest"
	"github.com/goodput-dev/goodput/record"
)

// The fault suite of the client and the engine: every way a server can
// misbehave ends each request with the documented status and error class,
// the benchmark continues (or stops by its own constraint), and nothing
// leaks: after the run and CloseIdle, every goroutine started during the
// run has exited and the server sees every connection closed.

// faultWant is the expected outcome of every request of a case.
type faultWant struct {
	status record.Status
	class  record.ErrorClass
	http   int    // expected HTTP status (0: none received)
	msg    string // part of the record's error message
	tokens bool   // the request received tokens before failing
}

// rawChunked writes an HTTP/1.1 200 event-stream response head with
// chunked encoding and the events as chunks on a hijacked connection.
func rawChunked(rw io.Writer, events ...string) error {
	if _, err := io.WriteString(rw, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"); err != nil {
		return err
	}
	for _, e := range events {
		if _, err := fmt.Fprintf(rw, "%x\r\n%s\r\n", len(e), e); err != nil {
			return err
		}
	}
	return nil
}

// cutMidStream sends two tokens in a chunked stream, then closes the
// connection without the chunked terminator: with a FIN, or with an RST
// when rst is set (SO_LINGER 0).
func cutMidStream(rst bool) func(*faultServer, http.ResponseWriter, *http.Request) {
	return func(s *faultServer, w http.ResponseWriter, _ *http.Request) {
		c, rw, closeConn := s.hijack(w)
		if c == nil {
			return
		}
		defer closeConn(rst)
		if rawChunked(rw, ssetest.Token("a"), ssetest.Token("b")) == nil {
			_ = rw.Flush()
		}
	}
}

// streamForever sends a token chunk every millisecond until the client
// goes away or the server closes.
func streamForever(s *faultServer, w http.ResponseWriter, r *http.Request) {
	ssetest.Forever(w, r, s.done)
}

// httpClients are the implementations the fault suites run against.
var httpClients = []string{HTTPClientGoodput, HTTPClientNet}

func TestFaultClassification(t *testing.T) {
	stall := func(c *ClientConfig) { c.StallTimeout = 150 * time.Millisecond }
	noTimeouts := func(c *ClientConfig) { c.StallTimeout, c.RequestTimeout = -1, -1 }
	cases := []struct {
		name    string
		handler func(*faultServer, http.ResponseWriter, *http.Request)
		client  func(*ClientConfig)
		cons    Constraints // default MaxRequests 4
		max     int         // max_tokens (default 8)
		want    faultWant
		stop    StopReason // default max_requests
	}{
		{name: "ok stream", handler: func(_ *faultServer, w http.ResponseWriter, _ *http.Request) { ssetest.OK(w) },
			want: faultWant{status: record.StatusSuccessful, http: 200, tokens: true}},
		{name: "finish_reason without [DONE]", handler: func(_ *faultServer, w http.ResponseWriter, _ *http.Request) {
			ssetest.Write(w, ssetest.Token("a"), ssetest.Finish)
		}, want: faultWant{status: record.StatusSuccessful, http: 200, tokens: true}},
		{name: "HTTP 429", handler: func(_ *faultServer, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", "1")
			http.Error(w, `{"error":{"message":"rate limited, slow down","type":"RateLimitError","code":429}}`, http.StatusTooManyRequests)
		}, want: faultWant{status: record.StatusErrored, class: record.ErrHTTPStatus, http: 429, msg: "HTTP 429: rate limited, slow down"}},
		{name: "HTTP 503 plain body", handler: func(_ *faultServer, w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "upstream\nunavailable", http.StatusServiceUnavailable)
		}, want: faultWant{status: record.StatusErrored, class: record.ErrHTTPStatus, http: 503, msg: "HTTP 503: upstream unavailable"}},
		{name: "malformed chunk", handler: func(_ *faultServer, w http.ResponseWriter, _ *http.Request) {
			ssetest.Write(w, ssetest.Token("a"), "data: {\"choices\":[{\"delta\":{\"content\":\"b\"}\n\n", ssetest.Done)
		}, want: faultWant{status: record.StatusErrored, class: record.ErrProtocol, http: 200, msg: "malformed chunk", tokens: true}},
		{name: "wrong content type", handler: func(_ *faultServer, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = io.WriteString(w, "<html><body>Welcome to nginx!</body></html>")
		}, want: faultWant{status: record.StatusErrored, class: record.ErrProtocol, http: 200, msg: `got "text/html`}},
		{name: "JSON error body with 200", handler: func(_ *faultServer, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"error":{"message":"boom: out of KV cache","type":"InternalServerError","code":500}}`)
		}, want: faultWant{status: record.StatusErrored, class: record.ErrStreamError, http: 200, msg: "boom: out of KV cache"}},
		{name: "empty 200 body without content type", handler: func(_ *faultServer, w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusOK)
		}, want: faultWant{status: record.StatusErrored, class: record.ErrProtocol, http: 200, msg: "expected Content-Type text/event-stream"}},
		{name: "empty 200 event stream", handler: func(_ *faultServer, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Content-Length", "0")
			w.WriteHeader(http.StatusOK)
		}, want: faultWant{status: record.StatusErrored, class: record.ErrDisconnect, http: 200, msg: "without [DONE]"}},
		{name: "only [DONE]", handler: func(_ *faultServer, w http.ResponseWriter, _ *http.Request) {
			ssetest.Write(w, ssetest.Done)
		}, want: faultWant{status: record.StatusErrored, class: record.ErrEmptyResponse, http: 200, msg: "no output token"}},
		{name: "finish_reason but no token", handler: func(_ *faultServer, w http.ResponseWriter, _ *http.Request) {
			ssetest.Write(w, ssetest.Finish, ssetest.Done)
		}, want: faultWant{status: record.StatusErrored, class: record.ErrEmptyResponse, http: 200, msg: "no output token"}},
		{name: "ends without [DONE] or finish_reason", handler: func(_ *faultServer, w http.ResponseWriter, _ *http.Request) {
			ssetest.Write(w, ssetest.Token("a"), ssetest.Token("b"))
		}, want: faultWant{status: record.StatusErrored, class: record.ErrDisconnect, http: 200, msg: "without [DONE] or finish_reason", tokens: true}},
		{name: "error event first", handler: func(_ *faultServer, w http.ResponseWriter, _ *http.Request) {
			ssetest.Write(w, ssetest.Error, ssetest.Done)
		}, want: faultWant{status: record.StatusErrored, class: record.ErrStreamError, http: 200, msg: "boom: out of KV cache"}},
		{name: "error event mid-stream", handler: func(_ *faultServer, w http.ResponseWriter, _ *http.Request) {
			ssetest.Write(w, ssetest.Token("a"), ssetest.Error, ssetest.Done)
		}, want: faultWant{status: record.StatusErrored, class: record.ErrStreamError, http: 200, msg: "boom", tokens: true}},
		{name: "TCP close mid-stream", handler: cutMidStream(false),
			want: faultWant{status: record.StatusErrored, class: record.ErrDisconnect, http: 200, tokens: true}},
		{name: "TCP reset mid-stream", handler: cutMidStream(true),
			want: faultWant{status: record.StatusErrored, class: record.ErrDisconnect, http: 200}},
		{name: "stall mid-stream", client: stall, handler: func(s *faultServer, w http.ResponseWriter, r *http.Request) {
			ssetest.Write(w, ssetest.Token("a"), ssetest.Token("b"))
			s.waitClient(r)
		}, want: faultWant{status: record.StatusErrored, class: record.ErrStall, http: 200, msg: "no chunk for 150ms", tokens: true}},
		{name: "only pings after a token", client: stall, handler: func(s *faultServer, w http.ResponseWriter, r *http.Request) {
			f := ssetest.Start(w)
			_, _ = io.WriteString(w, ssetest.Token("a"))
			f.Flush()
			for {
				select {
				case <-r.Context().Done():
					return
				case <-s.done:
					return
				case <-time.After(20 * time.Millisecond):
				}
				if _, err := io.WriteString(w, ": ping\n\n"); err != nil {
					return
				}
				f.Flush()
			}
		}, want: faultWant{status: record.StatusErrored, class: record.ErrStall, http: 200, msg: "no chunk for 150ms", tokens: true}},
		{name: "headers never arrive: stall timeout", client: stall, handler: func(s *faultServer, _ http.ResponseWriter, r *http.Request) {
			s.waitClient(r)
		}, want: faultWant{status: record.StatusErrored, class: record.ErrStall, msg: "no chunk for 150ms"}},
		{name: "headers never arrive: request timeout", client: func(c *ClientConfig) { c.StallTimeout, c.RequestTimeout = -1, 200*time.Millisecond },
			handler: func(s *faultServer, _ http.ResponseWriter, r *http.Request) { s.waitClient(r) },
			want:    faultWant{status: record.StatusErrored, class: record.ErrTimeout, msg: "longer than 200ms"}},
		{name: "headers never arrive: benchmark end", client: noTimeouts, cons: Constraints{MaxDuration: 300 * time.Millisecond},
			handler: func(s *faultServer, _ http.ResponseWriter, r *http.Request) { s.waitClient(r) },
			want:    faultWant{status: record.StatusIncomplete, class: record.ErrCancelled, msg: "benchmark ended"}, stop: StopMaxDuration},
		{name: "streams forever: max_tokens overrun", handler: streamForever,
			want: faultWant{status: record.StatusErrored, class: record.ErrProtocol, http: 200, msg: "output limit of 8 sent as max_tokens and max_completion_tokens", tokens: true}},
		{name: "streams forever: request timeout", max: -1, client: func(c *ClientConfig) { c.RequestTimeout = 300 * time.Millisecond },
			handler: streamForever, cons: Constraints{MaxRequests: 2},
			want: faultWant{status: record.StatusErrored, class: record.ErrTimeout, http: 200, msg: "longer than 300ms", tokens: true}},
		{name: "streams forever: benchmark end", max: -1, client: noTimeouts, handler: streamForever, cons: Constraints{MaxDuration: 300 * time.Millisecond},
			want: faultWant{status: record.StatusIncomplete, class: record.ErrCancelled, http: 200, tokens: true}, stop: StopMaxDuration},
	}
	for _, hc := range httpClients {
		for _, tc := range cases {
			t.Run(hc+"/"+tc.name, func(t *testing.T) {
				srv := startFaultServer(t, "127.0.0.1:0", tc.handler)
				base := leaktest.Snapshot()
				cfg := ClientConfig{Target: srv.url(), Model: "m", StallTimeout: 5 * time.Second, RequestTimeout: 10 * time.Second, HTTPClient: hc}
				if tc.client != nil {
					tc.client(&cfg)
				}
				c, err := NewClient(cfg, NewClock())
				if err != nil {
					t.Fatal(err)
				}
				cons, stop, maxTok := tc.cons, tc.stop, tc.max
				if cons == (Constraints{}) {
					cons = Constraints{MaxRequests: 4}
				}
				if stop == "" {
					stop = StopMaxRequests
				}
				if maxTok == 0 {
					maxTok = 8
				}
				e := NewEngine(c)
				res, recs := collect(t, e, context.Background(), Benchmark{
					Strategy: Strategy{Kind: Concurrent, Streams: 2}, Constraints: cons, Source: fixedSource{NewRequest("", "x", maxTok)},
				})
				if res.StopReason != stop || res.Interrupted {
					t.Fatalf("stop reason %q (interrupted %v), want %q", res.StopReason, res.Interrupted, stop)
				}
				if len(recs) == 0 || int64(len(recs)) != res.Created || res.Successful+res.Errored+res.Incomplete != res.Created {
					t.Fatalf("%d records, result %+v: every request must be accounted for", len(recs), res)
				}
				if cons.MaxRequests > 0 && len(recs) != cons.MaxRequests {
					t.Fatalf("%d records, want %d: the run must go on after a failed request", len(recs), cons.MaxRequests)
				}
				for _, r := range recs {
					checkRecord(t, r, tc.want)
				}
				t.Logf("%s/%s HTTP %d: %q", recs[0].Status, recs[0].ErrorClass, recs[0].HTTPStatus, recs[0].Error)
				c.CloseIdle()
				leaktest.Check(t, base, noOpenConns(srv))
			})
		}
	}
}

// checkRecord checks one record against the expected outcome.
func checkRecord(t *testing.T, r *record.Record, w faultWant) {
	t.Helper()
	if r.Status != w.status || r.ErrorClass != w.class || r.HTTPStatus != w.http {
		t.Fatalf("record %d: %s/%q HTTP %d (%q), want %s/%q HTTP %d", r.ID, r.Status, r.ErrorClass, r.HTTPStatus, r.Error, w.status, w.class, w.http)
	}
	if w.status != record.StatusSuccessful && (r.Error == "" || strings.ContainsAny(r.Error, "\r\n") || !strings.Contains(r.Error, w.msg)) {
		t.Fatalf("record %d: error %q: want one line containing %q", r.ID, r.Error, w.msg)
	}
	if w.status == record.StatusSuccessful && (r.Error != "" || r.ErrorClass != "") {
		t.Fatalf("record %d: successful with error %q/%q", r.ID, r.ErrorClass, r.Error)
	}
	if w.tokens && (r.FirstToken == 0 || len(r.ChunkTimes) == 0) {
		t.Fatalf("record %d: no token recorded before the failure (%d chunks)", r.ID, len(r.ChunkTimes))
	}
	if r.Dispatched == 0 || r.End < r.Dispatched {
		t.Fatalf("record %d: dispatched %d, end %d", r.ID, r.Dispatched, r.End)
	}
}

func TestFaultNonStreaming(t *testing.T) {
	cases := []struct {
		name    string
		handler func(*faultServer, http.ResponseWriter, *http.Request)
		want    faultWant
	}{
		{"empty body", func(_ *faultServer, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
		}, faultWant{status: record.StatusErrored, class: record.ErrProtocol, http: 200, msg: "malformed response"}},
		{"html body", func(_ *faultServer, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = io.WriteString(w, "<html></html>")
		}, faultWant{status: record.StatusErrored, class: record.ErrProtocol, http: 200, msg: "malformed response"}},
		{"error body with 200", func(_ *faultServer, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"error":{"message":"boom: out of KV cache","code":500}}`)
		}, faultWant{status: record.StatusErrored, class: record.ErrStreamError, http: 200, msg: "boom"}},
		{"no output", func(_ *faultServer, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":0,"total_tokens":3}}`)
		}, faultWant{status: record.StatusErrored, class: record.ErrEmptyResponse, http: 200, msg: "no output"}},
		{"body cut short", func(s *faultServer, w http.ResponseWriter, _ *http.Request) {
			c, rw, closeConn := s.hijack(w)
			if c == nil {
				return
			}
			defer closeConn(false)
			_, _ = io.WriteString(rw, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"id\":\"c\",\"choices\":[")
			_ = rw.Flush()
		}, faultWant{status: record.StatusErrored, class: record.ErrDisconnect, http: 200}},
		{"ok", func(_ *faultServer, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi there"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`)
		}, faultWant{status: record.StatusSuccessful, http: 200}},
	}
	for _, hc := range httpClients {
		for _, tc := range cases {
			t.Run(hc+"/"+tc.name, func(t *testing.T) {
				srv := startFaultServer(t, "127.0.0.1:0", tc.handler)
				base := leaktest.Snapshot()
				c, err := NewClient(ClientConfig{Target: srv.url(), Model: "m", NoStream: true, StallTimeout: 5 * time.Second, HTTPClient: hc}, NewClock())
				if err != nil {
					t.Fatal(err)
				}
				res, recs := collect(t, NewEngine(c), context.Background(), Benchmark{
					Strategy: Strategy{Kind: Concurrent, Streams: 2}, Constraints: Constraints{MaxRequests: 4}, Source: fixedSource{NewRequest("", "x", 8)},
				})
				if len(recs) != 4 || res.StopReason != StopMaxRequests {
					t.Fatalf("%d records, result %+v", len(recs), res)
				}
				for _, r := range recs {
					checkRecord(t, r, tc.want)
				}
				c.CloseIdle()
				leaktest.Check(t, base, noOpenConns(srv))
			})
		}
	}
}

// TestFaultErrorBurst: a server fails every request with 429, 500 and 503
// in turn for 300 ms after the first one, then recovers. The open-loop run
// continues through the burst; each record carries the status the server
// sent for it (the server's own account, by request id), and requests
// after the burst succeed.
func TestFaultErrorBurst(t *testing.T) {
	for _, hc := range httpClients {
		t.Run(hc, func(t *testing.T) { testFaultErrorBurst(t, hc) })
	}
}

func testFaultErrorBurst(t *testing.T, hc string) {
	var first atomic.Int64
	var n atomic.Int64
	codes := []int{429, 500, 503}
	srv := startFaultServer(t, "127.0.0.1:0", func(s *faultServer, w http.ResponseWriter, r *http.Request) {
		now := time.Now().UnixNano()
		first.CompareAndSwap(0, now)
		if time.Duration(now-first.Load()) < 300*time.Millisecond {
			code := codes[n.Add(1)%3]
			s.note(r, fmt.Sprint(code))
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(code)
			_, _ = fmt.Fprintf(w, `{"error":{"message":"burst %d","code":%d}}`, code, code)
			return
		}
		s.note(r, "ok")
		ssetest.OK(w)
	})
	base := leaktest.Snapshot()
	c, err := NewClient(ClientConfig{Target: srv.url(), Model: "m", HTTPClient: hc}, NewClock())
	if err != nil {
		t.Fatal(err)
	}
	res, recs := collect(t, NewEngine(c), context.Background(), Benchmark{
		Strategy: Strategy{Kind: Constant, Rate: 50}, Constraints: Constraints{MaxDuration: 700 * time.Millisecond},
		Source: fixedSource{NewRequest("", "x", 8)},
	})
	if res.StopReason != StopMaxDuration {
		t.Fatalf("stop reason %q: the burst must not end the run", res.StopReason)
	}
	seen := map[string]int{}
	for _, r := range recs {
		note, ok := srv.noteOf(r.ID)
		switch {
		case !ok: // in flight at the end, or never reached the server
			checkRecord(t, r, faultWant{status: record.StatusIncomplete, class: record.ErrCancelled, http: r.HTTPStatus, msg: "cancelled"})
		case note == "ok":
			if r.Status != record.StatusSuccessful && r.ErrorClass != record.ErrCancelled {
				t.Fatalf("record %d: the server answered it but it is %s/%s %q", r.ID, r.Status, r.ErrorClass, r.Error)
			}
		default:
			var code int
			fmt.Sscan(note, &code)
			checkRecord(t, r, faultWant{status: record.StatusErrored, class: record.ErrHTTPStatus, http: code, msg: "burst " + note})
		}
		seen[note]++
	}
	for _, k := range []string{"429", "500", "503", "ok"} {
		if seen[k] == 0 {
			t.Fatalf("outcomes %v: want every status of the burst and successes after it", seen)
		}
	}
	if res.Errored != int64(seen["429"]+seen["500"]+seen["503"]) {
		t.Fatalf("result counts %d errored, the server sent %v", res.Errored, seen)
	}
	c.CloseIdle()
	leaktest.Check(t, base, noOpenConns(srv))
}

// TestFaultServerGoesAway: mid-run the server closes its listener and
// kills its connections; with restart it comes back on the same port
// about 300 ms later. Requests the server never saw fail to connect (or,
// racing the kill on a pooled connection, as disconnects); requests cut
// by the kill are disconnects; after the restart requests succeed again
// on new connections. The run goes on to its max duration throughout.
func TestFaultServerGoesAway(t *testing.T) {
	for _, hc := range httpClients {
		for _, restart := range []bool{false, true} {
			t.Run(hc+"/"+map[bool]string{false: "refused", true: "restart"}[restart], func(t *testing.T) { testFaultServerGoesAway(t, hc, restart) })
		}
	}
}

func testFaultServerGoesAway(t *testing.T, hc string, restart bool) {
	var (
		mu       sync.Mutex
		epochs   []*faultServer
		firstSrv atomic.Pointer[faultServer]
		served   atomic.Int64
		killed   = make(chan struct{})
		back     = make(chan struct{})
	)
	handler := func(s *faultServer, w http.ResponseWriter, r *http.Request) {
		epoch := 1
		if s == firstSrv.Load() {
			epoch = 0
		}
		s.note(r, fmt.Sprint("epoch ", epoch))
		f := ssetest.Start(w)
		for _, e := range []string{ssetest.Token("a"), ssetest.Token("b"), ssetest.Token("c"), ssetest.Finish, ssetest.Done} {
			select {
			case <-r.Context().Done():
				return
			case <-s.done:
				return
			case <-time.After(2 * time.Millisecond):
			}
			if _, err := io.WriteString(w, e); err != nil {
				return
			}
			f.Flush()
		}
		if epoch == 0 && served.Add(1) == 5 {
			close(killed)
		}
	}
	first := startFaultServer(t, "127.0.0.1:0", handler)
	firstSrv.Store(first)
	epochs = append(epochs, first)
	base := leaktest.Snapshot()
	c, err := NewClient(ClientConfig{Target: first.url(), Model: "m", ConnectTimeout: time.Second, HTTPClient: hc}, NewClock())
	if err != nil {
		t.Fatal(err)
	}
	e := NewEngine(c)
	out := make(chan *record.Record, 1024)
	var recs []*record.Record
	collected := make(chan struct{})
	var connectErrs atomic.Int64
	go func() {
		defer close(collected)
		for r := range out {
			cp := *r
			recs = append(recs, &cp)
			if r.ErrorClass == record.ErrConnect {
				connectErrs.Add(1)
			}
			e.Release(r)
		}
	}()
	// The server side: kill after the fifth successful request; for a
	// restart, come back once the client has seen the port refuse
	// and 300 ms have passed.
	go func() {
		<-killed
		first.close()
		if !restart {
			return
		}
		downAt := time.Now()
		for connectErrs.Load() == 0 || time.Since(downAt) < 300*time.Millisecond {
			time.Sleep(5 * time.Millisecond)
		}
		again, err := listenFaultServer(t, first.addr, handler)
		if err != nil {
			t.Errorf("restarting on %s: %v", first.addr, err)
			return
		}
		mu.Lock()
		epochs = append(epochs, again)
		mu.Unlock()
		close(back)
	}()
	res, err := e.Run(context.Background(), Benchmark{
		Strategy: Strategy{Kind: Constant, Rate: 60}, Constraints: Constraints{MaxDuration: 1500 * time.Millisecond},
		Source: fixedSource{NewRequest("", "x", 8)},
	}, out)
	close(out)
	<-collected
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != StopMaxDuration {
		t.Fatalf("stop reason %q: losing the server must not end the run", res.StopReason)
	}
	select {
	case <-killed:
	default:
		t.Fatalf("the server was never killed: %d records", len(recs))
	}
	if restart {
		select {
		case <-back:
		case <-time.After(5 * time.Second):
			t.Fatal("the server never came back")
		}
	}
	mu.Lock()
	servers := append([]*faultServer(nil), epochs...)
	mu.Unlock()
	byOutcome := map[string]int{}
	for _, r := range recs {
		note, seen := "", false
		for _, s := range servers {
			if n, ok := s.noteOf(r.ID); ok {
				note, seen = n, true
			}
		}
		key := r.Status.String() + "/" + string(r.ErrorClass)
		switch {
		case r.Status == record.StatusSuccessful:
			if !seen {
				t.Fatalf("record %d succeeded but no server saw it", r.ID)
			}
			key += note
		case r.ErrorClass == record.ErrCancelled:
			// in flight at the benchmark's end
		case !seen:
			if r.ErrorClass != record.ErrConnect && r.ErrorClass != record.ErrDisconnect {
				t.Fatalf("record %d never reached a server: %s/%s %q, want connect (or disconnect on a dying pooled connection)", r.ID, r.Status, r.ErrorClass, r.Error)
			}
		default:
			if r.ErrorClass != record.ErrDisconnect {
				t.Fatalf("record %d was cut by the kill: %s/%s %q, want disconnect", r.ID, r.Status, r.ErrorClass, r.Error)
			}
		}
		if r.Status == record.StatusErrored && (r.Error == "" || strings.ContainsAny(r.Error, "\n")) {
			t.Fatalf("record %d: error %q", r.ID, r.Error)
		}
		byOutcome[key]++
	}
	t.Logf("outcomes: %v", byOutcome)
	if byOutcome["errored/connect"] == 0 || byOutcome["successful/epoch 0"] < 5 {
		t.Fatalf("outcomes %v: want successes, then refused connections", byOutcome)
	}
	if restart && byOutcome["successful/epoch 1"] == 0 {
		t.Fatalf("outcomes %v: no request succeeded after the restart", byOutcome)
	}
	if restart && servers[1].accepted.Load() == 0 {
		t.Fatal("the restarted server accepted no connection")
	}
	c.CloseIdle()
	for _, s := range servers {
		s.close()
	}
	leaktest.Check(t, base, noOpenConns(servers...))
}

// TestFaultConnectRefused: a port nobody listens on gives connect errors,
// quickly, and the run goes on to its request limit.
func TestFaultConnectRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	base := leaktest.Snapshot()
	c, err := NewClient(ClientConfig{Target: "http://" + addr, Model: "m"}, NewClock())
	if err != nil {
		t.Fatal(err)
	}
	res, recs := collect(t, NewEngine(c), context.Background(), Benchmark{
		Strategy: Strategy{Kind: Concurrent, Streams: 2}, Constraints: Constraints{MaxRequests: 6}, Source: fixedSource{NewRequest("", "x", 8)},
	})
	if len(recs) != 6 || res.Errored != 6 || res.StopReason != StopMaxRequests {
		t.Fatalf("%d records, result %+v", len(recs), res)
	}
	for _, r := range recs {
		checkRecord(t, r, faultWant{status: record.StatusErrored, class: record.ErrConnect, msg: "connection refused"})
	}
	c.CloseIdle()
	leaktest.Check(t, base, nil)
}
