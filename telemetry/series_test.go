package telemetry

import (
	"math"
	"testing"
	"time"
)

const sec = int64(time.Second)

// TestSeriesCompactionBounded feeds 100 000 points into a 64-point series:
// memory stays bounded, the first point is kept, and the counter and the
// gauge integral stay exact at the retained points.
func TestSeriesCompactionBounded(t *testing.T) {
	s := newSeries(64, counterCol, gaugeCol)
	const n = 100_000
	for i := int64(0); i < n; i++ {
		// Counter gains 2 per second; gauge alternates 10 and 30 W, so the
		// trapezoid integral gains 20 per second.
		g := 10.0
		if i%2 == 1 {
			g = 30
		}
		if i == 77_777 {
			g = 1000 // one spike, which the peaks must keep
		}
		s.add(i*sec, []float64{float64(2 * i), g})
		if s.len() > 64 {
			t.Fatalf("after %d points the series holds %d > 64", i+1, s.len())
		}
	}
	if s.t[0] != 0 || s.t[s.len()-1] != (n-1)*sec {
		t.Fatalf("span %d..%d, want 0..%d", s.t[0], s.t[s.len()-1], (n-1)*sec)
	}
	if cap(s.t) > 2*64 {
		t.Errorf("capacity %d grew beyond 2×64", cap(s.t))
	}
	// Whole span: the counter delta and the integral are exact.
	a, b := int64(0), (n-1)*sec
	if d := s.delta(0, a, b); d != 2*(n-1) {
		t.Errorf("counter delta %v, want %d", d, 2*(n-1))
	}
	// Each 1 s trapezoid of the alternating gauge is (10+30)/2 = 20. The
	// spike replaces a 30 between two 10s: its trapezoids are 505 + 505
	// instead of 20 + 20, 970 more.
	wantArea := 20*float64(n-1) + 970
	if got := s.areaAt(1, b) - s.areaAt(1, a); math.Abs(got-wantArea) > 1e-6 {
		t.Errorf("integral %v, want %v", got, wantArea)
	}
	if p := s.peakIn(1, a, b); p != 1000 {
		t.Errorf("peak %v, want the 1000 spike kept through compaction", p)
	}
	// Any two retained points give the exact counter delta.
	for i := 0; i+1 < s.len(); i++ {
		if d := s.delta(0, s.t[i], s.t[i+1]); d != 2*float64(s.t[i+1]-s.t[i])/float64(sec) {
			t.Fatalf("delta between retained points %d and %d = %v", i, i+1, d)
		}
	}
	if s.compacted == 0 {
		t.Error("no compaction happened")
	}
}

// TestSeriesAddRejectsOldTimes: times must increase.
func TestSeriesAddRejectsOldTimes(t *testing.T) {
	s := newSeries(64, counterCol)
	if !s.add(10, []float64{1}) || s.add(10, []float64{2}) || s.add(5, []float64{3}) {
		t.Fatal("add accepted a non-increasing time")
	}
	if s.len() != 1 {
		t.Fatalf("len %d, want 1", s.len())
	}
}

// TestSeriesCounterAbsence: a window across an absence of the counter is
// invalid; after it, the counter restarts from a new baseline.
func TestSeriesCounterAbsence(t *testing.T) {
	s := newSeries(64, counterCol)
	for i, v := range []float64{100, 200, math.NaN(), 500, 600} {
		s.add(int64(i)*sec, []float64{v})
	}
	lo, hi := s.bracket(0, 4*sec)
	if s.valid(0, lo, hi) {
		t.Error("window across the absence reported valid")
	}
	lo, hi = s.bracket(3*sec, 4*sec)
	if !s.valid(0, lo, hi) || s.delta(0, 3*sec, 4*sec) != 100 {
		t.Errorf("after the absence: valid %v delta %v, want true 100", s.valid(0, lo, hi), s.delta(0, 3*sec, 4*sec))
	}
}

// TestSeriesReadingsIn: a round's queue figures come from the readings
// inside its window only. Running reads 7 (the round before), 2, 2, 2,
// then 7 (the round after) at 0, 1, 2, 3 and 4 s; the window [0.5 s,
// 3.5 s] holds the three 2s: max 2 and mean 2, where interpolating to the
// edges would say 4.5.
func TestSeriesReadingsIn(t *testing.T) {
	s := newSeries(64, gaugeCol)
	for i, v := range []float64{7, 2, 2, 2, 7} {
		s.add(int64(i)*sec, []float64{v})
	}
	a, b := sec/2, 3*sec+sec/2
	if p := s.peakIn(0, a, b); p != 4.5 {
		t.Fatalf("interpolated peak %v, want 4.5 (the case this guards against)", p)
	}
	mean, peak, ok := s.readingsIn(0, a, b)
	if !ok || mean != 2 || peak != 2 {
		t.Errorf("readings in the window: mean %v, peak %v, ok %v; want 2, 2, true", mean, peak, ok)
	}
	// Uneven readings: 2 at 1 s, 4 at 2 s, 2 at 3 s: trapezoids 3 + 3 over 2 s.
	s = newSeries(64, gaugeCol)
	for i, v := range []float64{7, 2, 4, 2, 7} {
		s.add(int64(i)*sec, []float64{v})
	}
	if mean, peak, _ := s.readingsIn(0, a, b); mean != 3 || peak != 4 {
		t.Errorf("mean %v peak %v, want 3 and 4", mean, peak)
	}
	if _, _, ok := s.readingsIn(0, sec+sec/4, sec+sec/2); ok {
		t.Error("a window with no reading inside reported readings")
	}
}
