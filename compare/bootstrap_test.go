package compare

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// smallDist is a histogram of 200 integer values (exact in HDR: below
// 2048) with a long tail.
func smallDist(t *testing.T) (dist, []float64) {
	t.Helper()
	h := hdrhistogram.New(1, 1_000_000, 3)
	rng := rand.New(rand.NewPCG(9, 9))
	var vals []float64
	for range 200 {
		v := int64(100 * math.Exp(0.5*rng.NormFloat64()))
		if err := h.RecordValue(v); err != nil {
			t.Fatal(err)
		}
		vals = append(vals, float64(v))
	}
	d, err := newDist(h, 1)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(vals)
	return d, vals
}

// ecdfDistance is the largest gap between the empirical CDFs of two
// samples (the Kolmogorov–Smirnov statistic).
func ecdfDistance(a, b []float64) float64 {
	slices.Sort(a)
	slices.Sort(b)
	worst := 0.0
	for _, x := range append(append([]float64{}, a...), b...) {
		fa := float64(sort.SearchFloat64s(a, math.Nextafter(x, math.Inf(1)))) / float64(len(a))
		fb := float64(sort.SearchFloat64s(b, math.Nextafter(x, math.Inf(1)))) / float64(len(b))
		worst = max(worst, math.Abs(fa-fb))
	}
	return worst
}

// The beta shortcut draws the resampled percentile from the same
// distribution as resampling n values and taking their percentile.
func TestBetaShortcutMatchesBruteForceBootstrap(t *testing.T) {
	t.Parallel()
	d, vals := smallDist(t)
	const n, reps = 200, 4000
	for _, p := range []float64{0.5, 0.9, 0.99} {
		k := int(math.Ceil(p*n - 1e-9))
		brute := make([]float64, reps)
		rng := rand.New(rand.NewPCG(1, 2))
		sample := make([]float64, n)
		for i := range brute {
			for j := range sample {
				sample[j] = vals[rng.IntN(len(vals))]
			}
			slices.Sort(sample)
			brute[i] = sample[k-1]
		}
		draw := func(kk int) []float64 {
			out := make([]float64, reps)
			r := rand.New(rand.NewPCG(3, 4))
			for i := range out {
				out[i] = d.quantile(betaDraw(r, float64(kk), float64(n-kk+1)))
			}
			return out
		}
		// With 4,000 draws on each side, a KS distance above 0.043 has
		// probability below 0.1% if the distributions are equal.
		if dist := ecdfDistance(brute, draw(k)); dist > 0.043 {
			t.Errorf("p%v: KS distance %.3f between the beta shortcut and brute force", p*100, dist)
		}
		// The comparison has power: the neighbouring order statistic
		// (k±2) is told apart.
		off := k - 2
		if k+2 <= n {
			off = k + 2
		}
		if dist := ecdfDistance(brute, draw(off)); dist <= 0.043 {
			t.Errorf("p%v: order statistic %d not told apart from %d (KS %.3f)", p*100, off, k, dist)
		}
	}
}

func TestGammaDrawMoments(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	for _, shape := range []float64{1, 3.5, 1e5} {
		const n = 200000
		var sum, sq float64
		for range n {
			x := gammaDraw(rng, shape)
			sum += x
			sq += x * x
		}
		mean := sum / n
		variance := sq/n - mean*mean
		// Gamma(a, 1): mean a, variance a. The standard error of the
		// mean is sqrt(a/n); allow 5 of them.
		if math.Abs(mean-shape) > 5*math.Sqrt(shape/n) {
			t.Errorf("shape %v: mean %v", shape, mean)
		}
		if math.Abs(variance-shape)/shape > 0.03 {
			t.Errorf("shape %v: variance %v", shape, variance)
		}
	}
}

func TestPercentileCIOpenEnds(t *testing.T) {
	t.Parallel()
	d, _ := smallDist(t)
	rng := rand.New(rand.NewPCG(1, 1))
	tests := []struct {
		p            float64
		n            int
		loOpen, hiOp bool
	}{
		{0.99, 367, false, true}, // 0.99^367 = 0.02501 > 0.025
		{0.99, 368, false, false},
		{0.95, 71, false, true},
		{0.95, 72, false, false},
		{0.5, 5, true, true}, // 0.5^5 = 0.031
		{0.5, 6, false, false},
	}
	for _, tt := range tests {
		ci := percentileCI(d, tt.p, tt.n, 200, 0.95, rng)
		if ci.LowOpen != tt.loOpen || ci.HighOpen != tt.hiOp {
			t.Errorf("p%v n=%d: open ends %v %v, want %v %v", tt.p*100, tt.n, ci.LowOpen, ci.HighOpen, tt.loOpen, tt.hiOp)
		}
		if ci.Low > ci.High {
			t.Errorf("p%v n=%d: interval %+v", tt.p*100, tt.n, ci)
		}
	}
	// An open end overlaps everything beyond it.
	a := Interval{Low: 1, High: 2, HighOpen: true}
	b := Interval{Low: 3, High: 4}
	if b.above(a) || !b.above(Interval{Low: 1, High: 2}) {
		t.Error("open ends are not honoured")
	}
}

func TestDistQuantile(t *testing.T) {
	t.Parallel()
	h := hdrhistogram.New(1, 1_000_000, 3)
	// 10 ×100, 30 ×200, 60 ×300: F(100) = 0.1, F(200) = 0.4, F(300) = 1.
	_ = h.RecordValues(100, 10)
	_ = h.RecordValues(200, 30)
	_ = h.RecordValues(300, 60)
	d, err := newDist(h, 1)
	if err != nil {
		t.Fatal(err)
	}
	for u, want := range map[float64]float64{0.0001: 100, 0.1: 100, 0.1001: 200, 0.4: 200, 0.41: 300, 1: 300} {
		if got := d.quantile(u); got != want {
			t.Errorf("quantile(%v) = %v, want %v", u, got, want)
		}
	}
	if _, err := newDist(hdrhistogram.New(1, 10, 3), 1); err == nil {
		t.Error("an empty histogram gave a distribution")
	}
}

// BenchmarkPercentileCI: one row's interval (1,000 resamples) of a run of
// a million requests, the cost that does not grow with the run.
func BenchmarkPercentileCI(b *testing.B) {
	h := hdrhistogram.New(1, 3_600_000_000_000, 3)
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 1_000_000
	for range n {
		_ = h.RecordValue(int64(100e6 * math.Exp(0.5*rng.NormFloat64())))
	}
	d, err := newDist(h, 1e6)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		percentileCI(d, 0.99, n, 1000, 0.95, rng)
	}
	b.ReportMetric(float64(len(d.values)), "buckets")
}
