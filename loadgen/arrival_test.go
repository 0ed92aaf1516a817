package loadgen

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/record"
)

// The schedules are checked against their target distributions with a
// one-sample Kolmogorov–Smirnov test at α = 0.01 on seeded draws, so each
// test is deterministic and would fail on a wrong shape, scale or rate
// (TestKSRejectsWrongShape shows the test has the power to tell).

// ks returns the Kolmogorov–Smirnov statistic D of the samples (sorted in
// place) against cdf.
func ks(x []float64, cdf func(float64) float64) float64 {
	slices.Sort(x)
	n := float64(len(x))
	var d float64
	for i, v := range x {
		f := cdf(v)
		d = max(d, f-float64(i)/n, float64(i+1)/n-f)
	}
	return d
}

// ksCritical is D's critical value at α = 0.01 for n samples (the
// asymptotic 1.628/√n with Stephens' small-sample correction).
func ksCritical(n int) float64 {
	s := math.Sqrt(float64(n))
	return 1.628 / (s + 0.12 + 0.11/s)
}

// ksPValue is the asymptotic p-value of D for n samples.
func ksPValue(d float64, n int) float64 {
	s := math.Sqrt(float64(n))
	l := (s + 0.12 + 0.11/s) * d
	var p float64
	for j := 1; j <= 100; j++ {
		p += 2 * math.Pow(-1, float64(j-1)) * math.Exp(-2*float64(j*j)*l*l)
	}
	return min(1, max(0, p))
}

func checkKS(t *testing.T, name string, x []float64, cdf func(float64) float64) float64 {
	t.Helper()
	d := ks(x, cdf)
	t.Logf("%s: n=%d KS D=%.4f (critical %.4f at α=0.01) p=%.3f", name, len(x), d, ksCritical(len(x)), ksPValue(d, len(x)))
	if d >= ksCritical(len(x)) {
		t.Errorf("%s: KS D=%.4f ≥ %.4f: the schedule does not follow the target distribution", name, d, ksCritical(len(x)))
	}
	return d
}

// gammaCDF is the regularized lower incomplete gamma P(k, x): the CDF of
// Gamma(k, 1) at x (series below k+1, Lentz's continued fraction above).
func gammaCDF(k, x float64) float64 {
	if x <= 0 {
		return 0
	}
	lg, _ := math.Lgamma(k)
	pre := math.Exp(-x + k*math.Log(x) - lg)
	if x < k+1 {
		sum, term := 1/k, 1/k
		for a := k + 1; math.Abs(term) > 1e-16*math.Abs(sum); a++ {
			term *= x / a
			sum += term
		}
		return sum * pre
	}
	b, c, d := x+1-k, 1/1e-300, 1/(x+1-k)
	h := d
	for i := 1.0; i < 1000; i++ {
		an := -i * (i - k)
		b += 2
		d = an*d + b
		if math.Abs(d) < 1e-300 {
			d = 1e-300
		}
		c = b + an/c
		if math.Abs(c) < 1e-300 {
			c = 1e-300
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < 1e-16 {
			break
		}
	}
	return 1 - pre*h
}

func TestGammaCDF(t *testing.T) {
	for _, c := range []struct{ k, x, want float64 }{
		{1, 1, 1 - math.Exp(-1)},
		{1, 3, 1 - math.Exp(-3)},
		{2, 2, 1 - 3*math.Exp(-2)}, // Erlang(2)
		{0.5, 0.5, math.Erf(math.Sqrt(0.5))},
		{0.5, 4, math.Erf(2)},
	} {
		if got := gammaCDF(c.k, c.x); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("P(%v, %v) = %v, want %v", c.k, c.x, got, c.want)
		}
	}
}

// schedule returns the first n offsets of s's schedule (fewer when it
// ends), and offsets the same in seconds.
func schedule(t *testing.T, s Strategy, n int) []time.Duration {
	t.Helper()
	p, err := NewPacer(s)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]time.Duration, 0, n)
	for i := uint64(0); len(out) < n; i++ {
		off, ok := p.Next(i)
		if !ok {
			break
		}
		out = append(out, off)
	}
	return out
}

func offsets(t *testing.T, s Strategy, n int) []float64 {
	t.Helper()
	var out []float64
	for _, d := range schedule(t, s, n) {
		out = append(out, d.Seconds())
	}
	return out
}

func gaps(t []float64) []float64 {
	g := make([]float64, len(t)-1)
	for i := range g {
		g[i] = t[i+1] - t[i]
	}
	return g
}

// Below a burstiness of about 0.2 a visible share of gamma gaps is under
// a nanosecond (14 % at 0.1 and 20 req/s): the schedule sends those
// requests at the same instant, so its gaps are checked from 0.25 up and
// the sampler's own draws below.
func TestGammaSamplerSmallShapes(t *testing.T) {
	for _, k := range []float64{0.02, 0.1, 0.25} {
		g := &gammaGaps{k: k, rng: rand.New(rand.NewPCG(7, 1))}
		x := make([]float64, 4000)
		for i := range x {
			x[i] = g.next()
		}
		checkKS(t, fmt.Sprintf("gamma(%v, 1/%v) draws", k, k), x, func(v float64) float64 { return gammaCDF(k, v*k) })
	}
}

func TestGammaGapsFollowBurstiness(t *testing.T) {
	const rate, n = 20.0, 4000
	for _, k := range []float64{0.25, 0.5, 1, 2, 4, 16} {
		s := Strategy{Kind: Poisson, Rate: rate, Burstiness: k, Seed: 7}
		g := gaps(offsets(t, s, n+1))
		var mean float64
		for _, v := range g {
			mean += v / n
		}
		// vLLM's gamma: shape k, scale 1/(rate·k).
		checkKS(t, s.String()+" gaps", g, func(x float64) float64 { return gammaCDF(k, x*rate*k) })
		if math.Abs(mean*rate-1) > 5/math.Sqrt(k*n) {
			t.Errorf("burstiness %v: mean gap %v, want 1/rate = %v", k, mean, 1/rate)
		}
	}
}

func TestKSRejectsWrongShape(t *testing.T) {
	const rate, n = 20.0, 4000
	for _, c := range []struct{ k, against float64 }{{0.5, 1}, {1, 0.5}, {2, 1}} {
		g := gaps(offsets(t, Strategy{Kind: Poisson, Rate: rate, Burstiness: c.k, Seed: 7}, n+1))
		d := ks(g, func(x float64) float64 { return gammaCDF(c.against, x*rate*c.against) })
		t.Logf("burstiness %v against shape %v: D=%.4f", c.k, c.against, d)
		if d < ksCritical(n) {
			t.Errorf("burstiness %v passed as shape %v (D=%.4f): the test cannot tell shapes apart", c.k, c.against, d)
		}
	}
}

func TestBurstinessOneIsPoisson(t *testing.T) {
	a := offsets(t, Strategy{Kind: Poisson, Rate: 5, Seed: 3}, 500)
	b := offsets(t, Strategy{Kind: Poisson, Rate: 5, Seed: 3, Burstiness: 1}, 500)
	if !slices.Equal(a, b) {
		t.Fatal("burstiness 1 changed the seeded poisson schedule")
	}
	c := offsets(t, Strategy{Kind: Poisson, Rate: 5, Seed: 3, Burstiness: 0.5}, 500)
	d := offsets(t, Strategy{Kind: Poisson, Rate: 5, Seed: 3, Burstiness: 0.5}, 500)
	e := offsets(t, Strategy{Kind: Poisson, Rate: 5, Seed: 4, Burstiness: 0.5}, 500)
	if !slices.Equal(c, d) || slices.Equal(c, e) {
		t.Fatal("gamma schedules are not determined by their seed")
	}
	if c[0] != 0 {
		t.Fatalf("the first request is due at %v, want 0", c[0])
	}
}

// The shaped pacer's linear ramp from 0 is GuideLLM's constant rampup.
func TestShapedLinearRampIsGuideLLMRampup(t *testing.T) {
	s := Strategy{Kind: Constant, Rate: 12, Rampup: 5 * time.Second}
	old, err := NewPacer(s)
	if err != nil {
		t.Fatal(err)
	}
	shaped := &shapedPacer{curve: curveOf(s), flat: s.Rate}
	for i := uint64(0); i < 200; i++ {
		a, _ := old.Next(i)
		b, _ := shaped.Next(i)
		if d := a - b; d < -time.Microsecond || d > time.Microsecond {
			t.Fatalf("request %d: rampup %v, curve %v", i, a, b)
		}
	}
}

// A constant schedule sends request i when Λ reaches i: the cumulative
// count at t is ⌊Λ(t)⌋ + 1, up to rounding at the instants themselves.
func TestConstantRampCountFollowsIntegral(t *testing.T) {
	for _, s := range []Strategy{
		{Kind: Constant, Rate: 50, Rampup: 10 * time.Second, RampShape: RampExponential, RampFrom: 1},
		{Kind: Constant, Rate: 50, Rampup: 10 * time.Second, RampFrom: 5},
		{Kind: Constant, Rate: 5, Rampup: 10 * time.Second, RampFrom: 40}, // a ramp down
	} {
		c := curveOf(s)
		ts := offsets(t, s, int(c.cumulative(15))+1)
		for x := 0.05; x < 15; x += 0.1 {
			n, _ := slices.BinarySearch(ts, x)
			if want := math.Floor(c.cumulative(x)) + 1; math.Abs(float64(n)-want) > 1 {
				t.Fatalf("%+v: %d requests due by %.2fs, Λ gives %v", s, n, x, want)
			}
		}
		if r := c[0].rate(c[0].dur); math.Abs(r-s.Rate) > 1e-9 {
			t.Fatalf("%+v: the ramp ends at %v req/s", s, r)
		}
	}
}

// A poisson process with a time-varying rate r(t) (a ramp, a series) is
// checked two ways: its arrivals in [0, T] are independent draws from
// the density r(t)/Λ(T), and Λ maps its gaps to unit exponentials (gamma
// with mean 1 for another burstiness). The count by T is near Λ(T).
func checkRescaled(t *testing.T, s Strategy, horizon float64) {
	t.Helper()
	c := curveOf(s)
	var ts []float64
	for _, x := range offsets(t, s, 1<<20) {
		if x > horizon {
			break
		}
		ts = append(ts, x)
	}
	total := c.cumulative(horizon)
	if n := float64(len(ts)); math.Abs(n-total) > 4*math.Sqrt(total/max(1, s.Burstiness)) {
		t.Errorf("%v: %v requests by %vs, Λ = %.1f", s, n, horizon, total)
	}
	k := s.Burstiness
	if k == 0 {
		k = 1
	}
	u := make([]float64, len(ts))
	for i, x := range ts {
		u[i] = c.cumulative(x)
	}
	if k == 1 { // only a Poisson process is uniform given its count
		checkKS(t, s.String()+" arrival times vs Λ(t)/Λ(T)", slices.Clone(ts), func(x float64) float64 { return c.cumulative(x) / total })
	}
	checkKS(t, s.String()+" rescaled gaps", gaps(u), func(x float64) float64 { return gammaCDF(k, x*k) })
}

func TestPoissonRampsFollowTheRate(t *testing.T) {
	for _, s := range []Strategy{
		{Kind: Poisson, Rate: 80, Rampup: 20 * time.Second, Seed: 11},
		{Kind: Poisson, Rate: 80, Rampup: 20 * time.Second, RampShape: RampExponential, RampFrom: 2, Seed: 12},
		{Kind: Poisson, Rate: 80, Rampup: 20 * time.Second, RampShape: RampExponential, RampFrom: 2, Seed: 13, Burstiness: 0.5},
		{Kind: Poisson, Rate: 10, Rampup: 20 * time.Second, RampFrom: 60, Seed: 14, Burstiness: 3},
	} {
		checkRescaled(t, s, 30)
	}
}

var testSeries = []RateSegment{
	{Duration: 5 * time.Second, From: 20, To: 20},
	{Duration: 3 * time.Second, From: 100, To: 100},
	{Duration: 2 * time.Second}, // a pause
	{Duration: 5 * time.Second, From: 40, To: 40},
}

func TestConstantSeriesCountsPerSegment(t *testing.T) {
	s := Strategy{Kind: Constant, Series: testSeries}
	ts := offsets(t, s, 1<<20)
	want := []int{100, 300, 0, 200}
	at := 0.0
	for i, g := range testSeries {
		end := at + g.Duration.Seconds()
		lo, _ := slices.BinarySearch(ts, at-1e-9)
		hi, _ := slices.BinarySearch(ts, end-1e-9)
		if hi-lo != want[i] {
			t.Errorf("segment %d (%v req/s for %v): %d requests, want %d", i+1, g.From, g.Duration, hi-lo, want[i])
		}
		if i > 0 && g.From > 0 && math.Abs(ts[lo]-at) > 1e-6 {
			t.Errorf("segment %d starts at %.3fs, its first request is due at %.6fs", i+1, at, ts[lo])
		}
		at = end
	}
	if len(ts) != 600 {
		t.Fatalf("the series scheduled %d requests, want 600 then the end", len(ts))
	}
	if m := s.MeanRate(); math.Abs(m-40) > 1e-9 {
		t.Fatalf("mean rate %v, want 600/15 = 40", m)
	}
}

func TestPoissonSeriesCountsPerSegment(t *testing.T) {
	s := Strategy{Kind: Poisson, Series: testSeries, Seed: 5}
	ts := offsets(t, s, 1<<20)
	at := 0.0
	for i, g := range testSeries {
		end := at + g.Duration.Seconds()
		lo, _ := slices.BinarySearch(ts, at)
		hi, _ := slices.BinarySearch(ts, end)
		mean := g.From * g.Duration.Seconds()
		t.Logf("segment %d: %d requests, expected %.0f", i+1, hi-lo, mean)
		if math.Abs(float64(hi-lo)-mean) > 4*math.Sqrt(mean) || (mean == 0 && hi != lo) {
			t.Errorf("segment %d: %d requests, expected %v ± %.0f", i+1, hi-lo, mean, 4*math.Sqrt(mean))
		}
		if mean > 0 {
			in := slices.Clone(ts[lo:hi])
			checkKS(t, "segment arrivals uniform", in, func(x float64) float64 { return (x - at) / (end - at) })
		}
		at = end
	}
	// AIPerf's piecewise-linear points, and gamma gaps on a series.
	lin := []RateSegment{{Duration: 10 * time.Second, From: 5, To: 60}, {Duration: 10 * time.Second, From: 60, To: 20}}
	checkRescaled(t, Strategy{Kind: Poisson, Series: lin, Seed: 8}, 20)
	checkRescaled(t, Strategy{Kind: Poisson, Series: lin, Seed: 9, Burstiness: 0.4}, 20)
}

func TestStreamStart(t *testing.T) {
	lin := Strategy{Kind: Concurrent, Streams: 8, Rampup: 800 * time.Millisecond}
	for w := range 8 {
		if got, want := lin.StreamStart(w, 8), time.Duration(w)*100*time.Millisecond; got != want {
			t.Fatalf("linear: stream %d starts at %v, want %v", w, got, want)
		}
	}
	exp := Strategy{Kind: Concurrent, Streams: 16, Rampup: time.Second, RampShape: RampExponential}
	prev := time.Duration(-1)
	for w := range 16 {
		d := exp.StreamStart(w, 16)
		if d < prev || d > time.Second {
			t.Fatalf("exponential: stream %d starts at %v after %v", w, d, prev)
		}
		// c(t) = 16^(t/R): the streams running at t are those with c(t) ≥ w.
		if w > 1 {
			if c := math.Pow(16, d.Seconds()); math.Abs(c-float64(w)) > 1e-6 {
				t.Fatalf("exponential: stream %d starts when c(t) = %v", w, c)
			}
		}
		prev = d
	}
	if exp.StreamStart(8, 16) != 750*time.Millisecond {
		t.Fatalf("exponential: half the streams of 16 by %v, want 3/4 of the ramp", exp.StreamStart(8, 16))
	}
}

func TestShapeValidation(t *testing.T) {
	for _, s := range []Strategy{
		{Kind: Constant, Rate: 1, Burstiness: 0.5},
		{Kind: Poisson, Rate: 1, Burstiness: -1},
		{Kind: Poisson, Rate: 1, Burstiness: math.Inf(1)},
		{Kind: Constant, Rate: 1, Rampup: time.Second, RampShape: RampExponential},
		{Kind: Constant, Rate: 1, RampShape: RampLinear},
		{Kind: Constant, Rate: 1, Rampup: time.Second, RampShape: "sine"},
		{Kind: Constant, Rate: 1, Series: testSeries},
		{Kind: Constant, Series: []RateSegment{{Duration: time.Second}}},
		{Kind: Constant, Series: []RateSegment{{Duration: 0, From: 1, To: 1}}},
		{Kind: Concurrent, Streams: 2, Series: testSeries},
		{Kind: Replay, Schedule: []time.Duration{0}, Rampup: time.Second, RampFrom: 2},
	} {
		if err := s.Validate(); err == nil {
			t.Errorf("%+v: no error", s)
		}
	}
	for _, s := range []Strategy{
		{Kind: Poisson, Rate: 1, Burstiness: 0.2},
		{Kind: Constant, Series: testSeries},
		{Kind: Concurrent, Streams: 4, Rampup: time.Second, RampShape: RampExponential},
		{Kind: Poisson, Rate: 9, Rampup: time.Second, RampShape: RampExponential, RampFrom: 1},
	} {
		if err := s.Validate(); err != nil {
			t.Errorf("%+v: %v", s, err)
		}
	}
}

// The engine sends a shaped open-loop schedule on time against a mock
// whose responses take 300 ms: every record's intended time is the
// pacer's, dispatch follows it, and nothing waits for responses.
func TestEngineFollowsShapedSchedule(t *testing.T) {
	srv := startMock(t, func(c *mock.Config) { c.TTFT = 300 * time.Millisecond })
	e := newEngine(t, ClientConfig{Target: srv.URL()})
	src := fixedSource{NewRequest("", "x", 4)}
	for _, c := range []struct {
		s    Strategy
		cons Constraints
	}{
		{Strategy{Kind: Poisson, Rate: 100, Burstiness: 0.5, Seed: 21}, Constraints{MaxRequests: 80}},
		{Strategy{Kind: Poisson, Rate: 100, Rampup: 300 * time.Millisecond, RampShape: RampExponential, RampFrom: 10, Seed: 22}, Constraints{MaxRequests: 60}},
		// A series ends the benchmark by itself: 30 + 0 + 15 requests.
		{Strategy{Kind: Constant, Series: []RateSegment{
			{Duration: 300 * time.Millisecond, From: 100, To: 100},
			{Duration: 200 * time.Millisecond},
			{Duration: 300 * time.Millisecond, From: 50, To: 50},
		}}, Constraints{}},
	} {
		res, recs := collect(t, e, context.Background(), Benchmark{Strategy: c.s, Constraints: c.cons, Source: src})
		n := c.cons.MaxRequests
		if n == 0 {
			n = 1 << 10
		}
		want := schedule(t, c.s, n)
		if c.cons.MaxRequests == 0 && (len(want) != 45 || res.StopReason != StopDataExhausted) {
			t.Fatalf("%v: %d scheduled, stop %q", c.s, len(want), res.StopReason)
		}
		if int(res.Created) != len(want) || len(recs) != len(want) {
			t.Fatalf("%v: created %d, %d records, schedule of %d", c.s, res.Created, len(recs), len(want))
		}
		slices.SortFunc(recs, func(a, b *record.Record) int { return cmp.Compare(a.Intended, b.Intended) })
		late := make([]time.Duration, len(recs))
		for i, r := range recs {
			if got := time.Duration(r.Intended - res.Start); got != want[i] {
				t.Fatalf("%v: request %d intended at %v, the schedule says %v", c.s, i, got, want[i])
			}
			late[i] = time.Duration(r.Dispatched - r.Intended)
			if late[i] < 0 {
				t.Fatalf("%v: request %d dispatched %v before its time", c.s, i, -late[i])
			}
		}
		slices.Sort(late)
		t.Logf("%v: %d requests over %v, dispatch lateness p50 %v max %v", c.s, len(recs), want[len(want)-1], late[len(late)/2], late[len(late)-1])
		// A closed loop would wait 300 ms per response; the open loop is
		// late by scheduling noise only (loose for a shared CI machine).
		if late[len(late)/2] > 20*time.Millisecond || late[len(late)-1] > 150*time.Millisecond {
			t.Fatalf("%v: dispatch lateness p50 %v, max %v", c.s, late[len(late)/2], late[len(late)-1])
		}
	}
}

// Closed-loop streams start on the ramp's curve: with responses slower
// than the ramp, the first request of each stream is sent at its start.
func TestEngineRampsStreams(t *testing.T) {
	srv := startMock(t, func(c *mock.Config) { c.TTFT = 700 * time.Millisecond })
	e := newEngine(t, ClientConfig{Target: srv.URL()})
	s := Strategy{Kind: Concurrent, Streams: 8, Rampup: 400 * time.Millisecond, RampShape: RampExponential}
	res, recs := collect(t, e, context.Background(), Benchmark{Strategy: s, Constraints: Constraints{MaxRequests: 8}, Source: fixedSource{NewRequest("", "x", 4)}})
	if len(recs) != 8 {
		t.Fatalf("%d records", len(recs))
	}
	slices.SortFunc(recs, func(a, b *record.Record) int { return cmp.Compare(a.Dispatched, b.Dispatched) })
	for w, r := range recs {
		got, want := time.Duration(r.Dispatched-res.Start), s.StreamStart(w, 8)
		if got < want || got > want+60*time.Millisecond {
			t.Errorf("stream %d: first request at %v, the ramp starts it at %v", w, got, want)
		}
	}
}

func TestParseRateSeries(t *testing.T) {
	got, err := ParseRateSeries("2:30s, 8:1m,0:10,8..2:1.5")
	want := []RateSegment{{30 * time.Second, 2, 2}, {time.Minute, 8, 8}, {10 * time.Second, 0, 0}, {1500 * time.Millisecond, 8, 2}}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("%v (%v), want %v", got, err, want)
	}
	for _, bad := range []string{"", "2", "2:0s", "-1:5s", "a:5s", "2:x", "1..:5s", "2:5s,"} {
		if _, err := ParseRateSeries(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	segs, err := PiecewiseLinear([]RatePoint{{0, 5}, {60, 10}, {90, 10}})
	if err != nil || !slices.Equal(segs, []RateSegment{{time.Minute, 5, 10}, {30 * time.Second, 10, 10}}) {
		t.Fatalf("points: %v (%v)", segs, err)
	}
	for _, bad := range [][]RatePoint{{{0, 5}}, {{1, 5}, {2, 5}}, {{0, 5}, {0, 6}}, {{0, -1}, {1, 1}}} {
		if _, err := PiecewiseLinear(bad); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}
