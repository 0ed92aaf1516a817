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
	"github.com/goodput-dev/goodput/slo"
)

// fakeClock is a drain clock that advances only when the drain sleeps.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newDrainClock() *fakeClock { return &fakeClock{t: time.Unix(1_800_000_000, 0)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	c.t = c.t.Add(d)
	ch := make(chan time.Time, 1)
	ch <- c.t
	c.mu.Unlock()
	return ch
}

// busyFor is a server queue that reads 3 running, 5 waiting for its first
// k reads, then empty.
type busyFor struct {
	mu    sync.Mutex
	k     int
	reads int
	err   error
}

func (b *busyFor) Queue(context.Context) (float64, float64, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reads++
	if b.err != nil {
		return 0, 0, b.err
	}
	if b.reads <= b.k {
		return 3, 5, nil
	}
	return 0, 0, nil
}

func newDrain(g QueueGauges, gap, maxWait time.Duration) (*Drain, *fakeClock) {
	c := newDrainClock()
	return &Drain{Gauges: g, Gap: gap, Max: maxWait, Poll: 100 * time.Millisecond, Now: c.Now, After: c.After}, c
}

func TestDrainByGauges(t *testing.T) {
	ctx := context.Background()
	// Busy for 5 reads: idle at the 6th, 500 ms later.
	d, _ := newDrain(&busyFor{k: 5}, 0, time.Minute)
	w, err := d.Wait(ctx, nil, time.Time{})
	if err != nil || w.Method != report.DrainGauges || w.WaitedS != 0.5 || w.Busy || *w.Running != 0 || *w.Waiting != 0 {
		t.Errorf("drain %+v, %v; want 0.5 s by gauges, idle", w, err)
	}
	// The bound runs out first: busy, with what the server said last.
	d, _ = newDrain(&busyFor{k: 50}, 0, 300*time.Millisecond)
	w, _ = d.Wait(ctx, nil, time.Time{})
	if !w.Busy || w.WaitedS != 0.3 || *w.Running != 3 || *w.Waiting != 5 {
		t.Errorf("bounded drain %+v; want busy after 0.3 s with 3 running, 5 waiting", w)
	}
	if msg := w.Warning(); !strings.Contains(msg, "3 requests running and 5 waiting") {
		t.Errorf("warning %q", msg)
	}
	// An idle server still waits out the gap since the previous round.
	d, c := newDrain(&busyFor{}, 2*time.Second, time.Minute)
	prevEnd := c.Now().Add(-500 * time.Millisecond)
	w, _ = d.Wait(ctx, &Round{}, prevEnd)
	if w.Busy || w.WaitedS != 1.5 {
		t.Errorf("gap drain %+v; want 1.5 s (2 s gap, 0.5 s already passed)", w)
	}
	// A cancelled run ends the wait.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	d, _ = newDrain(&busyFor{k: 50}, 0, time.Minute)
	if _, err := d.Wait(cctx, nil, time.Time{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled drain: %v", err)
	}
}

func TestDrainByLatency(t *testing.T) {
	ctx := context.Background()
	prev := &Round{Benchmark: &report.Benchmark{Extras: &report.Extras{}}}
	prev.Benchmark.Extras.Metrics.RequestLatency = &report.StatusDistributionSummary{
		Successful: &report.DistributionSummary{Max: 2, Count: 10},
		Total:      &report.DistributionSummary{Max: 2.5, Count: 12},
	}
	// No gauges: the longest request (2.5 s) since the previous round's end.
	d, c := newDrain(nil, 0, time.Minute)
	w, err := d.Wait(ctx, prev, c.Now())
	if err != nil || w.Method != report.DrainLatency || w.WaitedS != 2.5 || w.Busy || w.Running != nil {
		t.Errorf("latency drain %+v, %v; want 2.5 s", w, err)
	}
	// Gauges that cannot be read: the same, with a note.
	d, c = newDrain(&busyFor{err: errors.New("HTTP 404")}, 0, time.Second)
	w, _ = d.Wait(ctx, prev, c.Now())
	if w.Method != report.DrainLatency || w.WaitedS != 1 || !w.Busy || !strings.Contains(w.Note, "HTTP 404") {
		t.Errorf("bounded latency drain %+v; want busy after 1 s with a note", w)
	}
	// The first round, without gauges: nothing to wait for.
	d, _ = newDrain(nil, time.Second, time.Minute)
	if w, _ = d.Wait(ctx, nil, time.Time{}); w.Method != report.DrainNone || w.WaitedS != 0 || w.Busy {
		t.Errorf("first round %+v", w)
	}
}

// TestRunnerDrains: the runner waits before each round against the mock on
// loopback, records the wait in the benchmark, and a round that starts on a
// busy server is marked, excluded from the knee, and named in its reason.
func TestRunnerDrains(t *testing.T) {
	cfg := mock.DefaultConfig()
	srv, err := mock.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	client, err := loadgen.NewClient(loadgen.ClientConfig{Target: srv.URL()}, loadgen.NewClock())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.CloseIdle)
	spec, err := slo.Parse("ttft_p99=10s")
	if err != nil {
		t.Fatal(err)
	}
	run := func(drain *Drain) []Round {
		r := &Runner{
			Engine: loadgen.NewEngine(client), Source: newFixedPrompt(16, 4),
			Constraints: loadgen.Constraints{MaxRequests: 4},
			Report:      accum.Config{SampleSize: -1, SLO: spec},
			Info:        accum.BenchmarkInfo{RunID: t.Name()},
			Drain:       drain,
		}
		rounds, err := r.Run(context.Background(), List{
			{Kind: loadgen.Concurrent, Streams: 1}, {Kind: loadgen.Concurrent, Streams: 2}, {Kind: loadgen.Concurrent, Streams: 4},
		})
		if err != nil {
			t.Fatal(err)
		}
		return rounds
	}

	// The queue empties after 4 reads: the first round waits 400 ms, the
	// others start at once.
	d, _ := newDrain(&busyFor{k: 4}, 0, time.Minute)
	rounds := run(d)
	for i, rd := range rounds {
		w := rd.Benchmark.Extras.Drain
		want := 0.0
		if i == 0 {
			want = 0.4
		}
		if w == nil || w.Method != report.DrainGauges || float64(w.WaitedS) != want || w.Busy || rd.Excluded {
			t.Errorf("round %d: drain %+v excluded %v; want %.1f s by gauges", i, w, rd.Excluded, want)
		}
	}

	// A bound of 200 ms: the first round starts on a busy server, is
	// marked and left out of the knee.
	d, _ = newDrain(&busyFor{k: 4}, 0, 200*time.Millisecond)
	rounds = run(d)
	if w := rounds[0].Benchmark.Extras.Drain; w == nil || !w.Busy || !rounds[0].Excluded || rounds[1].Excluded {
		t.Fatalf("bounded: drain %+v, excluded %v %v", w, rounds[0].Excluded, rounds[1].Excluded)
	}
	kn := ListKnee(rounds)
	if kn == nil || kn.Below != 1 || !strings.Contains(kn.Reason, "Benchmark 0 (concurrent@1) started on a busy server") {
		t.Errorf("knee %+v", kn)
	}
	// KeepBusy: marked in the report, but judged.
	d, _ = newDrain(&busyFor{k: 4}, 0, 200*time.Millisecond)
	d.KeepBusy = true
	rounds = run(d)
	if !rounds[0].Benchmark.Extras.Drain.Busy || rounds[0].Excluded {
		t.Errorf("KeepBusy: drain %+v excluded %v", rounds[0].Benchmark.Extras.Drain, rounds[0].Excluded)
	}
}

// TestKneeLeavesOutBusyRounds: a round that started on a busy server is no
// evidence for a list's knee, a sweep's or a knee search's.
func TestKneeLeavesOutBusyRounds(t *testing.T) {
	spec := slo.Default()
	var rounds []Round
	for i, c := range []int{8, 16, 32, 64} {
		rounds = append(rounds, fakeRound(t, i, loadgen.Strategy{Kind: loadgen.Concurrent, Streams: c}, steep(loadgen.Strategy{Streams: c}), spec))
	}
	// 64 breaks the SLO: the knee is 32, bracketed.
	if kn := ListKnee(rounds); !kn.Found || kn.Streams != 32 || kn.Above != 3 {
		t.Fatalf("knee %+v", kn)
	}
	// 64 started on a busy server: no break seen, 32 is a lower bound.
	rounds[3].Excluded = true
	kn := ListKnee(rounds)
	if kn.Found || kn.Streams != 32 || kn.Above != -1 || !strings.Contains(kn.Reason, "Benchmark 3 (concurrent@64) started on a busy server") {
		t.Errorf("knee without the busy round %+v", kn)
	}

	// A knee search measures a busy round's load again: the first round
	// at 64 streams is busy, the search repeats it and still finds 42.
	busyOnce := map[int]bool{64: true}
	k := KneeSearch{}
	var got []Round
	for i := 0; i < 100; i++ {
		s, ok, err := k.Next(got)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		r := fakeRound(t, i, s, steep(s), spec)
		if busyOnce[s.Streams] {
			r.Excluded, busyOnce[s.Streams] = true, false
		}
		got = append(got, r)
	}
	want := []float64{1, 2, 4, 8, 16, 32, 64, 64, 48, 40, 44, 42}
	if l := loads(got); !slices.Equal(l, want) {
		t.Fatalf("loads %v, want %v", l, want)
	}
	if kn := k.Knee(got); !kn.Found || kn.Streams != 42 || !strings.Contains(kn.Reason, "Benchmark 6 (concurrent@64) started on a busy server") {
		t.Errorf("search knee %+v", kn)
	}
}

// TestKneeSearchAllBusy: a server never idle does not keep a search going:
// it stops after MaxBusyRepeats busy rounds at its first load (issue 32:
// it used to repeat that load until MaxRounds).
func TestKneeSearchAllBusy(t *testing.T) {
	k := KneeSearch{MaxRounds: 5}
	var got []Round
	for i := 0; i < 100; i++ {
		s, ok, err := k.Next(got)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		r := fakeRound(t, i, s, steep(s), slo.Default())
		r.Excluded = true
		got = append(got, r)
	}
	if len(got) != MaxBusyRepeats {
		t.Errorf("%d rounds, want MaxBusyRepeats %d", len(got), MaxBusyRepeats)
	}
	if kn := k.Knee(got); kn == nil || kn.Found || !strings.Contains(kn.Reason, "raise --max-drain") {
		t.Errorf("knee %+v; want the busy rounds named", kn)
	}
}
