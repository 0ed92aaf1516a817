package loadgen

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/ssetest"
	"github.com/goodput-dev/goodput/record"
)

func TestHTTPClientChoice(t *testing.T) {
	cases := []struct {
		target, choice, proxy string
		noHTTP2               bool
		want                  string
	}{
		{"http://127.0.0.1:8000", "", "", false, HTTPClientGoodput},
		{"http://127.0.0.1:8000", HTTPClientAuto, "", false, HTTPClientGoodput},
		{"https://vllm:8443", "", "", false, HTTPClientNet}, // HTTP/2 may be negotiated
		{"https://vllm:8443", "", "", true, HTTPClientGoodput},
		{"http://vllm:8000", "", "http://proxy:3128", false, HTTPClientNet},
		{"https://vllm:8443", HTTPClientGoodput, "", false, HTTPClientGoodput},
		{"http://127.0.0.1:8000", HTTPClientNet, "", false, HTTPClientNet},
	}
	for _, c := range cases {
		t.Run(c.target+" "+c.choice+" "+c.proxy, func(t *testing.T) {
			proxy := func(*http.Request) (*url.URL, error) {
				if c.proxy == "" {
					return nil, nil
				}
				return url.Parse(c.proxy)
			}
			got, err := ownClient(ClientConfig{HTTPClient: c.choice, DisableHTTP2: c.noHTTP2}, c.target, proxy)
			if err != nil {
				t.Fatal(err)
			}
			if (got && c.want != HTTPClientGoodput) || (!got && c.want != HTTPClientNet) {
				t.Fatalf("goodput's own client %v, want %s", got, c.want)
			}
		})
	}
	if _, err := NewClient(ClientConfig{Target: "http://127.0.0.1:1", HTTPClient: "curl"}, NewClock()); err == nil || !strings.Contains(err.Error(), `HTTP client "curl": want auto, goodput or net/http`) {
		t.Fatalf("error %v", err)
	}
}

// A pooled connection the server closed while it was idle is replaced
// without failing the next request, and the connection is reused while
// the server keeps it.
func TestH1ReusesAndReplacesConnections(t *testing.T) {
	var conns atomic.Int64
	var reqs atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n := reqs.Add(1); n == 3 {
			w.Header().Set("Connection", "close") // the server ends this connection after the response
		}
		ssetest.OK(w)
		// The body's last chunk comes after the stream's [DONE]: the
		// client reads it before it reuses the connection.
		w.(http.Flusher).Flush()
		time.Sleep(5 * time.Millisecond)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	c, err := NewClient(ClientConfig{Target: srv.URL, Model: "m", HTTPClient: HTTPClientGoodput}, NewClock())
	if err != nil {
		t.Fatal(err)
	}
	do := func() *record.Record {
		t.Helper()
		var rec record.Record
		rec.Reset()
		c.Do(context.Background(), NewRequest("", "x", 3), &rec, newConn())
		if rec.Status != record.StatusSuccessful || !rec.RxKernel && rxStampsAvailable {
			t.Fatalf("record %+v", rec)
		}
		return &rec
	}
	do()
	do()
	if n := conns.Load(); n != 1 {
		t.Fatalf("%d connections for 2 sequential requests, want 1 (kept alive)", n)
	}
	do() // the server closes after this one
	do()
	if n := conns.Load(); n != 2 {
		t.Fatalf("%d connections, want 2 (a new one after Connection: close)", n)
	}
	// Close the server's side of the idle connection: the next request
	// finds it dead and retries on a new one.
	srv.CloseClientConnections()
	time.Sleep(10 * time.Millisecond) // let the FIN reach the client's socket
	do()
	if n := conns.Load(); n != 3 {
		t.Fatalf("%d connections, want 3", n)
	}
}

// A request written on goodput's client reaches the server as net/http
// would send it: method, path, headers, length and body.
func TestH1RequestOnTheWire(t *testing.T) {
	got := make(chan *http.Request, 1)
	var body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		body = string(b)
		got <- r
		ssetest.OK(w)
	}))
	t.Cleanup(srv.Close)
	c, err := NewClient(ClientConfig{Target: strings.Replace(srv.URL, "http://", "http://user:pa%20ss@", 1) + "/prefix", Model: "m", HTTPClient: HTTPClientGoodput,
		APIKey: "sk-1", Headers: map[string]string{"X-Tenant": "a\r\nInjected: yes"}}, NewClock())
	if err != nil {
		t.Fatal(err)
	}
	var rec record.Record
	rec.Reset()
	rec.ID = 7
	c.Do(context.Background(), NewRequest("", "hello", 2), &rec, newConn())
	if rec.Status != record.StatusSuccessful {
		t.Fatalf("record %+v", rec)
	}
	r := <-got
	if r.Method != "POST" || r.URL.Path != "/prefix/v1/chat/completions" || r.Proto != "HTTP/1.1" {
		t.Fatalf("%s %s %s", r.Method, r.URL.Path, r.Proto)
	}
	if r.Header.Get("Authorization") != "Bearer sk-1" || r.Header.Get("X-Request-Id") != "goodput-7" || r.Header.Get("X-Tenant") != "a  Injected: yes" ||
		r.Header.Get("Injected") != "" || r.Header.Get("Content-Type") != "application/json" || r.Header.Get("Accept") != "text/event-stream" {
		t.Fatalf("headers %v", r.Header)
	}
	if r.ContentLength != int64(len(body)) || !strings.Contains(body, `"model":"m"`) || !strings.Contains(body, "hello") {
		t.Fatalf("length %d, body %q", r.ContentLength, body)
	}
}

// rawH1Server answers each request as script says for its number (from
// 1): "ok" a whole stream on a kept connection, "close" a whole stream
// and then the connection's end without Connection: close (as
// llama-server does), "drop" the connection's end before any byte of a
// response, "cut" part of a response head and then the end.
type rawH1Server struct {
	ln          net.Listener
	conns, reqs atomic.Int64
	script      func(n int64) string
	closed      chan int64 // the number of each request after which the server closed
}

func newRawH1Server(t *testing.T, script func(n int64) string) *rawH1Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawH1Server{ln: ln, script: script, closed: make(chan int64, 16)}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.conns.Add(1)
			go s.serve(c)
		}
	}()
	return s
}

func (s *rawH1Server) serve(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	const body = `data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		_, _ = io.Copy(io.Discard, req.Body)
		n := s.reqs.Add(1)
		switch s.script(n) {
		case "drop":
			s.closed <- n
			return
		case "cut":
			_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-")
			s.closed <- n
			return
		}
		_, _ = fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nKeep-Alive: timeout=5, max=100\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		if s.script(n) == "close" {
			c.Close()
			s.closed <- n
			return
		}
	}
}

// The retry rule of goodput's HTTP/1.1 client: a request that meets a
// closed kept-alive connection before any byte of its response is sent
// once more on a new connection (never on another idle one, which the
// server may have closed too); a request whose response had begun, or
// whose connection was new, is not sent again.
func TestH1RetryRule(t *testing.T) {
	do := func(t *testing.T, c *Client) *record.Record {
		t.Helper()
		var rec record.Record
		rec.Reset()
		c.Do(context.Background(), NewRequest("", "x", 1), &rec, newConn())
		return &rec
	}
	client := func(t *testing.T, s *rawH1Server) *Client {
		t.Helper()
		c, err := NewClient(ClientConfig{Target: "http://" + s.ln.Addr().String(), Model: "m", HTTPClient: HTTPClientGoodput}, NewClock())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.CloseIdle)
		return c
	}
	t.Run("closed after the write, before the response", func(t *testing.T) {
		s := newRawH1Server(t, func(n int64) string { return map[int64]string{2: "drop"}[n] })
		c := client(t, s)
		if rec := do(t, c); rec.Status != record.StatusSuccessful {
			t.Fatalf("first request %+v", rec)
		}
		// The kept connection is alive when taken; the server ends it on
		// reading the request: the request goes again, on a new one.
		if rec := do(t, c); rec.Status != record.StatusSuccessful {
			t.Fatalf("second request %s: %s", rec.ErrorClass, rec.Error)
		}
		if r, ci := c.connStats(); r != 1 || ci != 0 || s.conns.Load() != 2 || s.reqs.Load() != 3 {
			t.Fatalf("retries %d, closed idle %d, connections %d, requests %d; want 1, 0, 2, 3", r, ci, s.conns.Load(), s.reqs.Load())
		}
	})
	t.Run("the retry dials, never takes another idle connection", func(t *testing.T) {
		// Two requests in flight at once leave two idle connections.
		both := make(chan struct{})
		var arrived atomic.Int64
		s := newRawH1Server(t, func(n int64) string {
			if n <= 2 {
				if arrived.Add(1) == 2 {
					close(both)
				}
				<-both
			}
			return map[int64]string{3: "drop"}[n]
		})
		c := client(t, s)
		done := make(chan *record.Record, 2)
		for range 2 {
			go func() { done <- do(t, c) }()
		}
		for range 2 {
			if rec := <-done; rec.Status != record.StatusSuccessful {
				t.Fatalf("%+v", rec)
			}
		}
		if rec := do(t, c); rec.Status != record.StatusSuccessful {
			t.Fatalf("third request %s: %s", rec.ErrorClass, rec.Error)
		}
		if r, _ := c.connStats(); r != 1 || s.conns.Load() != 3 {
			t.Fatalf("retries %d, connections %d; want 1 and 3 (the retry dialled)", r, s.conns.Load())
		}
	})
	t.Run("closed while idle", func(t *testing.T) {
		s := newRawH1Server(t, func(n int64) string { return map[int64]string{1: "close"}[n] })
		c := client(t, s)
		do(t, c)
		<-s.closed // the server's FIN is at the client's socket
		if rec := do(t, c); rec.Status != record.StatusSuccessful {
			t.Fatalf("%s: %s", rec.ErrorClass, rec.Error)
		}
		if r, ci := c.connStats(); r != 0 || ci != 1 || s.reqs.Load() != 2 {
			t.Fatalf("retries %d, closed idle %d, requests %d; want 0, 1, 2 (found closed before the write)", r, ci, s.reqs.Load())
		}
	})
	t.Run("a response begun is not sent again", func(t *testing.T) {
		s := newRawH1Server(t, func(n int64) string { return map[int64]string{2: "cut"}[n] })
		c := client(t, s)
		do(t, c)
		if rec := do(t, c); rec.Status != record.StatusErrored || rec.ErrorClass != record.ErrDisconnect {
			t.Fatalf("%+v", rec)
		}
		if r, _ := c.connStats(); r != 0 || s.reqs.Load() != 2 {
			t.Fatalf("retries %d, requests %d; want 0 and 2", r, s.reqs.Load())
		}
	})
	t.Run("a new connection is not retried", func(t *testing.T) {
		s := newRawH1Server(t, func(int64) string { return "drop" })
		c := client(t, s)
		if rec := do(t, c); rec.Status != record.StatusErrored || rec.ErrorClass != record.ErrDisconnect {
			t.Fatalf("%+v", rec)
		}
		if r, _ := c.connStats(); r != 0 || s.reqs.Load() != 1 {
			t.Fatalf("retries %d, requests %d; want 0 and 1", r, s.reqs.Load())
		}
	})
}
