package stats

import (
	"math"

	"github.com/goodput-dev/goodput/report"
)

// mergeThreshold is GuideLLM's threshold (0.1 ms) below which neighbouring
// event times are merged into one event.
const mergeThreshold = 1e-4

// Event is a weighted point in time (Unix seconds), the input of a rate
// distribution.
type Event struct {
	Time, Weight float64
}

// Interval is a weighted time span (Unix seconds), the input of a
// concurrency distribution.
type Interval struct {
	Start, End, Weight float64
}

// Window optionally clips a rate or concurrency distribution to
// [Start, End] (Unix seconds).
type Window struct {
	Start, End       float64
	HasStart, HasEnd bool
}

// RateDistribution computes GuideLLM's
// DistributionSummary.rate_distribution_from_timings: events outside the
// window are dropped and zero-weight events are added at the window edges;
// equal times are merged, then times within 0.1 ms of the first time of a
// group are merged into it (weights summed). Each remaining event i gets
// the local duration from the midpoint with its predecessor to the
// midpoint with its successor (the first and last events get half a gap;
// the last at least 1e-6 s) and the rate weight_i/duration_i. The result is
// the distribution of those rates weighted by their durations, so its mean
// is Σ weights / (last time − first time), and Count is Σ weights.
func RateDistribution(events []Event, w Window) report.DistributionSummary {
	ss := make([]Tagged, len(events))
	for i, e := range events {
		ss[i] = Tagged{Value: e.Time, Weight: e.Weight}
	}
	SortSamples(ss)
	r := NewRateStream(w, make([]Tagged, 0, len(ss)+2))
	for i := range ss {
		r.Push(ss[i].Value, ss[i].Weight)
	}
	return r.Finish()
}

// RateStream computes a rate distribution from events pushed in time
// order, keeping only O(1) state besides the (rate, duration) pairs.
type RateStream struct {
	win     Window
	Sink    []Tagged // (rate, duration)
	has     bool     // a merge group is open
	gt, gw  float64  // the open group's first time and weight
	n       int      // merged events so far
	pt, pw  float64  // the last merged event, waiting for its successor
	prevMid float64
	occ     float64 // Σ merged weights
}

func NewRateStream(w Window, sink []Tagged) *RateStream {
	r := &RateStream{win: w, Sink: sink[:0]}
	if w.HasStart && !(w.HasEnd && w.Start > w.End) {
		// GuideLLM inserts a zero-weight event at the window start (its
		// end filter drops it again when the window is inverted).
		r.merge(w.Start, 0)
	}
	return r
}

// push adds an event; events must come in non-decreasing time order.
func (r *RateStream) Push(t, w float64) {
	if (r.win.HasStart && t < r.win.Start) || (r.win.HasEnd && t > r.win.End) {
		return
	}
	r.merge(t, w)
}

func (r *RateStream) merge(t, w float64) {
	if r.has && t <= r.gt+mergeThreshold {
		r.gw += w
		return
	}
	if r.has {
		r.emit(r.gt, r.gw)
	}
	r.has, r.gt, r.gw = true, t, w
}

func (r *RateStream) emit(t, w float64) {
	r.occ += w
	if r.n == 0 {
		r.pt, r.pw, r.prevMid, r.n = t, w, t, 1
		return
	}
	mid := (t + r.pt) / 2
	d := mid - r.prevMid
	r.Sink = append(r.Sink, Tagged{Value: r.pw / d, Weight: d})
	r.prevMid, r.pt, r.pw = mid, t, w
	r.n++
}

// finish closes the stream and summarises the rates (the distinct rates
// are merged in place in the sink).
func (r *RateStream) Finish() report.DistributionSummary {
	if r.win.HasEnd {
		r.merge(r.win.End, 0)
	}
	if r.has {
		r.emit(r.gt, r.gw)
		r.has = false
	}
	if r.n <= 1 {
		return ZeroSummary(0)
	}
	d := math.Max(r.pt-r.prevMid, weightEpsilon)
	r.Sink = append(r.Sink, Tagged{Value: r.pw / d, Weight: d})
	SortSamples(r.Sink)
	uniq := UniqueInto(r.Sink, AllStatus, r.Sink[:0])
	return SummaryFromUnique(uniq, int64(math.RoundToEven(r.occ)))
}

// ConcurrencyDistribution computes GuideLLM's
// DistributionSummary.concurrency_distribution_from_timings: intervals
// ending before the window start or starting after its end are dropped;
// each interval adds its weight at its start and removes it at its end;
// change times are merged like rate events; the level in force at the
// window start and a closing point at the window end are added; the result
// is the distribution of the (non-negative) levels weighted by how long
// each lasted. Count is the number of intervals kept.
func ConcurrencyDistribution(iv []Interval, w Window) report.DistributionSummary {
	ss := make([]Tagged, 0, 2*len(iv))
	kept := int64(0)
	for _, x := range iv {
		if (w.HasStart && x.End < w.Start) || (w.HasEnd && x.Start > w.End) {
			continue
		}
		kept++
		ss = append(ss, Tagged{Value: x.Start, Weight: x.Weight}, Tagged{Value: x.End, Weight: -x.Weight})
	}
	SortSamples(ss)
	c := NewConcStream(w, nil)
	for i := range ss {
		c.Push(ss[i].Value, ss[i].Weight)
	}
	return c.Finish(kept)
}

// ConcStream computes a concurrency distribution from level changes
// pushed in time order. Levels that are small non-negative integers (the
// usual case: request or token counts) are accumulated in a dense array;
// others are kept as (level, duration) pairs.
type ConcStream struct {
	win      Window
	has      bool
	gt, gw   float64
	events   int
	inserted bool
	prior    float64
	cum      float64
	steps    int
	lt, ll   float64 // last step's time and level
	positive bool
	Dense    []float64 // duration by integer level
	maxLevel int
	pairs    []Tagged // other (level, duration) pairs
}

// denseLevels bounds the integer levels kept in the dense array (which
// grows to the highest level seen).
const denseLevels = 1 << 20

func NewConcStream(w Window, dense []float64) *ConcStream {
	return &ConcStream{win: w, Dense: dense, maxLevel: -1}
}

// push adds a level change; changes must come in non-decreasing time
// order.
func (c *ConcStream) Push(t, w float64) {
	if c.has && t <= c.gt+mergeThreshold {
		c.gw += w
		return
	}
	if c.has {
		c.emit(c.gt, c.gw)
	}
	c.has, c.gt, c.gw = true, t, w
}

func (c *ConcStream) emit(t, w float64) {
	c.events++
	if c.win.HasStart && !c.inserted {
		if t < c.win.Start {
			c.prior += w
			return
		}
		c.inserted = true
		c.step(c.win.Start, c.prior)
	}
	if c.win.HasEnd && t > c.win.End {
		return
	}
	c.step(t, w)
}

func (c *ConcStream) step(t, w float64) {
	c.cum += w
	level := math.Max(c.cum, 0)
	if c.steps > 0 {
		d := math.Max(t-c.lt, 0)
		if d > 0 {
			c.positive = true
		}
		c.add(c.ll, d)
	}
	c.lt, c.ll = t, level
	c.steps++
}

func (c *ConcStream) add(level, d float64) {
	if level >= 0 && level < denseLevels && level == math.Trunc(level) {
		i := int(level)
		if i >= len(c.Dense) {
			n := max(64, 2*len(c.Dense))
			for n <= i {
				n *= 2
			}
			grown := make([]float64, min(n, denseLevels))
			copy(grown, c.Dense)
			c.Dense = grown
		}
		c.Dense[i] += d
		c.maxLevel = max(c.maxLevel, i)
		return
	}
	c.pairs = append(c.pairs, Tagged{Value: level, Weight: d})
}

// finish closes the stream; count is the number of intervals.
func (c *ConcStream) Finish(count int64) report.DistributionSummary {
	if c.has {
		c.emit(c.gt, c.gw)
		c.has = false
	}
	if c.events > 0 {
		if c.win.HasStart && !c.inserted {
			c.inserted = true
			c.step(c.win.Start, c.prior)
		}
		if c.win.HasEnd {
			c.step(c.win.End, 0)
		}
	}
	if c.steps <= 1 {
		c.release()
		if count == 0 || c.steps == 0 {
			return ZeroSummary(0)
		}
		return SummaryFromUnique([]Tagged{{Value: c.ll, Weight: 1}}, 1)
	}
	if !c.positive {
		c.release()
		return ZeroSummary(0)
	}
	// Merge the dense levels and the other pairs into sorted distinct
	// values.
	SortSamples(c.pairs)
	var uniq []Tagged
	j := 0
	for i := 0; i <= c.maxLevel; i++ {
		if c.Dense[i] == 0 {
			continue
		}
		v := float64(i)
		for ; j < len(c.pairs) && c.pairs[j].Value < v; j++ {
			uniq = appendPair(uniq, c.pairs[j])
		}
		uniq = appendPair(uniq, Tagged{Value: v, Weight: c.Dense[i]})
	}
	for ; j < len(c.pairs); j++ {
		uniq = appendPair(uniq, c.pairs[j])
	}
	c.release()
	out := uniq[:0]
	for _, u := range uniq {
		if u.Weight > 0 {
			out = append(out, u)
		}
	}
	return SummaryFromUnique(out, count)
}

// release clears the dense array for reuse by the next stream.
func (c *ConcStream) release() {
	if c.Dense != nil && c.maxLevel >= 0 {
		clear(c.Dense[:c.maxLevel+1])
	}
	c.maxLevel = -1
}

// appendPair appends (v, w) to sorted distinct pairs, merging equal
// values.
func appendPair(u []Tagged, p Tagged) []Tagged {
	if n := len(u); n > 0 && u[n-1].Value == p.Value {
		u[n-1].Weight += p.Weight
		return u
	}
	return append(u, Tagged{Value: p.Value, Weight: p.Weight})
}
