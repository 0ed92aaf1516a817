package stats

import (
	"math"
	"slices"
	"testing"
)

// TestKaplanMeierByHand checks the estimate against one computed by hand:
// times 1, 2+, 3, 3, 4+, 5, 6+ (+ censored). At risk 7 at t=1 (one event):
// S = 6/7; 5 at t=3 (two events): S = 6/7 × 3/5 = 18/35; 2 at t=5 (one):
// S = 9/35. Greenwood's sums: 1/42, then + 2/15, then + 1/2.
func TestKaplanMeierByHand(t *testing.T) {
	obs := []Observation{{6, false}, {3, true}, {1, true}, {4, false}, {2, false}, {5, true}, {3, true}}
	s := KaplanMeier(obs)
	if s.Events != 4 || s.Censored != 3 || s.MaxTime != 6 {
		t.Fatalf("events %d censored %d max %g, want 4, 3, 6", s.Events, s.Censored, s.MaxTime)
	}
	for _, c := range []struct{ t, want float64 }{{0.5, 1}, {1, 6.0 / 7}, {2.5, 6.0 / 7}, {3, 18.0 / 35}, {4.9, 18.0 / 35}, {5, 9.0 / 35}, {7, 9.0 / 35}} {
		if got := s.S(c.t); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("S(%g) = %g, want %g", c.t, got, c.want)
		}
	}
	wantGW := []float64{1.0 / 42, 1.0/42 + 2.0/15, 1.0/42 + 2.0/15 + 0.5}
	for i, w := range wantGW {
		if math.Abs(s.gw[i]-w) > 1e-12 {
			t.Errorf("Greenwood sum %d = %g, want %g", i, s.gw[i], w)
		}
	}
	for _, c := range []struct {
		p    float64
		want float64
		ok   bool
	}{{0.1, 1, true}, {0.25, 3, true}, {0.5, 5, true}, {0.75, 0, false}} {
		got, ok := s.Quantile(c.p)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("quantile %g = %g, %v; want %g, %v", c.p, got, ok, c.want, c.ok)
		}
	}
	// The completed-only median of 1, 3, 3, 5 is 3: deleting the cut-off
	// requests biases it low.
	if got := s.Attained(3.5); math.Abs(got-17.0/35) > 1e-12 {
		t.Errorf("attained(3.5) = %g, want 17/35", got)
	}
	// Median's interval at 95 %: S ± 1.96·S·√gw. At t=3: 18/35 ± 1.96 ×
	// 0.51429 × 0.39641 = [0.1147, 0.9139]: the lower edge is ≤ 0.5 at 3,
	// the upper edge only at 5 or later (at 5: 9/35 + 1.96 × 0.25714 ×
	// 0.81064 = 0.6657 > 0.5), so [3, +Inf).
	iv := s.QuantileCI(0.5, 0.95)
	if iv.Lower != 3 || !math.IsInf(iv.Upper, 1) {
		t.Errorf("median interval %+v, want [3, +Inf)", iv)
	}
}

// Without censoring the estimate is the empirical distribution, and its
// quantiles are the completed-only percentiles (the first value whose
// cumulative share reaches p).
func TestKaplanMeierNoCensoringMatchesPercentiles(t *testing.T) {
	v := []float64{5, 1, 4, 4, 2, 9, 7, 3, 8, 6}
	var obs []Observation
	var samples []Sample
	for _, x := range v {
		obs = append(obs, Observation{x, true})
		samples = append(samples, Sample{x, 1})
	}
	s := KaplanMeier(obs)
	d := FromValues(samples)
	slices.Sort(v)
	for i, p := range []float64{0.25, 0.5, 0.95, 0.99} {
		got, ok := s.Quantile(p)
		want, _ := d.Percentile(p * 100)
		if !ok || got != want {
			t.Errorf("%d: quantile %g = %g, %v; percentile %g", i, p, got, ok, want)
		}
	}
}
