package loadgen

import (
	"bufio"
	"context"
	"fmt"
	neturl "net/url"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/leaktest"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/record"
)

// mockProcessEnv makes the test binary serve the mock instead of running
// tests (TestMain): the scale test measures the client's memory alone.
const mockProcessEnv = "GOODPUT_TEST_MOCK_PROCESS"

func TestMain(m *testing.M) {
	if os.Getenv(mockProcessEnv) != "" {
		serveMockProcess()
		return
	}
	os.Exit(m.Run())
}

// mockProcessITL is the gap between the process mock's tokens.
const mockProcessITL = 100 * time.Millisecond

// serveMockProcess serves a mock (TTFT 0, 16 tokens mockProcessITL
// apart), prints its URL and serves until its standard input closes.
func serveMockProcess() {
	cfg := mock.DefaultConfig()
	cfg.TTFT, cfg.TTFTStdev, cfg.ITL, cfg.ITLStdev = 0, 0, mockProcessITL, 0
	cfg.OutputTokens, cfg.OutputTokensStdev = 16, 0
	srv, err := mock.New(cfg)
	if err == nil {
		err = srv.Start("127.0.0.1:0")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(srv.URL())
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	_ = srv.Close()
}

// startMockProcess starts the mock in a child process and returns its URL.
func startMockProcess(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), mockProcessEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		_ = cmd.Wait()
	})
	url, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("mock process: %v", err)
	}
	return strings.TrimSpace(url)
}

// established counts the client ends of the TCP connections to port in
// state ESTABLISHED, from /proc/net/tcp.
func established(t *testing.T, port int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		t.Skipf("cannot count connections: %v", err)
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 4 || f[3] != "01" {
			continue
		}
		_, rem, _ := strings.Cut(f[2], ":")
		if p, err := strconv.ParseInt(rem, 16, 32); err == nil && int(p) == port {
			n++
		}
	}
	return n
}

// openFiles counts the process's open file descriptors.
func openFiles(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count open files: %v", err)
	}
	return len(fds)
}

// TestTwoThousandStreams holds 2,000 streams on goodput's own client
// against a mock in another process: the client's live memory (heap and
// goroutine stacks) per stream stays within issue 22's 20 KB, each
// stream's goroutine within a 4 KB stack, and after the run no goroutine
// or connection is left.
func TestTwoThousandStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("2,000 streams against a mock process (make scale)")
	}
	const streams = 2000
	url := startMockProcess(t)
	u, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	port, _ := strconv.Atoi(u.Port())
	// The pool keeps every stream's connection between its requests, as
	// the run sizes it (run.go); the default keeps 1,024.
	c, err := NewClient(ClientConfig{Target: url, Model: mock.DefaultModel, HTTPClient: HTTPClientGoodput, MaxConns: streams}, NewClock())
	if err != nil {
		t.Fatal(err)
	}
	e := NewEngine(c)
	runtime.GC()
	runtime.GC()
	base := leaktest.Snapshot()
	files := openFiles(t)
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	out := make(chan *record.Record, 1024)
	var ok, total int
	done := make(chan struct{})
	go func() {
		for r := range out {
			total++
			if r.Status == record.StatusSuccessful && len(r.ChunkTimes) == 16 {
				ok++
			}
			e.Release(r)
		}
		close(done)
	}()
	// Every stream sends two requests of 1.6 s each. The memory is read
	// while they stream: once every stream has had a request in flight,
	// and every connection has been open, for three of the mock's token
	// gaps. Each stream has then sent its request and read the head, and
	// waits for its next token (the starts' peak is the bench's to
	// measure). held says whether that moment came before the run ended.
	var during runtime.MemStats
	held := make(chan bool, 1)
	ran := make(chan struct{})
	go func() {
		var since time.Time
		for {
			if e.Live().InFlight < streams || established(t, port) < streams {
				since = time.Time{}
			} else if since.IsZero() {
				since = time.Now()
			} else if time.Since(since) >= 3*mockProcessITL {
				break
			}
			select {
			case <-ran:
				held <- false
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
		// Two collections: the first moves the pools' idle buffers to
		// their victim caches, the second frees them.
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&during)
		held <- true
	}()
	res, err := e.Run(context.Background(), Benchmark{
		Strategy: Strategy{Kind: Concurrent, Streams: streams}, Constraints: Constraints{MaxRequests: 2 * streams},
		Source: fixedSource{NewRequest("", "hello", 16)},
	}, out)
	close(ran)
	close(out)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if ok != 2*streams || total != 2*streams || res.Successful != 2*streams {
		t.Fatalf("%d of %d records successful (result %+v), want %d", ok, total, res, 2*streams)
	}
	if !<-held {
		if !raceEnabled {
			t.Fatalf("the %d streams were never all streaming at once, each on its own connection", streams)
		}
		// The race detector slows the streams' starts past a request's
		// 1.6 s, so the streams may never all stream together.
		t.Logf("the %d streams were never all streaming at once; memory not measured", streams)
		streamsClosed(t, c, base, port, files)
		return
	}
	perStream := (float64(during.HeapAlloc+during.StackInuse) - float64(before.HeapAlloc+before.StackInuse)) / streams
	stack := (float64(during.StackInuse) - float64(before.StackInuse)) / streams
	t.Logf("%d streams streaming; live memory per stream %.1f KB (heap %.1f KB, goroutine stacks %.1f KB)", streams, perStream/1024,
		(float64(during.HeapAlloc)-float64(before.HeapAlloc))/streams/1024, stack/1024)
	if !raceEnabled && perStream > 20<<10 {
		t.Errorf("live memory per stream %.1f KB, want at most 20 KB", perStream/1024)
	}
	// A stream's goroutine fits in a 4 KB stack (Client.Do): a frame
	// grown on its path doubles every stream's stack to 8 KB.
	if !raceEnabled && stack > 6<<10 {
		t.Errorf("goroutine stack per stream %.1f KB, want the 4 KB stacks (at most 6 KB)", stack/1024)
	}
	streamsClosed(t, c, base, port, files)
}

// streamsClosed checks that, once c's idle connections are closed, no
// goroutine, connection to port or file is left beyond those before.
func streamsClosed(t *testing.T, c *Client, base map[string]string, port, files int) {
	t.Helper()
	c.CloseIdle()
	leaktest.CheckWithin(t, base, func() error {
		if n := established(t, port); n > 0 {
			return fmt.Errorf("%d connections still open", n)
		}
		if n := openFiles(t); n > files {
			return fmt.Errorf("%d files open, %d before the run", n, files)
		}
		return nil
	}, 30*time.Second)
}
