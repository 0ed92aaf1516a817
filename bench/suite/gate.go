package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/goodput-dev/goodput/compare"
	"github.com/goodput-dev/goodput/run"
)

// gateLoad is one load of the client-cost gate.
type gateLoad struct {
	name    string
	mock    []string
	streams int
}

// gateLoads are the loads make bench-gate judges: the zero-delay mock,
// where goodput's own per-token code dominates, and tokens 10 ms apart
// over 256 streams, where the kernel's per-segment work does.
var gateLoads = []gateLoad{
	{"zero-delay, 16 streams", zeroDelay, 16},
	{"10 ms apart, 256 streams", spaced10ms, 256},
}

// gate measures goodput's CPU per token side by side with bench/minclient
// under each gate load: s.gatePairs pairs of s.gateSecs-second runs, the
// two clients of a pair running at the same time, each against a mock of
// its own, so that the machine's drift and the other work on it hit both
// alike (alternating runs 3 s apart gave ratios 0.7-1.7 for one build on
// a busy machine). The price: on two cores a goodput that costs more also
// slows the minimal client beside it, so at 10 ms × 256 streams part of a
// regression leaks into the denominator (a 2.5 µs spin per chunk raised
// goodput's CPU per token 25 % and the ratio only 10-15 %); the zero-delay
// row, where goodput's own code dominates, is the sharp one. The rows go into the client-cost report (-json), which
// `goodput compare` judges against a baseline.
func (s *suite) gate() error {
	bin, err := s.minClient()
	if err != nil {
		return err
	}
	for _, l := range gateLoads {
		row := compare.CostRow{Name: l.name}
		for range s.gatePairs {
			var g, m float64
			var errG, errM error
			var wg sync.WaitGroup
			wg.Add(2)
			go func() { defer wg.Done(); g, errG = s.gateGoodput(l) }()
			go func() { defer wg.Done(); m, errM = s.gateMinclient(bin, l) }()
			wg.Wait()
			if err := errors.Join(errG, errM); err != nil {
				return err
			}
			row.GoodputUS = append(row.GoodputUS, g)
			row.MinUS = append(row.MinUS, m)
		}
		s.cost = append(s.cost, row)
		r := row.Ratios()
		s.add("gate", l.name+": goodput CPU per token (median)", median(row.GoodputUS), "µs", "", nil)
		s.add("gate", l.name+": minimal client CPU per token (median)", median(row.MinUS), "µs", "", nil)
		s.add("gate", fmt.Sprintf("%s: goodput ÷ minimal client (median of %d pairs)", l.name, len(r)), median(r), "×", "", nil)
		fmt.Printf("     pairs: %s\n", fmtRatios(r))
	}
	return nil
}

func fmtRatios(r []float64) string {
	parts := make([]string, len(r))
	for i, v := range r {
		parts[i] = strconv.FormatFloat(v, 'f', 3, 64)
	}
	return strings.Join(parts, " ")
}

// gateGoodput runs goodput under load l for s.gateSecs and returns its CPU
// per received token (µs), over its whole life, writing the outputs a
// user's run writes by default: the end of a run (the report, the HTML
// timeline re-reading the records) is part of what a token costs.
func (s *suite) gateGoodput(l gateLoad) (float64, error) {
	u, path, err := s.runMocked(l.mock, "--rate-type", "concurrent", "--rate", strconv.Itoa(l.streams),
		"--data", "prompt_tokens=32,output_tokens=128", "--max-seconds", strconv.Itoa(s.gateSecs),
		"--outputs", run.DefaultOutputs)
	if err != nil {
		return 0, err
	}
	toks, err := allChunks(path)
	if err != nil {
		return 0, err
	}
	if toks == 0 {
		return 0, fmt.Errorf("goodput received no tokens under %s", l.name)
	}
	return u.cpu * 1e6 / toks, nil
}

// gateMinclient runs bench/minclient (binary bin) under load l for
// s.gateSecs and returns its CPU per token (µs).
func (s *suite) gateMinclient(bin string, l gateLoad) (float64, error) {
	m, err := s.startMock(l.mock...)
	if err != nil {
		return 0, err
	}
	defer m.stop()
	return runMinclient(bin, m.url, l.streams, s.gateSecs)
}

// runMinclient runs bench/minclient against url and returns its CPU per
// token in µs.
func runMinclient(bin, url string, streams, secs int) (float64, error) {
	out, err := exec.Command(bin, url, "goodput-mock", strconv.Itoa(streams), strconv.Itoa(secs), "128").Output()
	if err != nil {
		return 0, fmt.Errorf("minclient: %v", err)
	}
	var r struct {
		Tokens, Errors float64
		CPU            float64 `json:"cpu_seconds"`
	}
	if err := json.Unmarshal(out, &r); err != nil || r.Tokens == 0 || r.Errors > 0 {
		return 0, fmt.Errorf("minclient output %q: %v", strings.TrimSpace(string(out)), err)
	}
	return r.CPU * 1e6 / r.Tokens, nil
}

// machineKind names the machine a baseline belongs to: CPUs and
// architecture (bench/baseline/<kind>.json).
func machineKind() string { return fmt.Sprintf("%dcpu-%s", runtime.NumCPU(), runtime.GOARCH) }

// writeCost writes the client-cost report to path.
func (s *suite) writeCost(path string) error {
	c := compare.ClientCost{Layout: compare.ClientCostLayout, Machine: machineKind(),
		Created: time.Now().UTC().Format(time.RFC3339), Commit: gitCommit(), Rows: s.cost}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// gitCommit is the work tree's commit ("-dirty" when it has changes), or
// empty outside git.
func gitCommit() string {
	out, err := exec.Command("git", "describe", "--always", "--dirty").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
