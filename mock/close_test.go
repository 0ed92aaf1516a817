package mock

import (
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestCloseWithStreamsInFlight: Close with 100 streams in flight returns
// promptly, every client sees an abrupt end (no [DONE]) and no goroutine is
// left behind, on the server or in the client's transport.
func TestCloseWithStreamsInFlight(t *testing.T) {
	const streams = 100
	before := runtime.NumGoroutine()

	cfg := fastConfig()
	cfg.ITL = 10 * time.Millisecond
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{MaxIdleConnsPerHost: streams}
	client := &http.Client{Transport: tr}

	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		results []sseResult
		started sync.WaitGroup // each stream has received data
	)
	started.Add(streams)
	for range streams {
		wg.Go(func() {
			resp, err := client.Post(s.URL()+"/v1/completions", "application/json",
				strings.NewReader(`{"prompt":"x","max_tokens":10000,"ignore_eos":true,"stream":true}`))
			if err != nil {
				t.Errorf("POST: %v", err)
				started.Done()
				return
			}
			fr := &firstDataReader{r: resp.Body, first: started.Done}
			res := readSSE(fr)
			if !fr.seen {
				started.Done() // ended without data: the checks below report it
			}
			resp.Body.Close()
			mu.Lock()
			results = append(results, res)
			mu.Unlock()
		})
	}
	started.Wait()
	if got := s.Stats().Running; got != streams {
		t.Fatalf("%d of %d streams running", got, streams)
	}

	start := time.Now()
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	took := time.Since(start)
	t.Logf("Close with %d streams in flight took %v", streams, took)
	// Close wakes every handler at once: a few milliseconds on an idle
	// machine, seconds under -race on a saturated one (measured: 4 s at
	// load average 13 on 2 cores). The failure this guards against is a
	// Close that waits for the streams to finish, 100 s here (10000 tokens
	// at 10 ms), so the bound is a tenth of that.
	if took > 10*time.Second {
		t.Errorf("Close took %v", took)
	}
	wg.Wait()
	tr.CloseIdleConnections()

	if len(results) != streams {
		t.Fatalf("%d results, want %d", len(results), streams)
	}
	for i, r := range results {
		if r.done || r.err == nil || len(r.payloads) == 0 {
			t.Errorf("stream %d: %d payloads done=%v err=%v, want some data then an abrupt end", i, len(r.payloads), r.done, r.err)
		}
	}
	if st := s.Stats(); st.Aborted != streams || st.Running != 0 {
		t.Errorf("stats after Close: %+v", st)
	}

	if !waitFor(5*time.Second, func() bool { return runtime.NumGoroutine() <= before }) {
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		t.Errorf("goroutines: %d before, %d after Close\n%s", before, runtime.NumGoroutine(), buf[:n])
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// firstDataReader calls first once, when the first bytes arrive.
type firstDataReader struct {
	r     io.Reader
	first func()
	seen  bool
}

func (f *firstDataReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if n > 0 && !f.seen {
		f.seen = true
		f.first()
	}
	return n, err
}

// TestCloseMountedHandler: Close also ends streams served through Handler in
// someone else's server.
func TestCloseMountedHandler(t *testing.T) {
	cfg := fastConfig()
	cfg.ITL = 10 * time.Millisecond
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	if s.URL() != "" {
		t.Errorf("URL() = %q before Start, want empty", s.URL())
	}
	resp := post(t, nil, ts.URL+"/v1/completions", `{"prompt":"x","max_tokens":10000,"ignore_eos":true,"stream":true}`)
	defer resp.Body.Close()
	if !waitFor(5*time.Second, func() bool { return s.Stats().Tokens > 0 }) {
		t.Fatal("no token emitted")
	}
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return")
	}
	if res := readSSE(resp.Body); res.done || res.err == nil {
		t.Errorf("stream after Close: done=%v err=%v, want an abrupt end", res.done, res.err)
	}
	// After Close, new requests are refused.
	resp2 := post(t, nil, ts.URL+"/v1/completions", `{"prompt":"x","max_tokens":1}`)
	if b := readAll(t, resp2); resp2.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("request after Close: %d %s, want 503", resp2.StatusCode, b)
	}
}

func TestStartErrors(t *testing.T) {
	s, err := New(fastConfig())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") {
		t.Errorf("URL() = %q", s.URL())
	}
	if err := s.Start("127.0.0.1:0"); err == nil {
		t.Error("second Start succeeded")
	}
	s.Close()
	if err := s.Start("127.0.0.1:0"); err == nil {
		t.Error("Start after Close succeeded")
	}
	s2, _ := New(fastConfig())
	defer s2.Close()
	if err := s2.Start("no-port"); err == nil || !strings.Contains(err.Error(), "host:port") {
		t.Errorf("Start(no-port) = %v, want an error naming the host:port form", err)
	}
}

func TestListenAddr(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "127.0.0.1:8000"},
		{":9000", "127.0.0.1:9000"},
		{"0.0.0.0:8000", "0.0.0.0:8000"},
		{"127.0.0.1:0", "127.0.0.1:0"},
		{"[::1]:8000", "[::1]:8000"},
	}
	for _, tc := range tests {
		if got, err := listenAddr(tc.in); err != nil || got != tc.want {
			t.Errorf("listenAddr(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}
