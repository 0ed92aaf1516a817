package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/goodput-dev/goodput/compare"
	"github.com/goodput-dev/goodput/record"
)

// figure is one measured value with its target.
type figure struct {
	section, name string
	value         float64
	unit          string
	target        string // e.g. "≤ 3" (empty: informational)
	met           *bool  // nil when there is no target
}

type suite struct {
	bin, pyBin, work string
	quick            bool
	httpClients      []string // values of goodput's --http-client; "" passes none
	streams          []int    // stream counts of scaling and scale (nil: the defaults)
	figs             []figure
	gatePairs        int               // pairs per load of the gate section
	gateSecs         int               // seconds per run of the gate section
	cost             []compare.CostRow // the gate section's rows (-json)
	seq              atomic.Int64      // names of mocks' URL files and runs (the gate's pairs run at once)
}

func (s *suite) add(section, name string, v float64, unit, target string, met *bool) {
	s.figs = append(s.figs, figure{section, name, v, unit, target, met})
	mark := ""
	if met != nil {
		mark = "  ✗ misses target"
		if *met {
			mark = "  ✓"
		}
	}
	t := ""
	if target != "" {
		t = "  (target " + target + ")"
	}
	fmt.Printf("   %-52s %12s %-10s%s%s\n", name, fmtNum(v), unit, t, mark)
}

func le(v, limit float64) *bool { b := v <= limit; return &b }
func ge(v, limit float64) *bool { b := v >= limit; return &b }

func fmtNum(v float64) string {
	switch {
	case math.IsNaN(v):
		return "n/a"
	case math.Abs(v) >= 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func (s *suite) markdown() string {
	var b strings.Builder
	b.WriteString("| section | figure | value | unit | target | met |\n|---|---|---|---|---|---|\n")
	for _, f := range s.figs {
		met := ""
		if f.met != nil {
			met = "no"
			if *f.met {
				met = "yes"
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", f.section, f.name, fmtNum(f.value), f.unit, f.target, met)
	}
	return b.String()
}

// mockProc is a goodput mock running in its own process.
type mockProc struct {
	cmd  *exec.Cmd
	url  string // comma-separated with --listen
	t0   time.Time
	poll func() (float64, []cpuSample)
}

func (s *suite) startMock(args ...string) (*mockProc, error) {
	urlFile := filepath.Join(s.work, fmt.Sprintf("mock-%d.url", s.seq.Add(1)))
	cmd := exec.Command(s.bin, append([]string{"mock", "--port", "0", "--url-file", urlFile}, args...)...)
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	poll := pollProc(cmd.Process.Pid)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(urlFile); err == nil && len(b) > 0 {
			return &mockProc{cmd: cmd, url: strings.TrimSpace(string(b)), t0: t0, poll: poll}, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	poll()
	return nil, errors.New("mock did not start")
}

// stop ends the mock and returns what it cost over its whole life.
func (m *mockProc) stop() usage {
	_ = m.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = m.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = m.cmd.Process.Kill()
		<-done
	}
	u := usage{wall: time.Since(m.t0).Seconds(), cpu: cpuOf(m.cmd.ProcessState)}
	u.maxRSSMB, u.samples = m.poll()
	return u
}

// pollProc polls a child every 100 ms for its peak RSS (its own VmHWM:
// the rusage's maxrss of a waited child is the largest of any child the
// suite waited for, python's included) and its CPU time so far; the
// returned function stops polling and gives the peak in MB and the CPU
// samples.
func pollProc(pid int) func() (float64, []cpuSample) {
	type result struct {
		peak    float64
		samples []cpuSample
	}
	res := make(chan result, 1)
	stop := make(chan struct{})
	go func() {
		var r result
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			if mb, ok := procStatusMB(pid, "VmHWM:"); ok {
				r.peak = max(r.peak, mb)
			}
			if cpu, ok := procCPU(pid); ok {
				r.samples = append(r.samples, cpuSample{time.Now().UnixNano(), cpu})
			}
			select {
			case <-stop:
				res <- r
				return
			case <-t.C:
			}
		}
	}()
	return func() (float64, []cpuSample) {
		close(stop)
		r := <-res
		return r.peak, r.samples
	}
}

// cpuSample is a process's CPU time (s) at a wall-clock instant (ns).
type cpuSample struct {
	at  int64
	cpu float64
}

// procCPU is a process's user + system CPU time so far from
// /proc/PID/stat, in seconds (clock ticks of 10 ms).
func procCPU(pid int) (float64, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, false
	}
	// After the command name: state is field 3, utime 14, stime 15.
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	ut, err1 := strconv.ParseFloat(f[11], 64)
	st, err2 := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100, err1 == nil && err2 == nil
}

// cpuAt is the CPU time at instant ns, interpolated between samples (NaN
// outside them).
func cpuAt(samples []cpuSample, ns int64) float64 {
	for i := 1; i < len(samples); i++ {
		a, b := samples[i-1], samples[i]
		if a.at <= ns && ns <= b.at {
			if b.at == a.at {
				return a.cpu
			}
			return a.cpu + (b.cpu-a.cpu)*float64(ns-a.at)/float64(b.at-a.at)
		}
	}
	return math.NaN()
}

// cpuOf is a waited child's user + system CPU time in seconds.
func cpuOf(ps *os.ProcessState) float64 {
	if ps == nil {
		return 0
	}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok && ru != nil {
		return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
	}
	return 0
}

// usage is what a finished child process cost.
type usage struct {
	cpu, wall float64 // seconds
	maxRSSMB  float64
	samples   []cpuSample // CPU time through the run
}

// runGoodput runs a goodput benchmark and returns its cost and its records
// file.
func (s *suite) runGoodput(ctx context.Context, args ...string) (usage, string, error) {
	return s.runGoodputPID(ctx, nil, nil, args...)
}

// runGoodputPID is runGoodput that sends the child's pid on pid once
// started and adds env (NAME=value) to the child's environment.
func (s *suite) runGoodputPID(ctx context.Context, pid chan<- int, env []string, args ...string) (usage, string, error) {
	id := fmt.Sprintf("run%d", s.seq.Add(1))
	full := append([]string{"benchmark", "--output-dir", s.work, "--run-id", id, "--outputs", "jsonl", "--disable-progress",
		"--log-format", "json", "--progress-interval", "1h"}, args...)
	cmd := exec.CommandContext(ctx, s.bin, full...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	t0 := time.Now()
	err := cmd.Start()
	if pid != nil {
		if err != nil {
			pid <- -1
		} else {
			pid <- cmd.Process.Pid
		}
	}
	if err != nil {
		return usage{}, "", err
	}
	poll := pollProc(cmd.Process.Pid)
	err = cmd.Wait()
	u := usage{wall: time.Since(t0).Seconds(), cpu: cpuOf(cmd.ProcessState)}
	u.maxRSSMB, u.samples = poll()
	if err != nil {
		return u, "", fmt.Errorf("goodput %s: %v: %s", strings.Join(args, " "), err, lastLine(stderr.String()))
	}
	return u, filepath.Join(s.work, id, "requests.jsonl"), nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// stats summarises a records file.
type stats struct {
	requests, ok, errored int64
	tokens                int64
	firstStart, lastEnd   int64
	gapErrUS              []float64 // |measured gap − emitted gap|
	firstDelayUS          []float64 // first token arrival − emission
	latenessUS            []float64 // dispatch − intended
}

func readStats(path string) (*stats, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec := record.NewDecoder(bufio.NewReaderSize(f, 1<<20), path)
	st := &stats{}
	r := record.New()
	for {
		if err := dec.Decode(r); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		st.requests++
		if st.firstStart == 0 || r.Dispatched < st.firstStart {
			st.firstStart = r.Dispatched
		}
		st.lastEnd = max(st.lastEnd, r.End)
		if r.Intended != 0 && r.Dispatched != 0 {
			st.latenessUS = append(st.latenessUS, float64(r.Dispatched-r.Intended)/1e3)
		}
		switch r.Status {
		case record.StatusErrored:
			st.errored++
			continue
		case record.StatusSuccessful:
			st.ok++
		default:
			continue
		}
		st.tokens += int64(r.OutputTokens)
		if len(r.EmitTimes) == len(r.ChunkTimes) && len(r.EmitTimes) > 0 {
			st.firstDelayUS = append(st.firstDelayUS, float64(r.ChunkTimes[0]-r.EmitTimes[0])/1e3)
			for i := 1; i < len(r.ChunkTimes); i++ {
				d := (r.ChunkTimes[i] - r.ChunkTimes[i-1]) - (r.EmitTimes[i] - r.EmitTimes[i-1])
				st.gapErrUS = append(st.gapErrUS, math.Abs(float64(d))/1e3)
			}
		}
	}
	for _, v := range [][]float64{st.gapErrUS, st.firstDelayUS, st.latenessUS} {
		slices.Sort(v)
	}
	return st, nil
}

// q is the p-quantile of sorted v (nearest rank), NaN when empty.
func q(v []float64, p float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	i := int(math.Ceil(p*float64(len(v)))) - 1
	return v[max(0, min(i, len(v)-1))]
}

// pythonRun runs the aiohttp yardstick client.
func (s *suite) pythonRun(url, model string, conc, n, maxTokens int) (map[string]float64, error) {
	cmd := exec.Command(s.pyBin, "bench/aiohttp_client.py", url, model, strconv.Itoa(conc), strconv.Itoa(n), strconv.Itoa(maxTokens))
	var out, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("python client: %v: %s", err, lastLine(stderr.String()))
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(lastLine(out.String())), &m); err != nil {
		return nil, fmt.Errorf("python client output: %v", err)
	}
	res := map[string]float64{}
	for k, v := range m {
		if f, ok := v.(float64); ok {
			res[k] = f
		}
	}
	return res, nil
}

// readChunkTotal counts the token-bearing chunks of every record.
func readChunkTotal(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	dec := record.NewDecoder(bufio.NewReaderSize(f, 1<<20), path)
	r := record.New()
	var n int64
	for {
		if err := dec.Decode(r); err == io.EOF {
			return n, nil
		} else if err != nil {
			return 0, err
		}
		n += int64(len(r.ChunkTimes))
	}
}
