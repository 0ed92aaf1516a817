package loadgen

import (
	"runtime"
	"testing"
	"time"
)

// The governor lowers GOMAXPROCS only after a second of low use, to what
// keeps each P at most half busy, and restores the ceiling at once when
// use passes 60 % of the Ps it has.
func TestProcGovernorSteps(t *testing.T) {
	for _, c := range []struct {
		name    string
		ceiling int
		used    []float64 // cores used per interval
		want    []int     // setting after each interval
		least   int
		changes int
	}{
		{"busy client keeps the ceiling", 2,
			[]float64{1.2, 1.5, 0.9, 1.1, 1.3}, []int{2, 2, 2, 2, 2}, 2, 0},
		{"light load lowers after four intervals", 2,
			[]float64{0.4, 0.4, 0.4, 0.4, 0.4}, []int{2, 2, 2, 1, 1}, 1, 1},
		{"one busy interval breaks the streak", 2,
			[]float64{0.4, 0.4, 0.4, 1.1, 0.4, 0.4, 0.4, 0.4}, []int{2, 2, 2, 2, 2, 2, 2, 1}, 1, 1},
		// need = ⌈used / 0.5⌉: the streak's largest need is what it lowers to.
		{"lowers to the streak's largest need", 8,
			[]float64{0.3, 1.4, 0.2, 0.9}, []int{8, 8, 8, 3}, 3, 1},
		// At 1 P, 0.55 cores is 55 % busy: kept; 0.65 is past 60 %: back
		// to the ceiling at once.
		{"rising use restores the ceiling at once", 4,
			[]float64{0.2, 0.2, 0.2, 0.2, 0.55, 0.65, 0.2}, []int{4, 4, 4, 1, 1, 4, 4}, 1, 2},
		{"idle client goes to one P", 4,
			[]float64{0, 0, 0, 0}, []int{4, 4, 4, 1}, 1, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := newProcGovernor(c.ceiling)
			for i, u := range c.used {
				if got := g.step(u); got != c.want[i] {
					t.Fatalf("interval %d (%.2f cores): GOMAXPROCS %d, want %d", i, u, got, c.want[i])
				}
			}
			if g.least != c.least || g.changes != c.changes {
				t.Fatalf("least %d changes %d, want %d and %d", g.least, g.changes, c.least, c.changes)
			}
		})
	}
}

// A benchmark's monitor applies the governor: a client using a tenth of a
// core runs on one P after four intervals (a second), and the ceiling is
// back when the benchmark ends; its load figures say so.
func TestMonitorGovernsProcs(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(before)
	const ceiling = 3
	runtime.GOMAXPROCS(1) // a previous benchmark's setting: the next one starts at the ceiling
	m := newMonitor(NewClock(), ceiling)
	t0 := time.Now()
	m.cpu = func() float64 { return time.Since(t0).Seconds() / 10 }
	m.start()
	if got := runtime.GOMAXPROCS(0); got != ceiling {
		t.Fatalf("GOMAXPROCS %d at the start, want the ceiling %d", got, ceiling)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.GOMAXPROCS(0) != 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	lowered := runtime.GOMAXPROCS(0)
	// Lowering takes four intervals of low use after the first sample.
	if el := time.Since(t0); el < govLowStreak*govInterval {
		t.Fatalf("lowered after %v, before %d intervals of %v", el, govLowStreak, govInterval)
	}
	l := m.finish()
	if lowered != 1 {
		t.Fatalf("GOMAXPROCS never went to 1 (still %d after 5 s)", lowered)
	}
	if got := runtime.GOMAXPROCS(0); got != ceiling {
		t.Fatalf("GOMAXPROCS %d after the benchmark, want %d", got, ceiling)
	}
	if l.MaxProcs != ceiling || l.MinProcs != 1 || l.ProcsChanges != 1 {
		t.Fatalf("client load procs max %d min %d changes %d, want 3, 1, 1", l.MaxProcs, l.MinProcs, l.ProcsChanges)
	}
}

// Without a ceiling the monitor leaves GOMAXPROCS alone.
func TestMonitorWithoutGovernor(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	m := newMonitor(NewClock(), 0)
	m.cpu = func() float64 { return 0 }
	m.start()
	time.Sleep(2 * govInterval)
	l := m.finish()
	if got := runtime.GOMAXPROCS(0); got != before || int(l.MaxProcs) != before || int(l.MinProcs) != before || l.ProcsChanges != 0 {
		t.Fatalf("GOMAXPROCS %d (was %d), load %d/%d/%d", got, before, l.MaxProcs, l.MinProcs, l.ProcsChanges)
	}
}

// Only closed-loop benchmarks are governed: an open-loop dispatcher keeps
// every P, and without AdaptProcs nothing is.
func TestProcsForStrategy(t *testing.T) {
	for _, c := range []struct {
		kind  Kind
		adapt int
		want  int
	}{
		{Synchronous, 4, 4}, {Concurrent, 4, 4}, {Throughput, 4, 4},
		{Constant, 4, 0}, {Poisson, 4, 0}, {Replay, 4, 0},
		{Concurrent, 0, 0},
	} {
		e := &Engine{}
		e.AdaptProcs(c.adapt)
		if got := e.procsFor(Strategy{Kind: c.kind}); got != c.want {
			t.Errorf("%v with AdaptProcs(%d): ceiling %d, want %d", c.kind, c.adapt, got, c.want)
		}
	}
}
