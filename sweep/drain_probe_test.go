package sweep

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/accum"
)

// TestProbeLimit: the idle limit from the baseline's own spread, with its
// floors.
func TestProbeLimit(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		ttfts []time.Duration
		want  time.Duration
	}{
		{[]time.Duration{40 * ms, 42 * ms, 45 * ms, 46 * ms, 50 * ms}, 80 * ms}, // 50 + 3·10
		{[]time.Duration{100 * ms, 100 * ms, 100 * ms}, 125 * ms},               // 1.25 × 100
		{[]time.Duration{4 * ms, 4 * ms, 4 * ms}, 6 * ms},                       // 4 + 2
	} {
		if got := ProbeLimit(c.ttfts); got != c.want {
			t.Errorf("ProbeLimit(%v) = %v, want %v", c.ttfts, got, c.want)
		}
	}
}

// TestDrainProbeMock: against a mock with Ollama's personality (no
// /metrics) that works on after its client left (NoAbort), with 4 slots
// of 100 ms steps, the runner measures an idle baseline with one-token
// probes before the first round; after a round that cut 4 requests with
// seconds of work left, a probe queues behind them, the drain says so and
// waits until a probe is as fast as on the idle server; with a bound too
// short it marks the round busy.
func TestDrainProbeMock(t *testing.T) {
	if testing.Short() {
		t.Skip("waits seconds for the requests a round cut")
	}
	run := func(maxDrain time.Duration) ([]Round, []string) {
		cfg := mock.DefaultConfig()
		cfg.Personality = mock.PersonalityOllama
		cfg.NoAbort = true
		cfg.OutputTokens, cfg.OutputTokensStdev = 80, 0
		cfg.PrefixCache = false
		cfg.Capacity = &mock.CapacityModel{MaxNumSeqs: 4, MaxNumBatchedTokens: 256, StepBase: 100 * time.Millisecond,
			GPUs: 1, GPU: mock.DefaultGPU()}
		srv, err := mock.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.Start("127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		client, err := loadgen.NewClient(loadgen.ClientConfig{Target: srv.URL(), Model: cfg.Model}, loadgen.NewClock())
		if err != nil {
			t.Fatal(err)
		}
		defer client.CloseIdle()
		var mu sync.Mutex
		var lines []string
		// 80 steps of 100 ms: 8 s per request; a 300 ms round cuts its 4
		// requests, which hold the 4 slots for 7.7 s more (the summary of
		// the round before the drain took up to 4 s under -race).
		r := &Runner{
			Engine: loadgen.NewEngine(client), Source: newFixedPrompt(16, 80),
			Constraints: loadgen.Constraints{MaxDuration: 300 * time.Millisecond},
			Report:      accum.Config{SampleSize: -1},
			Info:        accum.BenchmarkInfo{RunID: t.Name()},
			Drain: &Drain{Probe: RequestProbe{Client: client, Request: loadgen.NewRequest("", "Hello there.", 1)},
				Max: maxDrain, Poll: 20 * time.Millisecond,
				Progress: func(line string) { mu.Lock(); lines = append(lines, line); mu.Unlock() }},
		}
		rounds, err := r.Run(context.Background(), List{{Kind: loadgen.Concurrent, Streams: 4}, {Kind: loadgen.Concurrent, Streams: 4}})
		if err != nil {
			t.Fatal(err)
		}
		// Before round 0: a warm-up and 5 probes on the idle server, whose
		// TTFT is a step or two of 100 ms.
		w := rounds[0].Benchmark.Extras.Drain
		if w == nil || w.Method != report.DrainProbe || w.Probes != 6 || w.ProbeLimitMs == nil || w.Busy ||
			*w.ProbeLimitMs < 100 || *w.ProbeLimitMs > 1000 {
			t.Fatalf("drain before round 0: %+v; want the idle baseline of 6 probes", w)
		}
		return rounds, lines
	}

	rounds, lines := run(10 * time.Second)
	w := rounds[1].Benchmark.Extras.Drain
	// The first probe queued behind the cut requests; a later one came
	// back under the limit.
	if w.Method != report.DrainProbe || w.Busy || rounds[1].Excluded || w.Probes < 2 || w.ProbeTTFTMs == nil ||
		*w.ProbeTTFTMs > *w.ProbeLimitMs || w.WaitedS < 1 {
		t.Errorf("drain after a cut round: %+v; want probes until one is under the idle limit", w)
	}
	if !slices.ContainsFunc(lines, func(l string) bool {
		return strings.HasPrefix(l, "waiting for the server to go idle: a one-token probe took")
	}) {
		t.Errorf("progress lines %q; want one saying the drain waits", lines)
	}
	t.Logf("drain after a cut round: waited %.3f s, %d probes, last %.1f ms (limit %.1f ms); %q",
		float64(w.WaitedS), w.Probes, float64(*w.ProbeTTFTMs), float64(*w.ProbeLimitMs), lines)

	// With 200 ms the bound runs out while the cut requests hold the slots.
	rounds, _ = run(200 * time.Millisecond)
	w = rounds[1].Benchmark.Extras.Drain
	if w.Method != report.DrainProbe || !w.Busy || !rounds[1].Excluded || w.ProbeTTFTMs == nil || *w.ProbeTTFTMs <= *w.ProbeLimitMs {
		t.Errorf("bounded drain after a cut round: %+v; want busy, the probe above the idle limit", w)
	}
	if !strings.Contains(w.Warning(), "one-token probe") {
		t.Errorf("warning %q; want the probe's reading", w.Warning())
	}
	t.Logf("busy start: %s", w.Warning())
}

// stallProbe answers the baseline's probes in 10 ms, then fails every
// probe after waiting wait, as a client's stall timeout does on a server
// that sends nothing (Ollama wedged by a 512-stream round).
type stallProbe struct {
	c     *fakeClock
	n     int
	wait  time.Duration
	calls int
}

func (p *stallProbe) ProbeTTFT(context.Context) (time.Duration, error) {
	p.calls++
	if p.calls <= p.n {
		return 10 * time.Millisecond, nil
	}
	<-p.c.After(p.wait)
	return 0, errors.New("idle probe: the request failed (stall): no chunk for 2m0s")
}

// A probe that fails after waiting past the idle limit is a probe that got
// no first token in that time: the round is busy, and its warning gives
// the probe's wait, not the latency estimate's words.
func TestDrainProbeStalls(t *testing.T) {
	c := newDrainClock()
	p := &stallProbe{c: c, n: 1 + DefaultBaselineProbes, wait: 2 * time.Minute}
	d := &Drain{Probe: p, Max: 2 * time.Minute, Poll: 100 * time.Millisecond, Now: c.Now, After: c.After}
	if w, err := d.Wait(context.Background(), nil, c.Now()); err != nil || w.Method != report.DrainProbe || w.Busy {
		t.Fatalf("baseline: %+v, %v", w, err)
	}
	prev := &Round{Benchmark: &report.Benchmark{Extras: &report.Extras{}}}
	w, err := d.Wait(context.Background(), prev, c.Now())
	if err != nil || w.Method != report.DrainProbe || !w.Busy || w.Probes != 1 || w.ProbeTTFTMs == nil || *w.ProbeTTFTMs != 120000 ||
		!strings.Contains(w.Note, "no chunk for 2m0s") {
		t.Fatalf("drain after a wedging round: %+v, %v; want busy, the probe's 120 s wait and the failure", w, err)
	}
	if want := "a one-token probe still waited 120000 ms for its first token, above the 12 ms limit"; !strings.Contains(w.Warning(), want) {
		t.Errorf("warning %q lacks %q", w.Warning(), want)
	}
}
