package loadgen

import (
	"context"
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
