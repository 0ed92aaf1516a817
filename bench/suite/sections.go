package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
)

// zeroDelay is a mock that answers as fast as it can.
var zeroDelay = []string{"--ttft", "0", "--ttft-stdev", "0", "--itl", "0", "--itl-stdev", "0", "--output-tokens-stdev", "0"}

// spaced10ms is a mock whose tokens come 10 ms apart after a 50 ms TTFT.
var spaced10ms = []string{"--ttft", "50ms", "--ttft-stdev", "0", "--itl", "10ms", "--itl-stdev", "0", "--output-tokens-stdev", "0"}

// runMocked starts a mock with mockArgs, runs a goodput benchmark against
// it with args, and stops the mock.
func (s *suite) runMocked(mockArgs []string, args ...string) (usage, string, error) {
	return s.runMockedEnv(nil, mockArgs, args...)
}

// runMockedEnv is runMocked with env (NAME=value) added to goodput's
// environment.
func (s *suite) runMockedEnv(env, mockArgs []string, args ...string) (usage, string, error) {
	m, err := s.startMock(mockArgs...)
	if err != nil {
		return usage{}, "", err
	}
	defer m.stop()
	return s.runGoodputPID(context.Background(), nil, env, append([]string{"--target", m.url}, args...)...)
}

func (s *suite) pick(quick, full int) int {
	if s.quick {
		return quick
	}
	return full
}

// client: the client's CPU per token and per request, and the throughput
// client and mock sustain together, against the zero-delay mock; then with
// tokens 10 ms apart.
func (s *suite) client() error {
	n := s.pick(20000, 100000)
	u, path, err := s.runMocked(zeroDelay, "--rate-type", "concurrent", "--rate", "64",
		"--data", "prompt_tokens=32,output_tokens=128", "--max-requests", strconv.Itoa(n))
	if err != nil {
		return err
	}
	st, err := readStats(path)
	if err != nil {
		return err
	}
	if st.ok < int64(n)*99/100 {
		return fmt.Errorf("only %d of %d requests succeeded", st.ok, n)
	}
	span := float64(st.lastEnd-st.firstStart) / 1e9
	perTok := u.cpu * 1e6 / float64(st.tokens)
	s.add("client", "zero-delay mock: client CPU per streamed token", perTok, "µs", "≤ 3", le(perTok, 3))
	s.add("client", "zero-delay mock: client CPU per request (128 tokens)", u.cpu*1e3/float64(st.ok), "ms", "≤ 0.5", le(u.cpu*1e3/float64(st.ok), 0.5))
	s.add("client", "client + mock sustained tokens/s", float64(st.tokens)/span, "tok/s", "≥ 200,000", ge(float64(st.tokens)/span, 200000))
	s.add("client", "client + mock sustained requests/s", float64(st.ok)/span, "req/s", "≥ 1,500", ge(float64(st.ok)/span, 1500))
	s.add("client", "client peak RSS", u.maxRSSMB, "MB", "", nil)

	// Requests with one output token: the per-request overhead alone.
	n1 := s.pick(10000, 40000)
	u, path, err = s.runMocked(zeroDelay, "--rate-type", "concurrent", "--rate", "64",
		"--data", "prompt_tokens=32,output_tokens=1", "--max-requests", strconv.Itoa(n1))
	if err != nil {
		return err
	}
	if st, err = readStats(path); err != nil {
		return err
	}
	span = float64(st.lastEnd-st.firstStart) / 1e9
	s.add("client", "1-token requests: client CPU per request", u.cpu*1e3/float64(st.ok), "ms", "", nil)
	s.add("client", "1-token requests: client + mock requests/s", float64(st.ok)/span, "req/s", "", nil)

	// Tokens 10 ms apart, 256 streams: the realistic per-token cost, next
	// to the same with GOMAXPROCS fixed (the governor off) and to the
	// floor of a minimal net/http client under the same load. Alternating
	// runs (medians) keep the machine's drift out of the comparison.
	secs := s.pick(8, 20)
	fixed := []string{fmt.Sprintf("GOMAXPROCS=%d", runtime.GOMAXPROCS(0))}
	var gp, off, floor []float64
	for range s.pick(1, 3) {
		v, err := s.spacedTokens(secs, nil)
		if err != nil {
			return err
		}
		gp = append(gp, v)
		if v, err = s.spacedTokens(secs, fixed); err != nil {
			return err
		}
		off = append(off, v)
		f, err := s.spacedFloor(secs)
		if err != nil {
			return err
		}
		floor = append(floor, f)
	}
	spaced := median(gp)
	s.add("client", "tokens 10 ms apart, 256 streams: client CPU per token", spaced, "µs", "≤ 15", le(spaced, 15))
	s.add("client", fmt.Sprintf("  same load, GOMAXPROCS fixed at %d (governor off)", runtime.GOMAXPROCS(0)), median(off), "µs", "", nil)
	if !math.IsNaN(floor[0]) {
		s.add("client", "  same load, minimal net/http client (bench/minclient)", median(floor), "µs", "", nil)
		s.add("client", "  goodput ÷ minimal client", spaced/median(floor), "×", "", nil)
	}
	return nil
}

// spacedFloor runs bench/minclient under spacedTokens' load and returns
// its CPU per token in µs (NaN when it cannot be built).
func (s *suite) spacedFloor(secs int) (float64, error) {
	bin, err := s.minClient()
	if err != nil {
		fmt.Printf("   (minimal client not built: %v)\n", err)
		return math.NaN(), nil
	}
	m, err := s.startMock(spaced10ms...)
	if err != nil {
		return 0, err
	}
	defer m.stop()
	return runMinclient(bin, m.url, 256, secs)
}

// minClient builds bench/minclient once into the work directory.
func (s *suite) minClient() (string, error) {
	bin := filepath.Join(s.work, "minclient")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if out, err := exec.Command("go", "build", "-o", bin, "./bench/minclient").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./bench/minclient: %v: %s", err, lastLine(string(out)))
	}
	return bin, nil
}

// spacedTokens runs 256 streams of 128 tokens 10 ms apart for secs seconds
// (env added to goodput's environment, extra flags appended) and returns
// the client's CPU per received token in µs.
func (s *suite) spacedTokens(secs int, env []string, extra ...string) (float64, error) {
	args := append([]string{"--rate-type", "concurrent", "--rate", "256",
		"--data", "prompt_tokens=32,output_tokens=128", "--max-seconds", strconv.Itoa(secs)}, extra...)
	u, path, err := s.runMockedEnv(env, spaced10ms, args...)
	if err != nil {
		return 0, err
	}
	toks, err := allChunks(path)
	if err != nil {
		return 0, err
	}
	return u.cpu * 1e6 / toks, nil
}

// python: the same zero-delay load from a Python asyncio/aiohttp client.
func (s *suite) pythonCmp() error {
	if _, err := os.Stat(s.pyBin); err != nil {
		s.add("python", "python aiohttp client", math.NaN(), "", "skipped: "+s.pyBin+" not found", nil)
		return nil
	}
	n := s.pick(3000, 10000)
	m, err := s.startMock(zeroDelay...)
	if err != nil {
		return err
	}
	py, err := s.pythonRun(m.url, "goodput-mock", 64, n, 128)
	if err != nil {
		m.stop()
		return err
	}
	u, path, err := s.runGoodput(context.Background(), "--target", m.url, "--rate-type", "concurrent", "--rate", "64",
		"--data", "prompt_tokens=32,output_tokens=128", "--max-requests", strconv.Itoa(n))
	m.stop()
	if err != nil {
		return err
	}
	st, err := readStats(path)
	if err != nil {
		return err
	}
	pyTok := py["cpu_seconds"] * 1e6 / py["tokens"]
	goTok := u.cpu * 1e6 / float64(st.tokens)
	s.add("python", "python aiohttp: client CPU per token", pyTok, "µs", "", nil)
	s.add("python", "python aiohttp: tokens/s", py["tokens"]/py["wall_seconds"], "tok/s", "", nil)
	s.add("python", "goodput: client CPU per token (same load)", goTok, "µs", "", nil)
	s.add("python", "CPU per token, python ÷ goodput", pyTok/goTok, "×", "≥ 2.5", ge(pyTok/goTok, 2.5))
	return nil
}

// fidelity: measured gaps and first-token times minus the mock's true
// emission times, ITL 10 ms, at 1, 64, 256 and 1,024 streams.
func (s *suite) fidelity() error {
	secs := s.pick(6, 15)
	// The last case measures arrivals at read time (--rx-timestamps user,
	// as other load generators do) for comparison with the kernel's
	// receive timestamps.
	for i, c := range []int{1, 64, 256, 1024, 256} {
		user := i == 4
		args := []string{"--rate-type", "concurrent", "--rate", strconv.Itoa(c),
			"--data", "prompt_tokens=16,output_tokens=128", "--max-seconds", strconv.Itoa(secs)}
		if c >= 256 {
			args = append(args, "--rampup", "1")
		}
		if user {
			args = append(args, "--rx-timestamps", "user")
		}
		_, path, err := s.runMocked(spaced10ms, args...)
		if err != nil {
			return err
		}
		st, err := readStats(path)
		if err != nil {
			return err
		}
		label := fmt.Sprintf("%4d streams: ITL error", c)
		first := fmt.Sprintf("%4d streams: first-token delivery", c)
		if user {
			label = fmt.Sprintf("%4d streams, read times: ITL error", c)
			first = fmt.Sprintf("%4d streams, read times: first-token delivery", c)
		}
		if c == 256 && !user {
			s.add("fidelity", label+" P50", q(st.gapErrUS, .5), "µs", "≤ 20", le(q(st.gapErrUS, .5), 20))
			s.add("fidelity", label+" P99", q(st.gapErrUS, .99), "µs", "≤ 2,000", le(q(st.gapErrUS, .99), 2000))
		} else {
			s.add("fidelity", label+" P50", q(st.gapErrUS, .5), "µs", "", nil)
			s.add("fidelity", label+" P99", q(st.gapErrUS, .99), "µs", "", nil)
		}
		s.add("fidelity", label+" P99.9", q(st.gapErrUS, .999), "µs", "", nil)
		s.add("fidelity", first+" P50", q(st.firstDelayUS, .5), "µs", "", nil)
		s.add("fidelity", first+" P99", q(st.firstDelayUS, .99), "µs", "", nil)
		s.add("fidelity", first+" P99.9", q(st.firstDelayUS, .999), "µs", "", nil)
	}
	return nil
}

// lateness: how late the open-loop dispatcher sends poisson-scheduled
// requests at 100, 1,000 and 5,000 req/s.
func (s *suite) lateness() error {
	secs := s.pick(4, 10)
	for _, rate := range []int{100, 1000, 5000} {
		_, path, err := s.runMocked(append(zeroDelay, "--output-tokens", "8"), "--rate-type", "poisson", "--rate", strconv.Itoa(rate),
			"--data", "prompt_tokens=16,output_tokens=8", "--max-seconds", strconv.Itoa(secs))
		if err != nil {
			return err
		}
		st, err := readStats(path)
		if err != nil {
			return err
		}
		s.add("lateness", fmt.Sprintf("poisson %d req/s: dispatch lateness P50", rate), q(st.latenessUS, .5), "µs", "", nil)
		s.add("lateness", fmt.Sprintf("poisson %d req/s: dispatch lateness P99", rate), q(st.latenessUS, .99), "µs", "", nil)
	}
	return nil
}

// memory: RSS sampled through a long run (1,000,000 requests; 100,000 with
// -quick) must stay flat: records stream to disk, the report keeps compact
// summaries.
func (s *suite) memory() error {
	n := s.pick(100000, 1000000)
	m, err := s.startMock(append(zeroDelay, "--output-tokens", "16")...)
	if err != nil {
		return err
	}
	defer m.stop()
	samples, u, err := s.sampleRSS("--target", m.url, "--rate-type", "concurrent", "--rate", "64",
		"--data", "prompt_tokens=16,output_tokens=16", "--max-requests", strconv.Itoa(n))
	if err != nil {
		return err
	}
	if len(samples) < 4 {
		return fmt.Errorf("run too short to sample RSS (%d samples)", len(samples))
	}
	at := func(p float64) float64 { return samples[int(p*float64(len(samples)-1))] }
	s.add("memory", fmt.Sprintf("%d requests: RSS at 10%% of the run", n), at(.1), "MB", "", nil)
	s.add("memory", fmt.Sprintf("%d requests: RSS at 50%% of the run", n), at(.5), "MB", "", nil)
	s.add("memory", fmt.Sprintf("%d requests: RSS at 90%% of the run", n), at(.9), "MB", "", nil)
	s.add("memory", fmt.Sprintf("%d requests: peak RSS", n), u.maxRSSMB, "MB", "< 150", le(u.maxRSSMB, 150))
	// The report keeps exact per-request statistics up to
	// accum.DefaultExactCap requests per benchmark (fixed-size histograms
	// beyond), so RSS rises over the first 200,000 requests and must then
	// stay flat: the second half of the run is the test.
	growth := at(.9) - at(.5)
	s.add("memory", "RSS growth from 50% to 90% of the run", growth, "MB", "flat (≤ 20)", le(growth, 20))
	return nil
}

// sampleRSS runs a benchmark and samples its RSS once a second.
func (s *suite) sampleRSS(args ...string) ([]float64, usage, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		u   usage
		err error
	}
	done := make(chan result, 1)
	pidCh := make(chan int, 1)
	go func() {
		u, _, err := s.runGoodputPID(ctx, pidCh, nil, args...)
		done <- result{u, err}
	}()
	pid := <-pidCh
	var samples []float64
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case r := <-done:
			return samples, r.u, r.err
		case <-t.C:
			if mb, ok := rssMB(pid); ok {
				samples = append(samples, mb)
			}
		}
	}
}

func rssMB(pid int) (float64, bool) { return procStatusMB(pid, "VmRSS:") }

// procStatusMB reads one of /proc/PID/status's memory lines (VmRSS:,
// VmHWM: the peak RSS so far) in MB.
func procStatusMB(pid int, key string) (float64, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, key) {
			f := strings.Fields(line)
			if len(f) >= 2 {
				kb, err := strconv.ParseFloat(f[1], 64)
				return kb / 1024, err == nil
			}
		}
	}
	return 0, false
}

// allChunks counts token-bearing chunks of every record (completed or
// not): what the client actually received.
func allChunks(path string) (float64, error) {
	st, err := readChunkTotal(path)
	return float64(st), err
}

// progress: what the live display costs. The same 256-stream load (tokens
// 10 ms apart) with the display off and with a progress log line every
// second (the display a Kubernetes Job's log gets; the terminal bars read
// the same live figures, drawn by mpb at its own refresh rate), in three
// alternating pairs; the medians are compared, as one run differs from the
// next by several per cent on a shared machine.
func (s *suite) progress() error {
	secs := s.pick(5, 10)
	var perTok [2][]float64
	for rep := 0; rep < 3; rep++ {
		for i, extra := range [][]string{nil, {"--disable-progress=false", "--progress-interval", "1s"}} {
			v, err := s.spacedTokens(secs, nil, extra...)
			if err != nil {
				return err
			}
			perTok[i] = append(perTok[i], v)
		}
	}
	off, on := median(perTok[0]), median(perTok[1])
	s.add("progress", "display off: client CPU per token (median of 3)", off, "µs", "", nil)
	s.add("progress", "progress line every 1 s: client CPU per token (median of 3)", on, "µs", "", nil)
	s.add("progress", "cost of the progress display", 100*(on/off-1), "%", "≈ 0 (within run-to-run noise)", nil)
	return nil
}

func median(v []float64) float64 {
	c := append([]float64(nil), v...)
	sort.Float64s(c)
	return c[len(c)/2]
}
