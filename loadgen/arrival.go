package loadgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Arrival shapes. An open-loop schedule is a unit-rate arrival process in
// "operational time" u (evenly spaced for constant, exponential gaps for
// poisson, gamma gaps for a burstiness other than 1) mapped through the
// inverse of the cumulative rate Λ(t) = ∫₀ᵗ r: the i-th request is due at
// t_i = Λ⁻¹(u_i). A flat rate gives the familiar processes; a ramp or a
// rate series bends time, so a poisson process stays poisson with the
// time-varying rate (a non-homogeneous Poisson process) and a constant one
// sends its i-th request when Λ reaches i.

// RampShape is how a ramp grows from RampFrom to its target.
type RampShape string

// Ramp shapes.
const (
	RampLinear      RampShape = "linear"      // GuideLLM's and AIPerf's ramp (the default)
	RampExponential RampShape = "exponential" // vLLM's --ramp-up-strategy exponential
)

// RateSegment is one piece of a rate series: the rate moves linearly from
// From to To requests per second over Duration (a step when they are
// equal). A rate of 0 is a pause.
type RateSegment struct {
	Duration time.Duration
	From, To float64
}

// segment is a piece of the rate curve in seconds; dur is +Inf for the
// hold after a ramp.
type segment struct {
	start, dur float64 // seconds
	from, to   float64 // requests/s
	exp        bool    // exponential between from and to (both > 0)
	mass0      float64 // Λ at start
	mass       float64 // ∫ r over the segment (+Inf when dur is)
}

// rateCurve is a piecewise rate r(t) with its cumulative Λ(t).
type rateCurve []segment

func newRateCurve(segs []segment) rateCurve {
	var t, m float64
	for i := range segs {
		s := &segs[i]
		s.start, s.mass0 = t, m
		s.mass = s.integral(s.dur)
		t += s.dur
		m += s.mass
	}
	return segs
}

// curveOf returns the rate curve of an open-loop strategy, nil when its
// rate is flat (no ramp, no series).
func curveOf(s Strategy) rateCurve {
	if len(s.Series) > 0 {
		segs := make([]segment, len(s.Series))
		for i, x := range s.Series {
			segs[i] = segment{dur: x.Duration.Seconds(), from: x.From, to: x.To}
		}
		return newRateCurve(segs)
	}
	if s.Rampup <= 0 {
		return nil
	}
	return newRateCurve([]segment{
		{dur: s.Rampup.Seconds(), from: s.RampFrom, to: s.Rate, exp: s.RampShape == RampExponential},
		{dur: math.Inf(1), from: s.Rate, to: s.Rate},
	})
}

// rate is r at s seconds into the segment.
func (g segment) rate(s float64) float64 {
	switch {
	case g.from == g.to:
		return g.from
	case g.exp:
		return g.from * math.Pow(g.to/g.from, s/g.dur)
	}
	return g.from + (g.to-g.from)*s/g.dur
}

// integral is ∫ r over the first s seconds of the segment.
func (g segment) integral(s float64) float64 {
	switch {
	case s == 0:
		return 0
	case g.from == g.to:
		return g.from * s
	case g.exp:
		k := math.Log(g.to/g.from) / g.dur
		return g.from * math.Expm1(k*s) / k
	}
	return g.from*s + (g.to-g.from)/g.dur*s*s/2
}

// inverse is the s in [0, dur] where the segment's integral reaches x
// (0 ≤ x ≤ mass).
func (g segment) inverse(x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case g.from == g.to:
		return x / g.from
	case g.exp:
		k := math.Log(g.to/g.from) / g.dur
		return math.Log1p(k*x/g.from) / k
	}
	// from·s + b·s²/2 = x with b the slope, in the form that stays exact
	// when b is small or from is 0.
	b := (g.to - g.from) / g.dur
	return min(g.dur, 2*x/(g.from+math.Sqrt(max(0, g.from*g.from+2*b*x))))
}

// Mass is Λ(∞): the expected number of requests of a finite curve.
func (c rateCurve) total() float64 {
	if len(c) == 0 {
		return 0
	}
	l := c[len(c)-1]
	return l.mass0 + l.mass
}

// cumulative is Λ(t).
func (c rateCurve) cumulative(t float64) float64 {
	j := sort.Search(len(c), func(j int) bool { return c[j].start+c[j].dur > t }) // first segment not over by t
	if j == len(c) {
		return c.total()
	}
	return c[j].mass0 + c[j].integral(max(0, t-c[j].start))
}

// at returns the earliest t with Λ(t) > u (skipping pauses), and false
// when u is beyond a finite curve's end (u = Λ(end) is beyond: a series
// of 2 req/s for 5 s sends 10 requests).
func (c rateCurve) at(u float64) (float64, bool) {
	if u >= c.total() {
		return 0, false
	}
	// The first segment that ends beyond u has mass there, so a request
	// due exactly where a segment ends goes to the next one's start.
	j := sort.Search(len(c), func(j int) bool { return c[j].mass0+c[j].mass > u })
	if j == len(c) {
		return 0, false
	}
	return c[j].start + c[j].inverse(u-c[j].mass0), true
}

// shapedPacer maps a unit-rate arrival process through the rate curve
// (see the top of this file). With renewal gaps (poisson, gamma) it keeps
// the running operational time; otherwise u_i = i exactly (constant).
type shapedPacer struct {
	curve rateCurve
	flat  float64 // the rate when curve is nil
	gaps  *gammaGaps
	u     float64
}

func (p *shapedPacer) Next(i uint64) (time.Duration, bool) {
	u := float64(i)
	if p.gaps != nil {
		if i > 0 {
			p.u += p.gaps.next()
		}
		u = p.u
	}
	if p.curve == nil {
		return time.Duration(u / p.flat * 1e9), true
	}
	t, ok := p.curve.at(u)
	if !ok {
		return 0, false
	}
	return time.Duration(t * 1e9), true
}

// gammaGaps draws the gaps of a unit-rate renewal process: gamma with
// shape k and mean 1 (scale 1/k), so a rate r gives vLLM's scale
// 1/(r·k). k = 1 is the exponential (poisson); k < 1 is burstier, k > 1
// smoother (vLLM's --burstiness, AIPerf's --arrival-smoothness).
type gammaGaps struct {
	k   float64
	rng *rand.Rand
}

func (g *gammaGaps) next() float64 {
	if g.k == 1 {
		return g.rng.ExpFloat64()
	}
	return gammaVariate(g.rng, g.k) / g.k
}

// gammaVariate draws from Gamma(k, 1) by Marsaglia and Tsang's method
// (ACM TOMS 26(3), 2000); for k < 1 it draws Gamma(k+1)·U^(1/k), in logs
// so that tiny shapes do not underflow to exactly 0 more than they must.
func gammaVariate(rng *rand.Rand, k float64) float64 {
	if k < 1 {
		u := 1 - rng.Float64() // (0, 1]
		return math.Exp(math.Log(gammaVariate(rng, k+1)) + math.Log(u)/k)
	}
	d := k - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// StreamStart is when closed-loop stream w of n starts under the
// strategy's ramp: stream w starts when the ramp's concurrency c(t)
// reaches w. Linear: c(t) = from + (n − from)·t/R (from 0, the default:
// the streams start evenly over R, GuideLLM's rule). Exponential:
// c(t) = from·(n/from)^(t/R), from ≥ 1 (default 1), so streams start
// slowly and then in quick succession. Streams below from start at once.
func (s Strategy) StreamStart(w, n int) time.Duration {
	if s.Rampup <= 0 || w <= 0 || n <= 1 {
		return 0
	}
	r := float64(s.Rampup)
	from, fw, fn := s.RampFrom, float64(w), float64(n)
	if s.RampShape == RampExponential {
		from = max(from, 1)
		if fw <= from || fn <= from {
			return 0
		}
		return time.Duration(r * math.Log(fw/from) / math.Log(fn/from))
	}
	if from == 0 {
		return time.Duration(int64(s.Rampup) * int64(w) / int64(n)) // the exact integer form of old
	}
	if fw <= from || fn <= from {
		return 0
	}
	return time.Duration(r * (fw - from) / (fn - from))
}

// ParseRateSeries reads a rate series written as comma-separated
// RATE:DURATION steps, a FROM..TO:DURATION piece moving linearly between
// two rates, e.g. "2:30s,8:1m,0:10s,8..2:30s" (rates in requests per
// second, durations as Go durations or bare seconds).
func ParseRateSeries(spec string) ([]RateSegment, error) {
	var out []RateSegment
	for i, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		rates, dur, ok := strings.Cut(item, ":")
		if !ok {
			return nil, fmt.Errorf("rate series step %d %q: want RATE:DURATION or FROM..TO:DURATION, e.g. 2:30s,8..2:1m", i+1, item)
		}
		from, to, ramp := strings.Cut(rates, "..")
		if !ramp {
			to = from
		}
		f, err1 := strconv.ParseFloat(strings.TrimSpace(from), 64)
		t, err2 := strconv.ParseFloat(strings.TrimSpace(to), 64)
		d, err3 := parseSeconds(strings.TrimSpace(dur))
		if err1 != nil || err2 != nil || err3 != nil || f < 0 || t < 0 || math.IsInf(f+t, 0) || math.IsNaN(f+t) || d <= 0 {
			return nil, fmt.Errorf("rate series step %d %q: want RATE:DURATION or FROM..TO:DURATION with rates ≥ 0 and a duration > 0, e.g. 2:30s,8..2:1m", i+1, item)
		}
		out = append(out, RateSegment{Duration: d, From: f, To: t})
	}
	return out, nil
}

// parseSeconds reads a Go duration ("1m30s") or a bare number of seconds.
func parseSeconds(s string) (time.Duration, error) {
	if d, err := time.ParseDuration(s); err == nil {
		return d, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a duration", s)
	}
	return time.Duration(v * float64(time.Second)), nil
}

// RatePoint is a rate at an instant: AIPerf's --request-rate-series file
// lists them ({"points": [{"time_s": 0, "qps": 5}, …]}).
type RatePoint struct {
	TimeS float64 `json:"time_s"`
	QPS   float64 `json:"qps"`
}

// PiecewiseLinear turns rate points into the series that moves linearly
// from each point's rate to the next's (AIPerf's piecewise-linear rate);
// the series ends at the last point.
func PiecewiseLinear(points []RatePoint) ([]RateSegment, error) {
	if len(points) < 2 {
		return nil, fmt.Errorf("rate points: want at least two {time_s, qps} points, got %d", len(points))
	}
	out := make([]RateSegment, 0, len(points)-1)
	for i, p := range points {
		if p.QPS < 0 || math.IsNaN(p.QPS) || math.IsInf(p.QPS, 0) || math.IsNaN(p.TimeS) || math.IsInf(p.TimeS, 0) || (i == 0 && p.TimeS != 0) {
			return nil, fmt.Errorf("rate point %d {time_s: %v, qps: %v}: want qps ≥ 0 and times from 0", i+1, p.TimeS, p.QPS)
		}
		if i == 0 {
			continue
		}
		prev := points[i-1]
		if !(p.TimeS > prev.TimeS) {
			return nil, fmt.Errorf("rate point %d: time_s %v does not follow %v", i+1, p.TimeS, prev.TimeS)
		}
		out = append(out, RateSegment{Duration: time.Duration((p.TimeS - prev.TimeS) * float64(time.Second)), From: prev.QPS, To: p.QPS})
	}
	return out, nil
}
