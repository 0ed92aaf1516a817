package report

import "math"

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
func RateDistribution(events []Event, w Window) DistributionSummary {
	ss := make([]tsample, len(events))
	for i, e := range events {
		ss[i] = tsample{v: e.Time, w: e.Weight}
	}
	sortSamples(ss)
	r := newRateStream(w, make([]tsample, 0, len(ss)+2))
	for i := range ss {
		r.push(ss[i].v, ss[i].w)
	}
	return r.finish()
}

// rateStream computes a rate distribution from events pushed in time
// order, keeping only O(1) state besides the (rate, duration) pairs.
type rateStream struct {
	win     Window
	sink    []tsample // (rate, duration)
	has     bool      // a merge group is open
	gt, gw  float64   // the open group's first time and weight
	n       int       // merged events so far
	pt, pw  float64   // the last merged event, waiting for its successor
	prevMid float64
	occ     float64 // Σ merged weights
}

func newRateStream(w Window, sink []tsample) *rateStream {
	r := &rateStream{win: w, sink: sink[:0]}
	if w.HasStart && !(w.HasEnd && w.Start > w.End) {
		// GuideLLM inserts a zero-weight event at the window start (its
		// end filter drops it again when the window is inverted).
		r.merge(w.Start, 0)
	}
	return r
}

// push adds an event; events must come in non-decreasing time order.
func (r *rateStream) push(t, w float64) {
	if (r.win.HasStart && t < r.win.Start) || (r.win.HasEnd && t > r.win.End) {
		return
	}
	r.merge(t, w)
}

func (r *rateStream) merge(t, w float64) {
	if r.has && t <= r.gt+mergeThreshold {
		r.gw += w
		return
	}
	if r.has {
		r.emit(r.gt, r.gw)
	}
	r.has, r.gt, r.gw = true, t, w
}

func (r *rateStream) emit(t, w float64) {
	r.occ += w
	if r.n == 0 {
		r.pt, r.pw, r.prevMid, r.n = t, w, t, 1
		return
	}
	mid := (t + r.pt) / 2
	d := mid - r.prevMid
	r.sink = append(r.sink, tsample{v: r.pw / d, w: d})
	r.prevMid, r.pt, r.pw = mid, t, w
	r.n++
}

// finish closes the stream and summarises the rates (the distinct rates
// are merged in place in the sink).
func (r *rateStream) finish() DistributionSummary {
	if r.win.HasEnd {
		r.merge(r.win.End, 0)
	}
	if r.has {
		r.emit(r.gt, r.gw)
		r.has = false
	}
	if r.n <= 1 {
		return zeroSummary(0)
	}
	d := math.Max(r.pt-r.prevMid, weightEpsilon)
	r.sink = append(r.sink, tsample{v: r.pw / d, w: d})
	sortSamples(r.sink)
	uniq := uniqueInto(r.sink, allStatus, r.sink[:0])
	return summaryFromUnique(uniq, int64(math.RoundToEven(r.occ)))
}

// ConcurrencyDistribution computes GuideLLM's
// DistributionSummary.concurrency_distribution_from_timings: intervals
// ending before the window start or starting after its end are dropped;
// each interval adds its weight at its start and removes it at its end;
// change times are merged like rate events; the level in force at the
// window start and a closing point at the window end are added; the result
// is the distribution of the (non-negative) levels weighted by how long
// each lasted. Count is the number of intervals kept.
func ConcurrencyDistribution(iv []Interval, w Window) DistributionSummary {
	ss := make([]tsample, 0, 2*len(iv))
	kept := int64(0)
	for _, x := range iv {
		if (w.HasStart && x.End < w.Start) || (w.HasEnd && x.Start > w.End) {
			continue
		}
		kept++
		ss = append(ss, tsample{v: x.Start, w: x.Weight}, tsample{v: x.End, w: -x.Weight})
	}
	sortSamples(ss)
	c := newConcStream(w, nil)
	for i := range ss {
		c.push(ss[i].v, ss[i].w)
	}
	return c.finish(kept)
}

// concStream computes a concurrency distribution from level changes
// pushed in time order. Levels that are small non-negative integers (the
// usual case: request or token counts) are accumulated in a dense array;
// others are kept as (level, duration) pairs.
type concStream struct {
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
	dense    []float64 // duration by integer level
	maxLevel int
	pairs    []tsample // other (level, duration) pairs
}

// denseLevels bounds the integer levels kept in the dense array (which
// grows to the highest level seen).
const denseLevels = 1 << 20

func newConcStream(w Window, dense []float64) *concStream {
	return &concStream{win: w, dense: dense, maxLevel: -1}
}

// push adds a level change; changes must come in non-decreasing time
// order.
func (c *concStream) push(t, w float64) {
	if c.has && t <= c.gt+mergeThreshold {
		c.gw += w
		return
	}
	if c.has {
		c.emit(c.gt, c.gw)
	}
	c.has, c.gt, c.gw = true, t, w
}

func (c *concStream) emit(t, w float64) {
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

func (c *concStream) step(t, w float64) {
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

func (c *concStream) add(level, d float64) {
	if level >= 0 && level < denseLevels && level == math.Trunc(level) {
		i := int(level)
		if i >= len(c.dense) {
			n := max(64, 2*len(c.dense))
			for n <= i {
				n *= 2
			}
			grown := make([]float64, min(n, denseLevels))
			copy(grown, c.dense)
			c.dense = grown
		}
		c.dense[i] += d
		c.maxLevel = max(c.maxLevel, i)
		return
	}
	c.pairs = append(c.pairs, tsample{v: level, w: d})
}

// finish closes the stream; count is the number of intervals.
func (c *concStream) finish(count int64) DistributionSummary {
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
			return zeroSummary(0)
		}
		return summaryFromUnique([]tsample{{v: c.ll, w: 1}}, 1)
	}
	if !c.positive {
		c.release()
		return zeroSummary(0)
	}
	// Merge the dense levels and the other pairs into sorted distinct
	// values.
	sortSamples(c.pairs)
	var uniq []tsample
	j := 0
	for i := 0; i <= c.maxLevel; i++ {
		if c.dense[i] == 0 {
			continue
		}
		v := float64(i)
		for ; j < len(c.pairs) && c.pairs[j].v < v; j++ {
			uniq = appendPair(uniq, c.pairs[j])
		}
		uniq = appendPair(uniq, tsample{v: v, w: c.dense[i]})
	}
	for ; j < len(c.pairs); j++ {
		uniq = appendPair(uniq, c.pairs[j])
	}
	c.release()
	out := uniq[:0]
	for _, u := range uniq {
		if u.w > 0 {
			out = append(out, u)
		}
	}
	return summaryFromUnique(out, count)
}

// release clears the dense array for reuse by the next stream.
func (c *concStream) release() {
	if c.dense != nil && c.maxLevel >= 0 {
		clear(c.dense[:c.maxLevel+1])
	}
	c.maxLevel = -1
}

// appendPair appends (v, w) to sorted distinct pairs, merging equal
// values.
func appendPair(u []tsample, p tsample) []tsample {
	if n := len(u); n > 0 && u[n-1].v == p.v {
		u[n-1].w += p.w
		return u
	}
	return append(u, tsample{v: p.v, w: p.w})
}
