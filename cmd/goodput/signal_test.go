package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/cli"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/record"
)

// Signals through real processes: the goodput binary, built once per test
// run, gets SIGINT or SIGTERM at a moment read from its own JSON log lines
// (never after a bare sleep), in each phase of a run.

// builtBinary is the goodput binary built for this test run.
var builtBinary struct {
	once      sync.Once
	dir, path string
	err       error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtBinary.dir != "" {
		_ = os.RemoveAll(builtBinary.dir)
	}
	os.Exit(code)
}

// goodputBinary builds cmd/goodput into a temporary directory, once.
func goodputBinary(t *testing.T) string {
	t.Helper()
	b := &builtBinary
	b.once.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			b.err = err
			return
		}
		if b.dir, b.err = os.MkdirTemp("", "goodput-signal-test-"); b.err != nil {
			return
		}
		b.path = filepath.Join(b.dir, "goodput")
		out, err := exec.Command(goTool, "build", "-o", b.path, ".").CombinedOutput()
		if err != nil {
			b.err = errors.New("go build: " + err.Error() + ": " + string(out))
		}
	})
	if b.err != nil {
		t.Fatalf("building goodput: %v", b.err)
	}
	return b.path
}

// logLine is one JSON log line of goodput's stderr (--log-format json).
type logLine struct {
	Raw       string `json:"-"` // the whole line (JSON or not)
	Msg       string `json:"msg"`
	Round     string `json:"round"`
	Completed int    `json:"completed"`
}

// proc is a running goodput process whose stderr is read line by line.
type proc struct {
	cmd    *exec.Cmd
	lines  chan logLine
	eof    chan struct{}
	mu     sync.Mutex
	stderr strings.Builder
	stdout bytes.Buffer
}

func startGoodput(t *testing.T, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(goodputBinary(t), args...), lines: make(chan logLine, 100000), eof: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), "OPENAI_API_KEY=")
	p.cmd.Stdout = &p.stdout
	pipe, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(p.eof)
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.stderr.WriteString(line + "\n")
			p.mu.Unlock()
			var l logLine
			if strings.HasPrefix(line, "{") {
				_ = json.Unmarshal([]byte(line), &l)
			}
			l.Raw = line
			select {
			case p.lines <- l:
			default: // nobody waits for that many lines
			}
		}
		_, _ = io.Copy(io.Discard, pipe)
	}()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Kill()
			<-p.eof
			_ = p.cmd.Wait()
		}
	})
	return p
}

func (p *proc) errText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// waitFor returns once a log line satisfies match; it fails the test if
// the process ends first or nothing matches within 30 s.
func (p *proc) waitFor(t *testing.T, what string, match func(logLine) bool) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case l := <-p.lines:
			if match(l) {
				return
			}
		case <-p.eof:
			t.Fatalf("goodput ended before %s:\n%s", what, p.errText())
		case <-timeout:
			t.Fatalf("no %s within 30 s:\n%s", what, p.errText())
		}
	}
}

// wait waits for the process to exit, at most limit, and returns its exit
// code.
func (p *proc) wait(t *testing.T, limit time.Duration) int {
	t.Helper()
	select {
	case <-p.eof:
	case <-time.After(limit):
		_ = p.cmd.Process.Kill()
		<-p.eof
		_ = p.cmd.Wait()
		t.Fatalf("goodput did not exit within %v of the signal:\n%s", limit, p.errText())
	}
	_ = p.cmd.Wait()
	return p.cmd.ProcessState.ExitCode()
}

func TestSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and signals six runs (make check)")
	}
	srv := startMockServer(t, func(c *mock.Config) { c.TTFT = 100 * time.Millisecond })
	started := func(round string) func(logLine) bool {
		return func(l logLine) bool { return l.Msg == "benchmark started" && l.Round == round }
	}
	finished := func(round string) func(logLine) bool {
		return func(l logLine) bool { return strings.HasPrefix(l.Msg, "benchmark finished") && l.Round == round }
	}
	type phase struct {
		name    string
		args    func() []string
		trigger string
		when    func(logLine) bool
		runDir  string
		rounds  int    // benchmarks in the partial report
		last    string // the last benchmark's stop reason
		// orBefore: the signal may also land before the next round is
		// set up (the report then ends with the round that finished,
		// not interrupted: rounds-1 benchmarks).
		orBefore bool
		records  bool // the last benchmark recorded requests
	}
	phases := []phase{
		{name: "warmup", trigger: "a progress line of the warmup",
			args: func() []string {
				return []string{"--rate-type", "concurrent", "--rate", "2", "--warmup", "20", "--max-seconds", "60", "--progress-interval", "100ms"}
			},
			when:   func(l logLine) bool { return l.Msg == "progress" && l.Completed > 0 },
			runDir: "r", rounds: 1, last: "interrupted", records: true},
		{name: "benchmark", trigger: "round 2's start",
			args: func() []string {
				return []string{"--rate-type", "concurrent", "--rate", "1,2", "--max-requests", "6"}
			},
			when: started("2/2"), runDir: "r", rounds: 2, last: "interrupted"},
		{name: "between rounds", trigger: "round 1's end (then a 3 s gap before round 2)",
			args: func() []string {
				// A one-pod sharded run pauses --round-gap between rounds.
				at := time.Now().Add(300 * time.Millisecond).UTC().Format(time.RFC3339Nano)
				return []string{"--rate-type", "concurrent", "--rate", "1,2", "--max-seconds", "0.3",
					"--shard-count", "1", "--shard-index", "0", "--start-at", at, "--round-gap", "3s"}
			},
			when: finished("1/2"), runDir: "r-shard-0-of-1", rounds: 2, last: "interrupted", orBefore: true},
	}
	for _, ph := range phases {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			t.Run(ph.name+"/"+sig.String(), func(t *testing.T) {
				dir := t.TempDir()
				args := append([]string{"benchmark", "--target", srv.url(), "--data", "prompt_tokens=8,output_tokens=8",
					"--output-dir", dir, "--run-id", "r", "--log-format", "json", "--server-metrics", "off",
					"--outputs", "json,csv,jsonl,html,scorecard"}, ph.args()...)
				p := startGoodput(t, args...)
				p.waitFor(t, ph.trigger, ph.when)
				if err := p.cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
				signalled := time.Now()
				code := p.wait(t, 5*time.Second)
				t.Logf("exited %d in %v after the signal", code, time.Since(signalled).Round(time.Millisecond))
				if code != cli.ExitInterrupt || !strings.Contains(p.errText(), "goodput benchmark: interrupted; partial results were written") {
					t.Fatalf("exit %d, want %d with the interrupt message:\n%s", code, cli.ExitInterrupt, p.errText())
				}
				out := checkRunOutputs(t, filepath.Join(dir, ph.runDir))
				rep := out.rep
				if rep.Run == nil || !rep.Run.Interrupted {
					t.Fatal("the partial report is not marked interrupted")
				}
				lastWant := ph.last
				switch {
				case len(rep.Benchmarks) == ph.rounds:
				case ph.orBefore && len(rep.Benchmarks) == ph.rounds-1:
					lastWant = "max_duration"
				default:
					t.Fatalf("%d benchmarks in the partial report, want %d", len(rep.Benchmarks), ph.rounds)
				}
				last := rep.Benchmarks[len(rep.Benchmarks)-1]
				if last.Extras.StopReason != lastWant {
					t.Fatalf("last benchmark stop reason %q, want %q", last.Extras.StopReason, lastWant)
				}
				for i, b := range rep.Benchmarks[:len(rep.Benchmarks)-1] {
					if b.Extras.StopReason == "interrupted" {
						t.Fatalf("benchmark %d, finished before the signal, is marked interrupted", i)
					}
				}
				if ph.records && last.Extras.Requests.Recorded == 0 {
					t.Fatal("the interrupted benchmark recorded no request")
				}
				for _, r := range out.records {
					if r.Benchmark == len(rep.Benchmarks)-1 && r.Status == record.StatusIncomplete && r.ErrorClass != record.ErrCancelled {
						t.Fatalf("record %d: incomplete with class %q, want cancelled", r.ID, r.ErrorClass)
					}
				}
				expectCompleteRunDir(t, filepath.Join(dir, ph.runDir), ph.runDir == "r")
			})
		}
	}
}

// expectCompleteRunDir checks that no temporary file of an atomic write
// is left and that the HTML report and (unless the run is a shard, which
// writes none) the scorecard were written whole.
func expectCompleteRunDir(t *testing.T, dir string, scorecard bool) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
		if strings.Contains(e.Name(), ".tmp-") || strings.HasPrefix(e.Name(), ".goodput-write-check") {
			t.Fatalf("%s: a temporary file was left: %s", dir, e.Name())
		}
	}
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil || !bytes.HasSuffix(bytes.TrimSpace(html), []byte("</html>")) {
		t.Fatalf("report.html missing or cut short (%v); files %v", err, names)
	}
	cards, _ := filepath.Glob(filepath.Join(dir, "scorecard-*.json"))
	if !scorecard {
		if len(cards) != 0 {
			t.Fatalf("a shard wrote a scorecard: %v", cards)
		}
		return
	}
	if len(cards) != 1 {
		t.Fatalf("scorecard files %v; files %v", cards, names)
	}
	raw, err := os.ReadFile(cards[0])
	if err != nil || !json.Valid(raw) {
		t.Fatalf("%s is not valid JSON (%v)", cards[0], err)
	}
}

// TestSignalWhileWriting signals after the last benchmark finished: right
// after its log line, and right after the "run metadata missing" line
// that goodput prints just before it writes its outputs, while it writes
// a large report (3000 request records per benchmark kept in it, the JSON
// Lines file, CSV, HTML and scorecard). Wherever the signal lands, the
// files on disk must be complete and valid (writes are atomic), and the
// exit code must agree with the report: 130 and interrupted, or 0 and
// not.
func TestSignalWhileWriting(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and signals three 6,000-request runs (make check)")
	}
	srv := startMockServer(t, func(c *mock.Config) { c.TTFT, c.ITL = 0, 0 })
	lastFinished := func(l logLine) bool { return strings.HasPrefix(l.Msg, "benchmark finished") && l.Round == "2/2" }
	writing := func(l logLine) bool { return strings.HasPrefix(l.Msg, "run metadata missing:") }
	cases := []struct {
		name string
		sig  syscall.Signal
		when func(logLine) bool
	}{
		{"after the last benchmark/SIGINT", syscall.SIGINT, lastFinished},
		{"writing/SIGINT", syscall.SIGINT, writing},
		{"writing/SIGTERM", syscall.SIGTERM, writing},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := startGoodput(t, "benchmark", "--target", srv.url(), "--data", "prompt_tokens=8,output_tokens=4",
				"--output-dir", dir, "--run-id", "r", "--log-format", "json", "--server-metrics", "off",
				"--outputs", "json,csv,jsonl,html,scorecard", "--sample-requests", "3000",
				"--rate-type", "concurrent", "--rate", "8,16", "--max-requests", "3000")
			p.waitFor(t, "the moment to signal", tc.when)
			if err := p.cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			signalled := time.Now()
			code := p.wait(t, 5*time.Second)
			run := filepath.Join(dir, "r")
			out := checkRunOutputs(t, run)
			t.Logf("exited %d in %v after the signal; report interrupted=%v", code, time.Since(signalled).Round(time.Millisecond), out.rep.Run.Interrupted)
			expectCompleteRunDir(t, run, true)
			switch {
			case code == cli.ExitInterrupt && out.rep.Run.Interrupted:
			case code == cli.ExitOK && !out.rep.Run.Interrupted:
			default:
				t.Fatalf("exit %d but the report says interrupted=%v:\n%s", code, out.rep.Run.Interrupted, p.errText())
			}
			if len(out.rep.Benchmarks) != 2 || len(out.records) != 6000 {
				t.Fatalf("%d benchmarks, %d records: want the whole run (2, 6000)", len(out.rep.Benchmarks), len(out.records))
			}
			for i, b := range out.rep.Benchmarks {
				if b.Extras.StopReason != "max_requests" || len(b.Requests.Successful) != 3000 {
					t.Fatalf("benchmark %d: stop %q, %d successful requests in the report, want max_requests and all 3000",
						i, b.Extras.StopReason, len(b.Requests.Successful))
				}
			}
		})
	}
}
