package aiperf

import (
	"math"
	"slices"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/goodput-dev/goodput/report/stats"
)

// Percentiles are the percentiles AIPerf reports for a record metric
// (keys p1 … p99), in this order.
var Percentiles = [9]int{1, 5, 10, 25, 50, 75, 90, 95, 99}

// aiperfStats are AIPerf's statistics of one record metric in the
// metric's base unit (AIPerf computes them there and converts each one to
// the display unit afterwards).
type aiperfStats struct {
	n                   int64
	avg, sum, std       float64
	min, max            float64
	pct                 [9]float64
	exact               bool
	clamped             int64 // values outside the histogram's range (inexact only)
	histogramResolution float64
}

// numpyPercentile is numpy.percentile(sorted, p) with numpy's default
// method ("linear"): the virtual index (n−1)·p/100 between the two
// neighbouring order statistics, interpolated with numpy's _lerp (which
// computes b − (b−a)·(1−t) instead of a + (b−a)·t when t ≥ 0.5).
// sorted must be sorted ascending and not empty.
func numpyPercentile(sorted []float64, p int) float64 {
	n := len(sorted)
	vi := float64(n-1) * (float64(p) / 100)
	lo := math.Floor(vi)
	t := vi - lo
	i := int(lo)
	if i >= n-1 {
		return sorted[n-1]
	}
	return numpyLerp(sorted[i], sorted[i+1], t)
}

// numpyLerp is numpy's _lerp(a, b, t).
func numpyLerp(a, b, t float64) float64 {
	d := b - a
	if t >= 0.5 {
		return b - d*(1-t)
	}
	return a + d*t
}

// numpyStats computes AIPerf's statistics over vals (sorted in place):
// min and max, the pairwise (numpy) sum and its mean, the population
// standard deviation as numpy.std computes it (ddof=0: the mean of the
// squared deviations from the pairwise mean, each sum pairwise), and the
// percentiles as numpy.percentile computes them.
func numpyStats(vals []float64) aiperfStats {
	slices.Sort(vals)
	n := len(vals)
	st := aiperfStats{n: int64(n), exact: true}
	if n == 0 {
		return st
	}
	st.sum = stats.PairwiseSum(vals)
	st.avg = st.sum / float64(n)
	mean := st.avg
	sq := stats.PairwiseFn(n, func(i int) float64 {
		d := vals[i] - mean
		return d * d
	})
	st.std = math.Sqrt(sq / float64(n))
	st.min, st.max = vals[0], vals[n-1]
	for k, p := range Percentiles {
		st.pct[k] = numpyPercentile(vals, p)
	}
	return st
}

// aiperfValues collects the values of one record metric in its base unit:
// every value up to cap, then (when more arrive) an HDR histogram with
// exact running moments. Values are recorded in the histogram as
// round((v + offset) · resolution), so resolution is the number of
// histogram steps per base unit (1 for nanoseconds and tokens) and offset
// makes signed metrics non-negative.
type aiperfValues struct {
	vals       []float64
	cap        int
	resolution float64
	offset     float64

	h              *hdrhistogram.Histogram // nil until the cap is exceeded
	n              int64
	shift, s1, s2  float64 // Σ(v−shift), Σ(v−shift)² once spilled
	min, max       float64
	clamped        int64
	spilledAtLeast int64 // values beyond the cap (for the inexact reason)
}

func newAIPerfValues(cap int, resolution, offset float64) *aiperfValues {
	return &aiperfValues{cap: cap, resolution: resolution, offset: offset}
}

// add records one value.
func (a *aiperfValues) add(v float64) {
	if a.h == nil {
		if len(a.vals) < a.cap {
			a.vals = append(a.vals, v)
			return
		}
		a.spill()
	}
	a.record(v)
}

// spill moves the exact values into the histogram.
func (a *aiperfValues) spill() {
	a.h = stats.NewHistogram()
	for _, v := range a.vals {
		a.record(v)
	}
	a.spilledAtLeast = int64(len(a.vals))
	a.vals = nil
}

func (a *aiperfValues) record(v float64) {
	if a.n == 0 {
		a.shift, a.min, a.max = v, v, v
	}
	a.n++
	d := v - a.shift
	a.s1 += d
	a.s2 += d * d
	a.min = math.Min(a.min, v)
	a.max = math.Max(a.max, v)
	x := math.Round((v + a.offset) * a.resolution)
	switch {
	case !(x >= 0):
		x = 0
		a.clamped++
	case x > stats.HistHighest:
		x = stats.HistHighest
		a.clamped++
	}
	_ = a.h.RecordValue(int64(x)) // in range by construction
}

// count is the number of values recorded.
func (a *aiperfValues) count() int64 {
	if a.h == nil {
		return int64(len(a.vals))
	}
	return a.n
}

// stats computes AIPerf's statistics: exactly (numpyStats) while every
// value is kept; beyond the cap, count, sum, mean, min, max and the
// population standard deviation from the exact running moments and the
// percentiles by the same linear interpolation between order statistics
// read from the histogram (each the highest value of its bucket, within
// 0.1%, clamped to the exact min and max).
func (a *aiperfValues) stats() aiperfStats {
	if a.h == nil {
		return numpyStats(a.vals)
	}
	n := float64(a.n)
	st := aiperfStats{n: a.n, min: a.min, max: a.max, clamped: a.clamped, histogramResolution: a.resolution}
	st.sum = a.shift*n + a.s1
	st.avg = a.shift + a.s1/n
	st.std = math.Sqrt(math.Max(a.s2/n-(a.s1/n)*(a.s1/n), 0))
	// The ranks each percentile interpolates between, in ascending order.
	type need struct {
		rank int64
		val  float64
	}
	ranks := make([]need, 0, 2*len(Percentiles))
	for _, p := range Percentiles {
		vi := float64(a.n-1) * (float64(p) / 100)
		lo := int64(math.Floor(vi))
		ranks = append(ranks, need{rank: lo}, need{rank: min(lo+1, a.n-1)})
	}
	order := make([]int, len(ranks))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int { return int(ranks[x].rank - ranks[y].rank) })
	var cum int64
	k := 0
	for _, b := range a.h.Distribution() {
		if b.Count == 0 {
			continue
		}
		cum += b.Count
		v := math.Min(math.Max(float64(b.To)/a.resolution-a.offset, a.min), a.max)
		for k < len(order) && ranks[order[k]].rank < cum {
			ranks[order[k]].val = v
			k++
		}
	}
	for ; k < len(order); k++ {
		ranks[order[k]].val = a.max
	}
	for i, p := range Percentiles {
		vi := float64(a.n-1) * (float64(p) / 100)
		t := vi - math.Floor(vi)
		st.pct[i] = numpyLerp(ranks[2*i].val, ranks[2*i+1].val, t)
	}
	return st
}
