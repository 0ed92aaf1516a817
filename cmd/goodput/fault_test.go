package main

import (
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/cli"
	"github.com/goodput-dev/goodput/internal/leaktest"
	"github.com/goodput-dev/goodput/internal/ssetest"
	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
)

// The fault suite through the real command: `goodput benchmark` against
// the mock's fault injection and purpose-built servers. Every case checks
// that the run ends by its own constraint with exit 4 (no request
// succeeded: cli.ExitNoSuccess; 0 when the run only cut its requests off),
// that each request
// is classified as loadgen documents, that the report is written, valid
// and its goodput.errors.by_class agrees with the JSON Lines records, and
// that afterwards no goroutine is left and the server sees every
// connection closed.

// faultArgs is a benchmark command line writing every file output of run
// "r" into dir.
func faultArgs(target, dir string, extra ...string) []string {
	return append([]string{"benchmark", "--target", target, "--data", "prompt_tokens=8,output_tokens=8",
		"--output-dir", dir, "--run-id", "r", "--outputs", "json,csv,jsonl,console", "--server-metrics", "off"}, extra...)
}

func mockWith(edit func(*mock.Config)) func(*testing.T) *connServer {
	return func(t *testing.T) *connServer { return startMockServer(t, edit) }
}

func faulty(h faultHandler) func(*testing.T) *connServer {
	return func(t *testing.T) *connServer { return startFaultServer(t, "127.0.0.1:0", h) }
}

// streamForeverHandler sends a token chunk every millisecond until the
// client goes away or the server closes.
func streamForeverHandler(s *connServer, w http.ResponseWriter, r *http.Request) {
	ssetest.Forever(w, r, s.done)
}

func TestBenchmarkFaults(t *testing.T) {
	closed4 := []string{"--rate-type", "concurrent", "--rate", "2", "--max-requests", "4"}
	cases := []struct {
		name    string
		server  func(*testing.T) *connServer
		args    []string
		stop    string
		classes map[string]int // exact error classes of the run
		http    []int          // allowed HTTP statuses of errored requests
	}{
		{name: "mock HTTP errors", server: mockWith(func(c *mock.Config) { c.ErrorRate, c.ErrorCodes = 1, []int{429, 500, 503} }),
			args: closed4, stop: "max_requests", classes: map[string]int{"http_status": 4}, http: []int{429, 500, 503}},
		{name: "mock disconnects", server: mockWith(func(c *mock.Config) { c.DisconnectRate = 1 }),
			args: closed4, stop: "max_requests", classes: map[string]int{"disconnect": 4}, http: []int{200}},
		{name: "mock stalls past the stall timeout", server: mockWith(func(c *mock.Config) { c.StallRate, c.StallDuration = 1, 3*time.Second }),
			args: append([]string{"--stall-timeout", "200ms"}, closed4...), stop: "max_requests", classes: map[string]int{"stall": 4}, http: []int{200}},
		{name: "mock stream errors", server: mockWith(func(c *mock.Config) { c.StreamErrorRate = 1 }),
			args: closed4, stop: "max_requests", classes: map[string]int{"stream_error": 4}, http: []int{200}},
		{name: "malformed chunk", server: faulty(func(_ *connServer, w http.ResponseWriter, _ *http.Request) {
			ssetest.Write(w, ssetest.Token("a"), "data: {\"choices\":[{\"delta\":{\"content\":}]}\n\n", ssetest.Done)
		}), args: closed4, stop: "max_requests", classes: map[string]int{"protocol": 4}, http: []int{200}},
		{name: "wrong content type", server: faulty(func(_ *connServer, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = io.WriteString(w, "<html><body>502 Bad Gateway</body></html>")
		}), args: closed4, stop: "max_requests", classes: map[string]int{"protocol": 4}, http: []int{200}},
		{name: "empty 200 body", server: faulty(func(_ *connServer, w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusOK)
		}), args: closed4, stop: "max_requests", classes: map[string]int{"protocol": 4}, http: []int{200}},
		{name: "no [DONE] and no finish_reason", server: faulty(func(_ *connServer, w http.ResponseWriter, _ *http.Request) {
			ssetest.Write(w, ssetest.Token("a"), ssetest.Token("b"))
		}), args: closed4, stop: "max_requests", classes: map[string]int{"disconnect": 4}, http: []int{200}},
		{name: "error payload in the stream", server: faulty(func(_ *connServer, w http.ResponseWriter, _ *http.Request) {
			ssetest.Write(w, ssetest.Token("a"), `data: {"error":{"message":"engine died","type":"InternalServerError","code":500}}`+"\n\n", ssetest.Done)
		}), args: closed4, stop: "max_requests", classes: map[string]int{"stream_error": 4}, http: []int{200}},
		{name: "headers never arrive: stall timeout", server: faulty(func(s *connServer, _ http.ResponseWriter, r *http.Request) { s.waitClient(r) }),
			args: append([]string{"--stall-timeout", "300ms"}, closed4...), stop: "max_requests", classes: map[string]int{"stall": 4}},
		{name: "headers never arrive: max duration", server: faulty(func(s *connServer, _ http.ResponseWriter, r *http.Request) { s.waitClient(r) }),
			args: []string{"--stall-timeout", "0", "--request-timeout", "0", "--rate-type", "concurrent", "--rate", "2", "--max-seconds", "0.5"},
			stop: "max_duration", classes: map[string]int{"cancelled": 2}},
		{name: "streams forever", server: faulty(streamForeverHandler),
			args: closed4, stop: "max_requests", classes: map[string]int{"protocol": 4}, http: []int{200}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := tc.server(t)
			base := leaktest.Snapshot()
			dir := t.TempDir()
			start := time.Now()
			code, stdout, stderr := runGoodput(t, faultArgs(srv.url(), dir, tc.args...)...)
			// No request succeeded: exit 4, unless the run itself cut
			// every request off (nothing failed).
			want := cli.ExitNoSuccess
			if len(tc.classes) == 1 && tc.classes["cancelled"] > 0 {
				want = cli.ExitOK
			}
			if code != want || (want == cli.ExitNoSuccess) != strings.Contains(stderr, "no working server was measured") {
				t.Fatalf("exit %d, want %d: %s", code, want, stderr)
			}
			if took := time.Since(start); took > 15*time.Second {
				t.Fatalf("the run took %v", took)
			}
			out := checkRunOutputs(t, filepath.Join(dir, "r"))
			if fmt.Sprint(out.classes) != fmt.Sprint(tc.classes) {
				t.Fatalf("error classes %v, want %v", out.classes, tc.classes)
			}
			b := out.rep.Benchmarks[0]
			if b.Extras.StopReason != tc.stop || out.rep.Run.Interrupted {
				t.Fatalf("stop reason %q (interrupted %v), want %q", b.Extras.StopReason, out.rep.Run.Interrupted, tc.stop)
			}
			for _, r := range out.records {
				if r.Status == record.StatusErrored && !containsInt(tc.http, r.HTTPStatus) && !(len(tc.http) == 0 && r.HTTPStatus == 0) {
					t.Fatalf("record %d: HTTP %d, want one of %v", r.ID, r.HTTPStatus, tc.http)
				}
				if r.Status != record.StatusSuccessful && (r.Error == "" || strings.ContainsAny(r.Error, "\r\n")) {
					t.Fatalf("record %d: error %q: want a one-line message", r.ID, r.Error)
				}
			}
			for code, n := range b.Extras.Errors.ByHTTPStatus {
				var c int
				fmt.Sscan(code, &c)
				if !containsInt(tc.http, c) || n == 0 {
					t.Fatalf("by_http_status %v, want statuses among %v", b.Extras.Errors.ByHTTPStatus, tc.http)
				}
			}
			if !strings.Contains(stdout, "Requests and throughput") {
				t.Fatalf("no console summary:\n%s", stdout)
			}
			if srv.mock != nil && srv.mock.Stats().Requests != uint64(len(out.records)) {
				t.Fatalf("the mock saw %d requests, the records say %d", srv.mock.Stats().Requests, len(out.records))
			}
			expectSettled(t, base, srv)
		})
	}
}

func containsInt(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// TestBenchmarkErrorBurst: a server that answers 429, 500 and 503 in turn
// for 300 ms after the first completion request, then recovers. The
// open-loop run goes on through the burst to its duration; the errors are
// http_status with those codes and the requests after the burst succeed.
func TestBenchmarkErrorBurst(t *testing.T) {
	var first, n atomic.Int64
	codes := []int{429, 500, 503}
	srv := startFaultServer(t, "127.0.0.1:0", func(_ *connServer, w http.ResponseWriter, _ *http.Request) {
		now := time.Now().UnixNano()
		first.CompareAndSwap(0, now)
		if time.Duration(now-first.Load()) < 300*time.Millisecond {
			code := codes[n.Add(1)%3]
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(code)
			_, _ = fmt.Fprintf(w, `{"error":{"message":"burst","code":%d}}`, code)
			return
		}
		ssetest.Write(w, ssetest.Token("a"), ssetest.Token("b"), ssetest.Finish, ssetest.Done)
	})
	base := leaktest.Snapshot()
	dir := t.TempDir()
	code, _, stderr := runGoodput(t, faultArgs(srv.url(), dir, "--rate-type", "constant", "--rate", "40", "--max-seconds", "0.8")...)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	out := checkRunOutputs(t, filepath.Join(dir, "r"))
	b := out.rep.Benchmarks[0]
	if b.Extras.StopReason != "max_duration" {
		t.Fatalf("stop reason %q: the burst must not end the run", b.Extras.StopReason)
	}
	for class := range out.classes {
		if class != "http_status" && class != "cancelled" {
			t.Fatalf("error classes %v: want http_status (and requests cancelled by the end)", out.classes)
		}
	}
	for _, c := range []string{"429", "500", "503"} {
		if b.Extras.Errors.ByHTTPStatus[c] == 0 {
			t.Fatalf("by_http_status %v: want every status of the burst", b.Extras.Errors.ByHTTPStatus)
		}
	}
	if b.Metrics.RequestTotals.Successful == 0 {
		t.Fatal("no request succeeded after the burst")
	}
	expectSettled(t, base, srv)
}

// TestBenchmarkServerGoesAway: the server closes its listener and kills
// its connections mid-run (after its fifth completed request); with
// restart it comes back on the same port 300 ms later (about 15 requests
// of the schedule find it closed, fewer than --max-connect-failures' 50)
// and the run goes on to its duration; without, the run stops once 50
// requests in a row found no server, says so and exits 4. The requests
// that found no server are connect errors, those cut by the kill
// disconnects, and after a restart requests succeed again on new
// connections.
func TestBenchmarkServerGoesAway(t *testing.T) {
	for _, restart := range []bool{false, true} {
		t.Run(map[bool]string{false: "refused", true: "restart"}[restart], func(t *testing.T) {
			var served, servedAgain atomic.Int64
			killed := make(chan struct{})
			var first atomic.Pointer[connServer]
			var again atomic.Pointer[connServer]
			handler := func(s *connServer, w http.ResponseWriter, r *http.Request) {
				f := ssetest.Start(w)
				for _, e := range []string{ssetest.Token("a"), ssetest.Token("b"), ssetest.Finish, ssetest.Done} {
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
				if s == first.Load() {
					if served.Add(1) == 5 {
						close(killed)
					}
				} else {
					servedAgain.Add(1)
				}
			}
			srv := startFaultServer(t, "127.0.0.1:0", handler)
			first.Store(srv)
			base := leaktest.Snapshot()
			revived := make(chan error, 1)
			go func() {
				<-killed
				srv.close()
				if !restart {
					return
				}
				// The server is down for 300 ms: about 15 requests of the
				// 50/s schedule find the port closed.
				time.Sleep(300 * time.Millisecond)
				s, err := listenFaultServer(t, srv.addr, handler)
				if err == nil {
					again.Store(s)
				}
				revived <- err
			}()
			dir := t.TempDir()
			code, _, stderr := runGoodput(t, faultArgs(srv.url(), dir, "--rate-type", "constant", "--rate", "50", "--max-seconds", "1.5")...)
			wantCode, wantStop := cli.ExitOK, "max_duration"
			if !restart {
				wantCode, wantStop = cli.ExitNoSuccess, "server_gone"
				if !strings.Contains(stderr, "server went away: 50 requests in a row could not reach "+srv.url()) {
					t.Errorf("stderr does not name the server that went away:\n%s", stderr)
				}
			}
			if code != wantCode {
				t.Fatalf("exit %d, want %d: %s", code, wantCode, stderr)
			}
			out := checkRunOutputs(t, filepath.Join(dir, "r"))
			if sr := out.rep.Benchmarks[0].Extras.StopReason; sr != wantStop {
				t.Fatalf("stop reason %q, want %q", sr, wantStop)
			}
			for class := range out.classes {
				if class != "connect" && class != "disconnect" && class != "cancelled" {
					t.Fatalf("error classes %v: want connect, disconnect (cut by the kill) and cancelled (at the end)", out.classes)
				}
			}
			if out.classes["connect"] == 0 {
				t.Fatalf("error classes %v: no request found the port closed", out.classes)
			}
			servers := []*connServer{srv}
			if restart {
				if err := <-revived; err != nil {
					t.Fatalf("restarting on %s: %v", srv.addr, err)
				}
				s := again.Load()
				servers = append(servers, s)
				if servedAgain.Load() == 0 || s.accepted.Load() == 0 {
					t.Fatal("no request succeeded on a new connection after the restart")
				}
				// Successes after the first connect error: the run recovered.
				var firstRefused int64
				for _, r := range out.records {
					if r.ErrorClass == record.ErrConnect && (firstRefused == 0 || r.Dispatched < firstRefused) {
						firstRefused = r.Dispatched
					}
				}
				later := 0
				for _, r := range out.records {
					if r.Status == record.StatusSuccessful && r.Dispatched > firstRefused {
						later++
					}
				}
				if later == 0 || int64(later) > servedAgain.Load() {
					t.Fatalf("%d successes after the outage, the restarted server completed %d", later, servedAgain.Load())
				}
				s.close()
			}
			expectSettled(t, base, servers...)
		})
	}
}

// A server that dies mid-run (its listener and connections closed after
// ten answers) is named on stderr as it happens; the run stops sending
// after --max-connect-failures requests that could not reach it, skips
// its later rounds, writes its report and exits 4.
func TestServerGoneStopsTheRun(t *testing.T) {
	var served atomic.Int64
	srv := startFaultServer(t, "127.0.0.1:0", func(s *connServer, w http.ResponseWriter, _ *http.Request) {
		ssetest.OK(w)
		if served.Add(1) == 10 {
			go s.close()
		}
	})
	dir := t.TempDir()
	start := time.Now()
	code, _, stderr := runGoodput(t, "benchmark", "--target", srv.url(), "--model", "m", "--data", "prompt_tokens=8,output_tokens=4",
		"--rate-type", "concurrent", "--rate", "2,4", "--max-seconds", "30", "--max-connect-failures", "5",
		"--outputs", "json", "--output-dir", dir, "--run-id", "r", "--server-metrics", "off", "--disable-progress")
	if took := time.Since(start); took > 20*time.Second {
		t.Fatalf("the run took %v: it kept sending to a dead server", took)
	}
	if code != cli.ExitNoSuccess || !strings.Contains(stderr, "server went away: 5 requests in a row could not reach "+srv.url()+"/v1/chat/completions") {
		t.Fatalf("exit %d, want %d naming the server; stderr:\n%s", code, cli.ExitNoSuccess, stderr)
	}
	rep, err := report.Read(filepath.Join(dir, "r", "benchmarks.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Benchmarks) != 1 || rep.Benchmarks[0].Extras.StopReason != string(loadgen.StopServerGone) {
		t.Fatalf("%d benchmarks, the first stopped for %q; want one, stopped for %q", len(rep.Benchmarks), rep.Benchmarks[0].Extras.StopReason, loadgen.StopServerGone)
	}
}
