package stats

import (
	"math"

	"github.com/goodput-dev/goodput/report"
)

// Sample is one weighted observation.
type Sample struct {
	Value, Weight float64
}

// ZeroSummary is GuideLLM's summary of an empty distribution: every field
// zero, with the given count.
func ZeroSummary(count int64) report.DistributionSummary {
	var d report.DistributionSummary
	d.Count = report.Int(count)
	zero := report.Float(0)
	d.Percentiles.P50 = &zero
	return d
}

// weightEpsilon is GuideLLM's epsilon: a distribution whose total weight
// is at most this is treated as uniform over its values.
const weightEpsilon = 1e-6

// FromValues computes GuideLLM's DistributionSummary.from_values over
// weighted samples: values are sorted, equal values merged (weights
// summed), values with non-positive total weight dropped, and the
// remaining weights normalised into a probability mass function. Mean,
// variance and std_dev are the weighted population statistics; the
// percentiles (and the median, which is p50) are the first value whose
// cumulative probability reaches p, without interpolation; the mode is the
// value with the largest total weight (the smallest such value on a tie);
// Count is Σ weights rounded half to even. No samples give all zeros.
func FromValues(samples []Sample) report.DistributionSummary {
	if len(samples) == 0 {
		return ZeroSummary(0)
	}
	ss := make([]Tagged, len(samples))
	for i, s := range samples {
		ss[i] = Tagged{Value: s.Value, Weight: s.Weight}
	}
	return summarizeAll(ss, make([]Tagged, 0, len(ss)))
}

// Tagged is a sample tagged with the status class of its request, used
// to compute all four members of a StatusDistributionSummary from one
// sort. Rate and concurrency code also uses it for (time, weight) events.
type Tagged struct {
	Value  float64
	Weight float64
	Status uint8 // stSuccessful, stErrored or stIncomplete
}

// summarizeAll is from_values over unsorted samples of any status; ss is
// sorted in place and buf receives the distinct values.
func summarizeAll(ss []Tagged, buf []Tagged) report.DistributionSummary {
	count := 0.0
	for i := range ss {
		count += ss[i].Weight
	}
	SortSamples(ss)
	uniq := UniqueInto(ss, AllStatus, buf[:0])
	return SummaryFromUnique(uniq, int64(math.RoundToEven(count)))
}

// AllStatus selects every sample in UniqueInto.
const AllStatus uint8 = 255

// UniqueInto merges equal values of a value-sorted slice (only samples of
// status st, or all when st is allStatus), summing their weights in input
// order, drops values whose merged weight is not positive, and appends the
// result to buf.
func UniqueInto(ss []Tagged, st uint8, buf []Tagged) []Tagged {
	for i := 0; i < len(ss); {
		v, w := ss[i].Value, 0.0
		j := i
		for ; j < len(ss) && ss[j].Value == v; j++ {
			if st == AllStatus || ss[j].Status == st {
				w += ss[j].Weight
			}
		}
		if w > 0 {
			buf = append(buf, Tagged{Value: v, Weight: w})
		}
		i = j
	}
	return buf
}

// SummaryFromUnique is GuideLLM's from_pdf over sorted distinct values and
// their positive weights (uniq[i].v, uniq[i].w); count is the observation
// count to report. uniq's weights are overwritten with probabilities.
func SummaryFromUnique(uniq []Tagged, count int64) report.DistributionSummary {
	n := len(uniq)
	if n == 0 {
		return ZeroSummary(count)
	}
	total := PairwiseFn(n, func(i int) float64 { return uniq[i].Weight })
	if total <= weightEpsilon {
		for i := range uniq {
			uniq[i].Weight = 1
		}
		total = float64(n)
	}
	for i := range uniq {
		uniq[i].Weight /= total
	}
	var d report.DistributionSummary
	// Percentiles: first index whose cumulative probability is >= p
	// (numpy searchsorted, side left, on the running sum).
	cum, k := 0.0, 0
	mode, best := uniq[0].Value, uniq[0].Weight
	for i := range uniq {
		p := uniq[i].Weight
		cum += p
		for k < len(report.PercentileProbs) && cum >= report.PercentileProbs[k] {
			d.Percentiles.Set(k, uniq[i].Value)
			k++
		}
		if p > best {
			mode, best = uniq[i].Value, p
		}
	}
	for ; k < len(report.PercentileProbs); k++ { // rounding left the last p above the total
		d.Percentiles.Set(k, uniq[n-1].Value)
	}
	d.Median = *d.Percentiles.P50
	mean := PairwiseFn(n, func(i int) float64 { return uniq[i].Value * uniq[i].Weight })
	variance := PairwiseFn(n, func(i int) float64 {
		dv := uniq[i].Value - mean
		return dv * dv * uniq[i].Weight
	})
	d.Mean = report.Float(mean)
	d.Mode = report.Float(mode)
	d.Variance = report.Float(variance)
	d.StdDev = report.Float(math.Sqrt(variance))
	d.Min = report.Float(uniq[0].Value)
	d.Max = report.Float(uniq[n-1].Value)
	d.Count = report.Int(count)
	d.TotalSum = report.Float(mean * float64(count))
	return d
}

// PairwiseSum adds a the way numpy's sum does for a contiguous float64
// array (see pairwiseFn).
func PairwiseSum(a []float64) float64 {
	return PairwiseFn(len(a), func(i int) float64 { return a[i] })
}

// PairwiseFn adds f(0) … f(n-1) the way numpy's pairwise sum does for a
// contiguous float64 array (blocks of up to 128 summed with eight
// accumulators, larger ranges split in halves at a multiple of 8), so sums
// and means agree with GuideLLM's bit for bit when the inputs do.
func PairwiseFn(n int, f func(i int) float64) float64 {
	return pairwiseRange(0, n, f)
}

func pairwiseRange(lo, n int, f func(i int) float64) float64 {
	switch {
	case n < 8:
		res := 0.0
		for i := lo; i < lo+n; i++ {
			res += f(i)
		}
		return res
	case n <= 128:
		var r [8]float64
		for j := 0; j < 8; j++ {
			r[j] = f(lo + j)
		}
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := 0; j < 8; j++ {
				r[j] += f(lo + i + j)
			}
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			res += f(lo + i)
		}
		return res
	default:
		n2 := n / 2
		n2 -= n2 % 8
		return pairwiseRange(lo, n2, f) + pairwiseRange(lo+n2, n-n2, f)
	}
}
