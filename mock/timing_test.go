package mock

import (
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"
)

// calibrateTimers measures, until stop is closed, how late this machine wakes
// a goroutine sleeping on a timer to an absolute deadline (1 ms period, the
// same timer mechanism the mock uses), and returns the largest lateness seen.
// It runs concurrently with the stream under test, so it sees the same load.
func calibrateTimers(stop <-chan struct{}) time.Duration {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var worst time.Duration
	next := time.Now()
	for {
		next = next.Add(time.Millisecond)
		timer.Reset(time.Until(next))
		select {
		case <-stop:
			return worst
		case <-timer.C:
		}
		worst = max(worst, time.Since(next))
	}
}

// TestStampsOnAbsoluteDeadlines streams 200 tokens with TTFT 50 ms and ITL
// 10 ms, no jitter, and checks that every chunk is written on its absolute
// deadline: arrival + 50 ms + i*10 ms.
//
// Tolerance: the mock's lateness is the timer wake-up lateness plus the time
// to render and write one chunk (microseconds). The test measures the
// machine's timer lateness while the stream runs (calibrateTimers) and allows
// tol = 3 * worst measured lateness + 1 ms. A mock that slept ITL after each
// write instead of sleeping to absolute deadlines would accumulate the
// lateness of all 199 gaps and fail the drift check.
func TestStampsOnAbsoluteDeadlines(t *testing.T) {
	const (
		ttft   = 50 * time.Millisecond
		itl    = 10 * time.Millisecond
		tokens = 200
	)
	cfg := fastConfig()
	cfg.TTFT, cfg.ITL = ttft, itl
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		dues  []time.Time
		emits []time.Time
	)
	s.onEmit = func(_ uint64, due, emitted time.Time) {
		mu.Lock()
		dues = append(dues, due)
		emits = append(emits, emitted)
		mu.Unlock()
	}
	if err := s.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	stop := make(chan struct{})
	calDone := make(chan time.Duration)
	go func() { calDone <- calibrateTimers(stop) }()

	sent := time.Now()
	resp := post(t, nil, s.URL()+"/v1/completions", `{"prompt":"x","max_tokens":200,"ignore_eos":true,"stream":true}`)
	res := readSSE(resp.Body)
	resp.Body.Close()
	close(stop)
	calWorst := <-calDone
	tol := 3*calWorst + time.Millisecond
	t.Logf("worst timer lateness measured during the stream: %v; tolerance %v", calWorst, tol)

	if !res.done || len(res.payloads) != tokens {
		t.Fatalf("got %d payloads (done=%v, err=%v), want %d", len(res.payloads), res.done, res.err, tokens)
	}
	stamps := make([]int64, tokens)
	for i, p := range res.payloads {
		var v struct {
			Stamp int64 `json:"goodput_emit_ns"`
		}
		if err := json.Unmarshal([]byte(p), &v); err != nil {
			t.Fatal(err)
		}
		stamps[i] = v.Stamp
	}

	// Server side: every step was written within tol after its deadline, the
	// deadlines are exactly TTFT + i*ITL after arrival, and the stamps in the
	// chunks are the emission times.
	mu.Lock()
	defer mu.Unlock()
	if len(dues) != tokens {
		t.Fatalf("hook saw %d steps, want %d", len(dues), tokens)
	}
	var late []time.Duration
	for i := range dues {
		if d := dues[i].Sub(dues[0]); d != time.Duration(i)*itl {
			t.Fatalf("deadline %d is %v after deadline 0, want %v", i, d, time.Duration(i)*itl)
		}
		l := emits[i].Sub(dues[i])
		if l < 0 || l > tol {
			t.Errorf("step %d written %v after its deadline (tolerance %v)", i, l, tol)
		}
		late = append(late, l)
		if emits[i].UnixNano() != stamps[i] {
			t.Errorf("chunk %d stamp %d != emission time %d", i, stamps[i], emits[i].UnixNano())
		}
	}
	slices.Sort(late)
	t.Logf("emission lateness: p50 %v, p99 %v, max %v", late[len(late)/2], late[len(late)*99/100], late[len(late)-1])

	// Client side, from the stamps alone: the first chunk cannot come before
	// sent + TTFT, and chunk i is i*ITL after chunk 0 within tol: no drift.
	if first := time.Duration(stamps[0] - sent.UnixNano()); first < ttft {
		t.Errorf("first chunk stamped %v after the request was sent, before the %v TTFT", first, ttft)
	}
	for i := range stamps {
		off := time.Duration(stamps[i]-stamps[0]) - time.Duration(i)*itl
		if off < -tol || off > tol {
			t.Errorf("chunk %d is %v off its deadline relative to chunk 0 (tolerance %v)", i, off, tol)
		}
	}
	total := time.Duration(stamps[tokens-1] - stamps[0])
	t.Logf("chunk 0 to chunk %d: %v (schedule %v)", tokens-1, total, time.Duration(tokens-1)*itl)
}

// TestSchedulesReproducible checks that request k's parameters depend only on
// the seed and k: the same seed gives the same TTFT, gaps and length;
// another seed does not.
func TestSchedulesReproducible(t *testing.T) {
	cfg := DefaultConfig() // jitter on
	req := request{limit: 1000}
	draw := func(seed, k uint64) (plan, []time.Duration) {
		st := newStream()
		seedRNG(&st.pcg, seed, k)
		p := makePlan(&cfg, &req, k, st.rng)
		arrival := time.Unix(1000, 0)
		st.sched.init(st.rng, arrival, p.ttft, cfg.ITL, cfg.ITLStdev)
		var offs []time.Duration
		for i := range p.steps {
			at, _ := st.sched.due(i)
			offs = append(offs, at.Sub(arrival))
		}
		return p, offs
	}
	for k := range uint64(20) {
		p1, o1 := draw(7, k)
		p2, o2 := draw(7, k)
		if p1 != p2 || !slices.Equal(o1, o2) {
			t.Fatalf("k=%d: same seed gave different plans or schedules", k)
		}
		p3, o3 := draw(8, k)
		if p1 == p3 || slices.Equal(o1, o3) {
			t.Errorf("k=%d: seeds 7 and 8 gave the same plan and schedule", k)
		}
		if len(o1) > 1 && o1[1]-o1[0] == cfg.ITL {
			t.Errorf("k=%d: first gap exactly ITL with a non-zero ITLStdev", k)
		}
	}
}

// TestLongBatchesAreSplit: with zero delays every step is due at once, but
// one write carries at most maxBatchSteps steps, each write with its own
// stamp read after the previous write.
func TestLongBatchesAreSplit(t *testing.T) {
	cfg := fastConfig()
	s := startServer(t, cfg)
	resp := post(t, nil, s.URL()+"/v1/completions", `{"prompt":"x","max_tokens":600,"ignore_eos":true,"stream":true}`)
	res := readSSE(resp.Body)
	resp.Body.Close()
	if !res.done || len(res.payloads) != 600 {
		t.Fatalf("%d payloads, done=%v err=%v", len(res.payloads), res.done, res.err)
	}
	var runs []int // lengths of runs of equal stamps
	var prev int64
	for i, p := range res.payloads {
		var v struct {
			Stamp int64 `json:"goodput_emit_ns"`
		}
		if err := json.Unmarshal([]byte(p), &v); err != nil {
			t.Fatal(err)
		}
		switch {
		case i == 0 || v.Stamp != prev:
			if i > 0 && v.Stamp < prev {
				t.Errorf("chunk %d stamp %d before the previous write's %d", i, v.Stamp, prev)
			}
			runs = append(runs, 1)
		default:
			runs[len(runs)-1]++
		}
		prev = v.Stamp
	}
	// 600 steps, at most 256 per write: at least 3 writes.
	if len(runs) < 3 || slices.Max(runs) > maxBatchSteps {
		t.Errorf("steps per write %v, want at least 3 writes of at most %d", runs, maxBatchSteps)
	}
}
