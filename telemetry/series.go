package telemetry

import (
	"math"
	"sort"
)

// colKind says how a column of a series is stored and merged.
type colKind uint8

const (
	// counterCol holds a cumulative counter made reset-free at ingestion:
	// a drop of the raw value is a reset, and the post-reset raw value is
	// added (the counter is assumed to restart from zero).
	counterCol colKind = iota + 1
	// gaugeCol holds a gauge: its value at each point, the cumulative
	// trapezoid integral of the gauge from the first point, and the peak raw
	// value of the block each point closes.
	gaugeCol
)

// column is one quantity of a series. Slices are parallel to series.t.
// NaN marks "absent at this point".
type column struct {
	kind colKind
	v    []float64 // counter: cumulative reset-corrected value; gauge: value at t
	area []float64 // gauge only: ∫ value dt (value·s) from the first point
	peak []float64 // gauge only: max raw value over (t[i-1], t[i]]

	// Ingestion state.
	lastRaw  float64 // counter: last raw value seen (NaN when absent)
	lastCum  float64 // counter: cumulative value at the last present point
	lastArea float64 // gauge: integral at the last point
}

// resetEvent records a counter reset, for window warnings.
type resetEvent struct {
	t   int64
	col int
}

// maxResetEvents bounds the reset log of a series.
const maxResetEvents = 32

// series is a bounded time series of quantities sampled together. Times are
// Unix nanoseconds, strictly increasing. When it holds maxPoints points it
// compacts: the oldest half (after the first point, which is kept so the
// covered span never shrinks) is merged pairwise, each pair keeping the later
// point's time and values, and the larger of the two peaks. Because counters
// and gauge integrals are stored cumulatively, values at retained points stay
// exact; only the resolution between them coarsens, and memory stays
// O(maxPoints) for any run length.
type series struct {
	maxPoints int
	t         []int64
	cols      []*column
	resets    []resetEvent
	compacted int // number of compactions so far
}

func newSeries(maxPoints int, kinds ...colKind) *series {
	s := &series{maxPoints: maxPoints, t: make([]int64, 0, 64)}
	for _, k := range kinds {
		s.addColumn(k)
	}
	return s
}

// addColumn appends a column whose history is absent (NaN) and returns its index.
func (s *series) addColumn(k colKind) int {
	c := &column{kind: k, lastRaw: math.NaN()}
	c.v = nanSlice(len(s.t), cap(s.t))
	if k == gaugeCol {
		c.area = nanSlice(len(s.t), cap(s.t))
		c.peak = nanSlice(len(s.t), cap(s.t))
	}
	s.cols = append(s.cols, c)
	return len(s.cols) - 1
}

// zeroHistory makes counter column c, absent so far, read 0 at every
// earlier point and count its next value from zero: a counter created
// after sampling began (an engine's histograms appear at its first
// request) started at zero when it appeared.
func (s *series) zeroHistory(c int) {
	col := s.cols[c]
	if col.kind != counterCol {
		return
	}
	for i, v := range col.v {
		if !math.IsNaN(v) {
			return // seen before: an absence is not a creation
		}
		col.v[i] = 0
	}
	col.lastRaw, col.lastCum = 0, 0
}

func nanSlice(n, c int) []float64 {
	v := make([]float64, n, c)
	for i := range v {
		v[i] = math.NaN()
	}
	return v
}

func (s *series) len() int { return len(s.t) }

// last returns the time of the newest point; ok is false when empty.
func (s *series) last() (int64, bool) {
	if len(s.t) == 0 {
		return 0, false
	}
	return s.t[len(s.t)-1], true
}

// first returns the time of the oldest point; ok is false when empty.
func (s *series) first() (int64, bool) {
	if len(s.t) == 0 {
		return 0, false
	}
	return s.t[0], true
}

// add appends a point at time t with one raw value per column (NaN = absent).
// It reports false, and stores nothing, when t is not after the newest point.
func (s *series) add(t int64, raw []float64) bool {
	n := len(s.t)
	if n > 0 && t <= s.t[n-1] {
		return false
	}
	if n >= s.maxPoints {
		s.compact()
		n = len(s.t)
	}
	var dt float64
	if n > 0 {
		dt = float64(t-s.t[n-1]) / 1e9
	}
	s.t = append(s.t, t)
	for i, c := range s.cols {
		r := math.NaN()
		if i < len(raw) {
			r = raw[i]
		}
		switch c.kind {
		case counterCol:
			c.v = append(c.v, s.ingestCounter(c, i, t, r))
		case gaugeCol:
			prev := math.NaN()
			if n > 0 {
				prev = c.v[n-1]
			}
			if !math.IsNaN(prev) && !math.IsNaN(r) {
				c.lastArea += dt * (prev + r) / 2
			}
			c.v = append(c.v, r)
			c.area = append(c.area, c.lastArea)
			c.peak = append(c.peak, r)
		}
	}
	return true
}

func (s *series) ingestCounter(c *column, idx int, t int64, r float64) float64 {
	switch {
	case math.IsNaN(r):
		c.lastRaw = math.NaN()
		return math.NaN()
	case math.IsNaN(c.lastRaw):
		// First value, or the counter reappeared after an absence: a new
		// baseline. Windows that span the absence are flagged invalid.
	case r >= c.lastRaw:
		c.lastCum += r - c.lastRaw
	default:
		c.lastCum += r
		if len(s.resets) == maxResetEvents {
			copy(s.resets, s.resets[1:])
			s.resets = s.resets[:maxResetEvents-1]
		}
		s.resets = append(s.resets, resetEvent{t: t, col: idx})
	}
	c.lastRaw = r
	return c.lastCum
}

// compact merges the oldest half of the points pairwise (see series).
func (s *series) compact() {
	n := len(s.t)
	half := n / 2
	if half < 2 {
		return
	}
	if half%2 == 1 {
		half--
	}
	// Points 1..half are merged in pairs (1,2), (3,4), ...; point 0 is kept.
	w := 1
	for r := 1; r+1 <= half; r += 2 {
		s.t[w] = s.t[r+1]
		for _, c := range s.cols {
			c.v[w] = c.v[r+1]
			if c.kind == gaugeCol {
				c.area[w] = c.area[r+1]
				c.peak[w] = nanMax(c.peak[r], c.peak[r+1])
			}
		}
		w++
	}
	// Shift the untouched newer points down.
	for r := half + 1; r < n; r++ {
		s.t[w] = s.t[r]
		for _, c := range s.cols {
			c.v[w] = c.v[r]
			if c.kind == gaugeCol {
				c.area[w] = c.area[r]
				c.peak[w] = c.peak[r]
			}
		}
		w++
	}
	s.t = s.t[:w]
	for _, c := range s.cols {
		c.v = c.v[:w]
		if c.kind == gaugeCol {
			c.area = c.area[:w]
			c.peak = c.peak[:w]
		}
	}
	s.compacted++
}

func nanMax(a, b float64) float64 {
	switch {
	case math.IsNaN(a):
		return b
	case math.IsNaN(b):
		return a
	}
	return math.Max(a, b)
}

// seg returns i with t[i] <= x < t[i+1]; n-1 when x >= t[n-1]; -1 when x < t[0].
func (s *series) seg(x int64) int {
	return sort.Search(len(s.t), func(i int) bool { return s.t[i] > x }) - 1
}

// span clamps [a, b] to the points' span. ok is false when they do not overlap.
func (s *series) span(a, b int64) (ca, cb int64, ok bool) {
	if len(s.t) == 0 {
		return 0, 0, false
	}
	ca, cb = max(a, s.t[0]), min(b, s.t[len(s.t)-1])
	return ca, cb, cb >= ca && (cb > ca || a == b)
}

// bracket returns the index range [lo, hi] of the points needed to evaluate
// [a, b] by interpolation (the points around and inside it). a and b must lie
// inside the span.
func (s *series) bracket(a, b int64) (lo, hi int) {
	lo = s.seg(a)
	hi = s.seg(b)
	if s.t[hi] < b {
		hi++
	}
	return max(lo, 0), min(hi, len(s.t)-1)
}

// valid reports whether column c is present at every point of [lo, hi].
func (s *series) valid(c, lo, hi int) bool {
	v := s.cols[c].v
	for i := lo; i <= hi; i++ {
		if math.IsNaN(v[i]) {
			return false
		}
	}
	return true
}

// valueAt interpolates column c linearly at x, which must lie inside the span.
func (s *series) valueAt(c int, x int64) float64 {
	i := s.seg(x)
	v := s.cols[c].v
	if i >= len(s.t)-1 || s.t[i] == x {
		return v[i]
	}
	f := float64(x-s.t[i]) / float64(s.t[i+1]-s.t[i])
	return v[i] + f*(v[i+1]-v[i])
}

// areaAt returns the integral of gauge column c from the first point to x
// (inside the span), exact for a gauge that is linear between points.
func (s *series) areaAt(c int, x int64) float64 {
	i := s.seg(x)
	col := s.cols[c]
	if i >= len(s.t)-1 || s.t[i] == x {
		return col.area[i]
	}
	p := s.valueAt(c, x)
	return col.area[i] + float64(x-s.t[i])/1e9*(col.v[i]+p)/2
}

// delta returns the counter increase of column c over [a, b] (inside the span).
func (s *series) delta(c int, a, b int64) float64 {
	return s.valueAt(c, b) - s.valueAt(c, a)
}

// mean returns the time-weighted mean of gauge column c over [a, b] (inside the
// span); for a == b it is the interpolated value.
func (s *series) mean(c int, a, b int64) float64 {
	if a == b {
		return s.valueAt(c, a)
	}
	return (s.areaAt(c, b) - s.areaAt(c, a)) / (float64(b-a) / 1e9)
}

// peakIn returns the largest value of gauge column c over [a, b] (inside the
// span): the interpolated values at both edges and the block peaks of the
// points in (a, b]. After compaction a block straddling a may include raw
// samples from just before it.
func (s *series) peakIn(c int, a, b int64) float64 {
	col := s.cols[c]
	p := nanMax(s.valueAt(c, a), s.valueAt(c, b))
	for i := s.seg(a) + 1; i < len(s.t) && s.t[i] <= b; i++ {
		p = nanMax(p, col.peak[i])
	}
	return p
}

// readingsIn returns the mean and the peak of gauge column c over the
// readings taken in [a, b] only, none interpolated from a reading outside
// (a queue gauge read just before a round belongs to the round before):
// the mean time-weighted between the first and the last reading inside, a
// lone reading its own value. ok is false when no reading lies inside.
func (s *series) readingsIn(c int, a, b int64) (mean, peak float64, ok bool) {
	col := s.cols[c]
	lo := sort.Search(len(s.t), func(i int) bool { return s.t[i] >= a })
	hi := sort.Search(len(s.t), func(i int) bool { return s.t[i] > b }) - 1
	if lo > hi {
		return math.NaN(), math.NaN(), false
	}
	peak = col.v[lo]
	for i := lo + 1; i <= hi; i++ {
		peak = nanMax(peak, col.peak[i])
	}
	if lo == hi {
		return col.v[lo], peak, true
	}
	return (col.area[hi] - col.area[lo]) / (float64(s.t[hi]-s.t[lo]) / 1e9), peak, true
}

// maxGap returns the widest spacing between consecutive points of [lo, hi]
// and the time at which it starts.
func (s *series) maxGap(lo, hi int) (gap, at int64) {
	for i := lo; i < hi; i++ {
		if d := s.t[i+1] - s.t[i]; d > gap {
			gap, at = d, s.t[i]
		}
	}
	return gap, at
}

// pointsIn counts the retained points with a <= t <= b.
func (s *series) pointsIn(a, b int64) int {
	lo := sort.Search(len(s.t), func(i int) bool { return s.t[i] >= a })
	hi := sort.Search(len(s.t), func(i int) bool { return s.t[i] > b })
	return hi - lo
}

// resetsIn returns the resets of column c with a < t <= b.
func (s *series) resetsIn(c int, a, b int64) []int64 {
	var out []int64
	for _, r := range s.resets {
		if r.col == c && r.t > a && r.t <= b {
			out = append(out, r.t)
		}
	}
	return out
}
