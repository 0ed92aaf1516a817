package telemetry

import (
	"math"
	"sort"
)

// Bucket is one cumulative histogram bucket: Count observations ≤ UpperBound.
type Bucket struct {
	UpperBound float64 // +Inf for the last bucket
	Count      float64
}

// HistogramQuantile returns the q-quantile (0 ≤ q ≤ 1) of cumulative buckets
// the way PromQL's histogram_quantile does for classic histograms:
//   - buckets are sorted by upper bound, and the last must be +Inf;
//   - counts are made monotonic (a lower count after a higher one is raised);
//   - the rank q × total is located in the first bucket whose cumulative
//     count reaches it, and the result is interpolated linearly between the
//     bucket's lower bound (the previous upper bound, or 0 for the first
//     bucket when its upper bound is positive) and its upper bound;
//   - a rank in the +Inf bucket returns the highest finite upper bound.
//
// It returns NaN with fewer than two buckets, no +Inf bucket, or no
// observations; -Inf for q < 0 and +Inf for q > 1. One deliberate
// difference: when the located bucket holds no observations (possible only
// for q = 0) it returns the bucket's lower bound where PromQL returns NaN.
func HistogramQuantile(q float64, buckets []Bucket) float64 {
	switch {
	case math.IsNaN(q):
		return math.NaN()
	case q < 0:
		return math.Inf(-1)
	case q > 1:
		return math.Inf(1)
	}
	if len(buckets) < 2 {
		return math.NaN()
	}
	b := append([]Bucket(nil), buckets...)
	sort.Slice(b, func(i, j int) bool { return b[i].UpperBound < b[j].UpperBound })
	if !math.IsInf(b[len(b)-1].UpperBound, 1) {
		return math.NaN()
	}
	for i := 1; i < len(b); i++ {
		if b[i].Count < b[i-1].Count {
			b[i].Count = b[i-1].Count
		}
	}
	total := b[len(b)-1].Count
	if !(total > 0) {
		return math.NaN()
	}
	rank := q * total
	i := sort.Search(len(b)-1, func(i int) bool { return b[i].Count >= rank })
	if i == len(b)-1 {
		return b[len(b)-2].UpperBound
	}
	if i == 0 && b[0].UpperBound <= 0 {
		return b[0].UpperBound
	}
	lower, upper, count := 0.0, b[i].UpperBound, b[i].Count
	if i > 0 {
		lower = b[i-1].UpperBound
		count -= b[i-1].Count
		rank -= b[i-1].Count
	}
	if count <= 0 {
		return lower
	}
	return lower + (upper-lower)*(rank/count)
}
