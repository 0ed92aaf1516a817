package loadgen

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// faultServer is a purpose-built misbehaving server on 127.0.0.1 for the
// fault suite. It counts its open connections through ConnState (and the
// hijacked ones until the handler closes them), so a test can check that
// every connection the client opened was closed, and it remembers what it
// did with each request (by X-Request-Id), so records can be checked
// against the server's own account without timing tolerances.
type faultServer struct {
	t         *testing.T
	addr      string
	srv       *http.Server
	done      chan struct{} // closed at cleanup: wakes handlers that wait forever
	closeOnce sync.Once

	open     atomic.Int64 // connections open (accepted, not yet closed)
	accepted atomic.Int64
	posts    atomic.Int64 // completion requests seen

	mu    sync.Mutex
	notes map[string]string // X-Request-Id → what the server did
}

// startFaultServer serves h for POST completion requests (and a one-model
// GET /v1/models) on addr ("127.0.0.1:0" for a free port).
func startFaultServer(t *testing.T, addr string, h func(s *faultServer, w http.ResponseWriter, r *http.Request)) *faultServer {
	t.Helper()
	s, err := listenFaultServer(t, addr, h)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// listenFaultServer is startFaultServer for any goroutine: it returns the
// error instead of failing the test.
func listenFaultServer(t *testing.T, addr string, h func(s *faultServer, w http.ResponseWriter, r *http.Request)) (*faultServer, error) {
	s := &faultServer{t: t, done: make(chan struct{}), notes: map[string]string{}}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s.addr = ln.Addr().String()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"m","object":"model"}]}`)
	})
	mux.HandleFunc("POST /", func(w http.ResponseWriter, r *http.Request) {
		s.posts.Add(1)
		// Read the body first: net/http watches for the client going away
		// (and cancels r.Context) only once the body has been read.
		_, _ = io.Copy(io.Discard, r.Body)
		h(s, w, r)
	})
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ConnState: func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			s.open.Add(1)
			s.accepted.Add(1)
		case http.StateClosed:
			s.open.Add(-1)
		}
	}}
	go func() { _ = s.srv.Serve(ln) }()
	t.Cleanup(s.close)
	return s, nil
}

// close stops the server: its listener, every connection, and every
// handler waiting forever.
func (s *faultServer) close() {
	s.closeOnce.Do(func() { close(s.done) })
	_ = s.srv.Close()
}

func (s *faultServer) url() string { return "http://" + s.addr }

// note records what the server did with request r.
func (s *faultServer) note(r *http.Request, what string) {
	s.mu.Lock()
	s.notes[r.Header.Get("X-Request-Id")] = what
	s.mu.Unlock()
}

// noteOf returns what the server did with the request of record id.
func (s *faultServer) noteOf(id uint64) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.notes[fmt.Sprintf("goodput-%d", id)]
	return n, ok
}

// hijack takes the raw connection. ConnState never reports a hijacked
// connection closed, so it stays counted as open until the returned close
// function runs.
func (s *faultServer) hijack(w http.ResponseWriter) (net.Conn, *bufio.ReadWriter, func(rst bool)) {
	c, rw, err := w.(http.Hijacker).Hijack()
	if err != nil {
		s.t.Errorf("hijack: %v", err)
		return nil, nil, func(bool) {}
	}
	var once sync.Once
	return c, rw, func(rst bool) {
		once.Do(func() {
			if tc, ok := c.(*net.TCPConn); ok && rst {
				_ = tc.SetLinger(0) // close sends RST instead of FIN
			}
			_ = c.Close()
			s.open.Add(-1)
		})
	}
}

// waitClient blocks until the client goes away or the server closes.
func (s *faultServer) waitClient(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.done:
	}
}

// noOpenConns is a settled check: the servers see all their connections
// closed.
func noOpenConns(servers ...*faultServer) func() error {
	return func() error {
		for _, s := range servers {
			if n := s.open.Load(); n != 0 {
				return fmt.Errorf("server %s still has %d open connection(s)", s.addr, n)
			}
		}
		return nil
	}
}
