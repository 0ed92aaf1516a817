package merge

import (
	"math"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/stats"
)

// Combining the summaries of shards. Three models, by what the shard
// reports keep:
//
//   - histogram-backed value distributions: exact moments (count-weighted
//     mean and the parallel variance formula), exact min and max, and
//     percentiles, median and mode from the merged HDR histogram
//     (histSummary), exactly as a single histogram fed every sample would
//     give them;
//   - value distributions without histograms: exact moments, and
//     percentiles estimated from the count-weighted mixture of the shards'
//     distributions, each interpolated between its percentiles
//     (mixtureSummary); exact when one shard has data or all agree;
//   - rate and concurrency distributions, whose merged process is the sum
//     of the shards' processes: the shards' figures added as if their
//     rates moved together (sumSummary).

// momentSummary combines the count, mean, variance, min and max of
// summaries of disjoint samples exactly (up to float rounding); the
// percentiles are left zero.
func momentSummary(ds []*report.DistributionSummary) report.DistributionSummary {
	var n, mean float64
	for _, d := range ds {
		if d == nil || d.Count <= 0 {
			continue
		}
		c := float64(d.Count)
		n += c
		mean += c * float64(d.Mean)
	}
	if n == 0 {
		return stats.ZeroSummary(0)
	}
	mean /= n
	var ss float64
	first := true
	out := stats.ZeroSummary(0)
	for _, d := range ds {
		if d == nil || d.Count <= 0 {
			continue
		}
		dm := float64(d.Mean) - mean
		ss += float64(d.Count) * (float64(d.Variance) + dm*dm)
		if first || d.Min < out.Min {
			out.Min = d.Min
		}
		if first || d.Max > out.Max {
			out.Max = d.Max
		}
		first = false
	}
	variance := math.Max(ss/n, 0)
	out.Mean = report.Float(mean)
	out.Variance = report.Float(variance)
	out.StdDev = report.Float(math.Sqrt(variance))
	out.Count = report.Int(math.RoundToEven(n))
	out.TotalSum = report.Float(mean * float64(out.Count))
	return out
}

// histClamp bounds the values read from a histogram's buckets by the
// exact extremes of its samples.
type histClamp struct {
	min, max report.Float // the exact extremes, in output units
	lo, hi   float64      // the same in histogram units (ns, rounded)
	scale    float64      // histogram units per output unit
}

func (c histClamp) value(v int64) float64 {
	f := float64(v)
	switch {
	case f <= c.lo:
		return float64(c.min)
	case f >= c.hi:
		return float64(c.max)
	}
	return f / c.scale
}

// histSummary is mom (combined moments) with percentiles, median and mode
// from histogram h plus zeroW samples of value 0 (GuideLLM counts a
// request without the value as 0): each the first bucket whose cumulative
// weight reaches p, reported as the bucket's highest equivalent value
// clamped to the samples' exact extremes. With zeroW = 0 it picks exactly
// what the summary of one histogram fed every sample picks.
func histSummary(mom report.DistributionSummary, h *hdrhistogram.Histogram, zeroW int64, c histClamp) report.DistributionSummary {
	var bars []hdrhistogram.Bar
	if h != nil {
		bars = h.Distribution()
	}
	return barsSummary(mom, bars, zeroW, c)
}

// barsSummary is histSummary over a histogram's bars (h.Distribution()),
// so that one histogram's bars serve several summaries.
func barsSummary(mom report.DistributionSummary, bars []hdrhistogram.Bar, zeroW int64, c histClamp) report.DistributionSummary {
	d := mom
	if d.Count <= 0 {
		return stats.ZeroSummary(0)
	}
	total := float64(zeroW)
	for _, b := range bars {
		total += float64(b.Count)
	}
	if total == 0 { // moments without histogram samples (cannot happen for one run's shards)
		for k := range report.PercentileProbs {
			d.Percentiles.Set(k, float64(d.Mean))
		}
		d.Median, d.Mode = d.Mean, d.Mean
		return d
	}
	cum, k := 0.0, 0
	var modeCount int64 = -1
	mode := 0.0
	if zeroW > 0 {
		modeCount = zeroW
		cum = float64(zeroW)
		for k < len(report.PercentileProbs) && cum/total >= report.PercentileProbs[k] {
			d.Percentiles.Set(k, 0)
			k++
		}
	}
	for _, b := range bars {
		if b.Count == 0 {
			continue
		}
		if b.Count > modeCount {
			modeCount, mode = b.Count, c.value(b.To)
		}
		cum += float64(b.Count)
		for k < len(report.PercentileProbs) && cum/total >= report.PercentileProbs[k] {
			d.Percentiles.Set(k, c.value(b.To))
			k++
		}
	}
	for ; k < len(report.PercentileProbs); k++ {
		d.Percentiles.Set(k, float64(c.max))
	}
	d.Median = *d.Percentiles.P50
	d.Mode = report.Float(mode)
	return d
}

// percentileList returns a summary's percentiles in percentileProbs
// order.
func percentileList(d *report.DistributionSummary) [11]float64 {
	p := d.Percentiles
	p50 := 0.0
	if p.P50 != nil {
		p50 = float64(*p.P50)
	}
	return [11]float64{float64(p.P001), float64(p.P01), float64(p.P05), float64(p.P10), float64(p.P25), p50,
		float64(p.P75), float64(p.P90), float64(p.P95), float64(p.P99), float64(p.P999)}
}

// knotCDF is a distribution known by its percentiles, min and max,
// interpolated linearly between them.
type knotCDF struct {
	q, v [13]float64
}

func newKnotCDF(d *report.DistributionSummary) knotCDF {
	var c knotCDF
	ps := percentileList(d)
	c.q[0], c.v[0] = 0, float64(d.Min)
	for i, p := range report.PercentileProbs {
		c.q[i+1], c.v[i+1] = p, ps[i]
	}
	c.q[12], c.v[12] = 1, float64(d.Max)
	for i := 1; i < len(c.v); i++ { // percentiles are non-decreasing; guard against rounding
		c.v[i] = math.Max(c.v[i], c.v[i-1])
	}
	return c
}

// at is the interpolated cumulative probability at x.
func (c *knotCDF) at(x float64) float64 {
	if x < c.v[0] {
		return 0
	}
	if x >= c.v[12] {
		return 1
	}
	j := 0
	for j+1 < len(c.v) && c.v[j+1] <= x {
		j++
	}
	if j+1 < len(c.v) && c.v[j+1] > c.v[j] {
		return c.q[j] + (c.q[j+1]-c.q[j])*(x-c.v[j])/(c.v[j+1]-c.v[j])
	}
	return c.q[j]
}

// mixtureSummary combines summaries without histograms: exact moments;
// percentiles from the count-weighted mixture of the shards'
// interpolated distributions (exactly the shards' own when only one has
// data or all have the same percentiles); the mode of the largest shard.
func mixtureSummary(ds []*report.DistributionSummary) report.DistributionSummary {
	var live []*report.DistributionSummary
	for _, d := range ds {
		if d != nil && d.Count > 0 {
			live = append(live, d)
		}
	}
	out := momentSummary(live)
	if len(live) == 0 {
		return out
	}
	same := true
	big := live[0]
	for _, d := range live[1:] {
		same = same && percentileList(d) == percentileList(live[0]) && d.Mode == live[0].Mode
		if d.Count > big.Count {
			big = d
		}
	}
	if len(live) == 1 || same {
		out.Percentiles = live[0].Percentiles
		out.Median, out.Mode = live[0].Median, live[0].Mode
		return out
	}
	cdfs := make([]knotCDF, len(live))
	var xs []float64
	for i, d := range live {
		cdfs[i] = newKnotCDF(d)
		xs = append(xs, cdfs[i].v[:]...)
	}
	sortFloats(xs)
	total := float64(out.Count)
	F := func(x float64) float64 {
		s := 0.0
		for i, d := range live {
			s += float64(d.Count) * cdfs[i].at(x)
		}
		return s / total
	}
	for k, p := range report.PercentileProbs {
		m := 0
		for m < len(xs)-1 && F(xs[m]) < p {
			m++
		}
		x := xs[m]
		if m > 0 && F(xs[m-1]) < p {
			lo, hi := xs[m-1], xs[m]
			for range 64 {
				mid := lo + (hi-lo)/2
				if mid <= lo || mid >= hi {
					break
				}
				if F(mid) >= p {
					hi = mid
				} else {
					lo = mid
				}
			}
			x = hi
		}
		out.Percentiles.Set(k, x)
	}
	out.Median = *out.Percentiles.P50
	out.Mode = big.Mode
	return out
}

func sortFloats(xs []float64) {
	ss := make([]stats.Tagged, len(xs))
	for i, x := range xs {
		ss[i].Value = x
	}
	stats.SortSamples(ss)
	for i := range ss {
		xs[i] = ss[i].Value
	}
}

// sumSummary adds rate or concurrency summaries of processes running side
// by side over one window: the distribution of the sum of comonotone
// variables (as if the shards' rates moved together), whose mean, count,
// percentiles, median, mode, min, max and standard deviation are the sums
// of the shards'. The mean and count are exact for aligned windows; the
// spread is exact when the shards' rates coincide in time and wider than
// the truth for independent shards.
func sumSummary(ds []*report.DistributionSummary) report.DistributionSummary {
	out := stats.ZeroSummary(0)
	var ps [11]float64
	any := false
	for _, d := range ds {
		if d == nil || d.Count <= 0 {
			continue
		}
		any = true
		out.Mean += d.Mean
		out.StdDev += d.StdDev
		out.Min += d.Min
		out.Max += d.Max
		out.Mode += d.Mode
		out.Count += d.Count
		for i, v := range percentileList(d) {
			ps[i] += v
		}
	}
	if !any {
		return out
	}
	for i, v := range ps {
		out.Percentiles.Set(i, v)
	}
	out.Median = *out.Percentiles.P50
	out.Variance = out.StdDev * out.StdDev
	out.TotalSum = out.Mean * report.Float(out.Count)
	return out
}

// statusCombine applies a combiner status by status.
func statusCombine(ss []*report.StatusDistributionSummary, f func([]*report.DistributionSummary) report.DistributionSummary) *report.StatusDistributionSummary {
	out := &report.StatusDistributionSummary{}
	any := false
	for st := uint8(0); st <= report.NumStatus; st++ {
		var ds []*report.DistributionSummary
		for _, s := range ss {
			if s != nil {
				any = true
				ds = append(ds, s.ByStatus(st))
			}
		}
		d := f(ds)
		out.SetStatus(st, &d)
	}
	if !any {
		return nil
	}
	return out
}
