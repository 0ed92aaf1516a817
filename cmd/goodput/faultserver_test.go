package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/clitest"

	"github.com/goodput-dev/goodput/cli"
	"github.com/goodput-dev/goodput/internal/leaktest"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
)

// connServer is a test server on 127.0.0.1 that counts its open
// connections (ConnState), so a test can check that the client closed
// every connection it opened. It serves either a goodput mock's handler
// or a purpose-built misbehaving completion handler.
type connServer struct {
	t        *testing.T
	addr     string
	srv      *http.Server
	done     chan struct{} // closed by close: wakes handlers that wait forever
	once     sync.Once
	open     atomic.Int64
	accepted atomic.Int64
	posts    atomic.Int64
	mock     *mock.Server // set when serving a mock
}

// faultHandler answers one completion request.
type faultHandler func(s *connServer, w http.ResponseWriter, r *http.Request)

// startConnServer serves h on addr ("127.0.0.1:0" for a free port).
func startConnServer(t *testing.T, addr string, h http.Handler) *connServer {
	t.Helper()
	s, err := listenConnServer(t, addr, h)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// listenConnServer is startConnServer for any goroutine.
func listenConnServer(t *testing.T, addr string, h http.Handler) (*connServer, error) {
	s := &connServer{t: t, done: make(chan struct{})}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s.addr = ln.Addr().String()
	s.srv = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ConnState: func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			s.open.Add(1)
			s.accepted.Add(1)
		case http.StateClosed: // (no handler here hijacks)
			s.open.Add(-1)
		}
	}}
	go func() { _ = s.srv.Serve(ln) }()
	t.Cleanup(s.close)
	return s, nil
}

// startFaultServer serves a one-model GET /v1/models and h for every
// POST.
func startFaultServer(t *testing.T, addr string, h faultHandler) *connServer {
	t.Helper()
	s, err := listenFaultServer(t, addr, h)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func listenFaultServer(t *testing.T, addr string, h faultHandler) (*connServer, error) {
	var s *connServer
	ready := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"m","object":"model","owned_by":"test"}]}`)
	})
	mux.HandleFunc("POST /", func(w http.ResponseWriter, r *http.Request) {
		<-ready
		s.posts.Add(1)
		// net/http notices a client going away (r.Context) only once the
		// body has been read.
		_, _ = io.Copy(io.Discard, r.Body)
		h(s, w, r)
	})
	s, err := listenConnServer(t, addr, mux)
	close(ready)
	return s, err
}

// startMockServer serves a goodput mock (fast, deterministic, edited by
// edit) through a connection-counting server.
func startMockServer(t *testing.T, edit func(*mock.Config)) *connServer {
	t.Helper()
	cfg := mock.DefaultConfig()
	cfg.TTFT, cfg.TTFTStdev, cfg.ITL, cfg.ITLStdev = 5*time.Millisecond, 0, time.Millisecond, 0
	if edit != nil {
		edit(&cfg)
	}
	m, err := mock.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := startConnServer(t, "127.0.0.1:0", m.Handler())
	s.mock = m
	t.Cleanup(func() { _ = m.Close() })
	return s
}

func (s *connServer) close() {
	s.once.Do(func() { close(s.done) })
	_ = s.srv.Close()
}

func (s *connServer) url() string { return "http://" + s.addr }

// waitClient blocks until the client goes away or the server closes.
func (s *connServer) waitClient(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.done:
	}
}

// runEnv executes goodput with args and an environment.
func runEnv(t *testing.T, environ map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := realMain(args, &cli.Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(""), Getenv: func(k string) string { return environ[k] }})
	return code, out.String(), errb.String()
}

// runOutputs is what a finished run wrote.
type runOutputs struct {
	rep     *report.Report
	records []*record.Record
	classes map[string]int // error class → records (all benchmarks)
}

// checkRunOutputs checks the run directory dir: benchmarks.json is valid
// JSON and a readable report, requests.jsonl decodes, and every
// benchmark's goodput.errors.by_class agrees with the classes of its
// records in the JSON Lines file (the two are computed independently: the
// accumulator's counts and the encoder's records). by_class counts the
// measurement window only, so a record outside it (a request the
// benchmark's end caught before it was sent) may be missing from it:
// exact equality when goodput.requests.outside_window is 0, else at most
// that many fewer.
func checkRunOutputs(t *testing.T, dir string) runOutputs {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "benchmarks.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(raw) {
		t.Fatalf("%s/benchmarks.json is not valid JSON", dir)
	}
	out := runOutputs{rep: clitest.ReadReport(t, filepath.Join(dir, "benchmarks.json")), classes: map[string]int{}}
	out.records = readRecords(t, filepath.Join(dir, "requests.jsonl"))
	perBench := map[int]map[string]int{}
	for _, r := range out.records {
		if r.Status == record.StatusSuccessful || (r.Status == record.StatusIncomplete && r.Dispatched == 0) {
			continue
		}
		if perBench[r.Benchmark] == nil {
			perBench[r.Benchmark] = map[string]int{}
		}
		perBench[r.Benchmark][string(r.ErrorClass)]++
		out.classes[string(r.ErrorClass)]++
	}
	for i, b := range out.rep.Benchmarks {
		if b.Extras == nil {
			t.Fatalf("benchmark %d has no goodput extras", i)
		}
		missing := 0
		for class, n := range b.Extras.Errors.ByClass {
			if int(n) > perBench[i][class] {
				t.Fatalf("benchmark %d: goodput.errors.by_class %v, the records say %v", i, b.Extras.Errors.ByClass, perBench[i])
			}
		}
		for class, n := range perBench[i] {
			missing += n - int(b.Extras.Errors.ByClass[class])
		}
		if outside := int(b.Extras.Requests.OutsideWindow); missing > outside {
			t.Fatalf("benchmark %d: goodput.errors.by_class %v, the records say %v (%d outside the window)", i, b.Extras.Errors.ByClass, perBench[i], outside)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "benchmarks.csv")); err != nil {
		t.Fatal(err)
	}
	return out
}

// expectSettled checks that every goroutine started since base has exited
// and every server sees all its connections closed.
func expectSettled(t *testing.T, base map[string]string, servers ...*connServer) {
	t.Helper()
	leaktest.Check(t, base, func() error {
		var open []string
		for _, s := range servers {
			if n := s.open.Load(); n != 0 {
				open = append(open, fmt.Sprintf("%s: %d", s.addr, n))
			}
		}
		if len(open) > 0 {
			return fmt.Errorf("open connections %v", open)
		}
		return nil
	})
}
