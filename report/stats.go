package report

import (
	"math"
)

// Sample is one weighted observation.
type Sample struct {
	Value, Weight float64
}

// zeroSummary is GuideLLM's summary of an empty distribution: every field
// zero, with the given count.
func zeroSummary(count int64) DistributionSummary {
	var d DistributionSummary
	d.Count = Int(count)
	zero := Float(0)
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
func FromValues(samples []Sample) DistributionSummary {
	if len(samples) == 0 {
		return zeroSummary(0)
	}
	ss := make([]tsample, len(samples))
	for i, s := range samples {
		ss[i] = tsample{v: s.Value, w: s.Weight}
	}
	return summarizeAll(ss, make([]tsample, 0, len(ss)))
}

// tsample is a sample tagged with the status class of its request, used
// to compute all four members of a StatusDistributionSummary from one
// sort. Rate and concurrency code also uses it for (time, weight) events.
type tsample struct {
	v  float64
	w  float64
	st uint8 // stSuccessful, stErrored or stIncomplete
}

// summarizeAll is from_values over unsorted samples of any status; ss is
// sorted in place and buf receives the distinct values.
func summarizeAll(ss []tsample, buf []tsample) DistributionSummary {
	count := 0.0
	for i := range ss {
		count += ss[i].w
	}
	sortSamples(ss)
	uniq := uniqueInto(ss, allStatus, buf[:0])
	return summaryFromUnique(uniq, int64(math.RoundToEven(count)))
}

// allStatus selects every sample in uniqueInto.
const allStatus uint8 = 255

// uniqueInto merges equal values of a value-sorted slice (only samples of
// status st, or all when st is allStatus), summing their weights in input
// order, drops values whose merged weight is not positive, and appends the
// result to buf.
func uniqueInto(ss []tsample, st uint8, buf []tsample) []tsample {
	for i := 0; i < len(ss); {
		v, w := ss[i].v, 0.0
		j := i
		for ; j < len(ss) && ss[j].v == v; j++ {
			if st == allStatus || ss[j].st == st {
				w += ss[j].w
			}
		}
		if w > 0 {
			buf = append(buf, tsample{v: v, w: w})
		}
		i = j
	}
	return buf
}

// summaryFromUnique is GuideLLM's from_pdf over sorted distinct values and
// their positive weights (uniq[i].v, uniq[i].w); count is the observation
// count to report. uniq's weights are overwritten with probabilities.
func summaryFromUnique(uniq []tsample, count int64) DistributionSummary {
	n := len(uniq)
	if n == 0 {
		return zeroSummary(count)
	}
	total := pairwiseFn(n, func(i int) float64 { return uniq[i].w })
	if total <= weightEpsilon {
		for i := range uniq {
			uniq[i].w = 1
		}
		total = float64(n)
	}
	for i := range uniq {
		uniq[i].w /= total
	}
	var d DistributionSummary
	// Percentiles: first index whose cumulative probability is >= p
	// (numpy searchsorted, side left, on the running sum).
	cum, k := 0.0, 0
	mode, best := uniq[0].v, uniq[0].w
	for i := range uniq {
		p := uniq[i].w
		cum += p
		for k < len(percentileProbs) && cum >= percentileProbs[k] {
			d.Percentiles.set(k, uniq[i].v)
			k++
		}
		if p > best {
			mode, best = uniq[i].v, p
		}
	}
	for ; k < len(percentileProbs); k++ { // rounding left the last p above the total
		d.Percentiles.set(k, uniq[n-1].v)
	}
	d.Median = *d.Percentiles.P50
	mean := pairwiseFn(n, func(i int) float64 { return uniq[i].v * uniq[i].w })
	variance := pairwiseFn(n, func(i int) float64 {
		dv := uniq[i].v - mean
		return dv * dv * uniq[i].w
	})
	d.Mean = Float(mean)
	d.Mode = Float(mode)
	d.Variance = Float(variance)
	d.StdDev = Float(math.Sqrt(variance))
	d.Min = Float(uniq[0].v)
	d.Max = Float(uniq[n-1].v)
	d.Count = Int(count)
	d.TotalSum = Float(mean * float64(count))
	return d
}

// pairwiseSum adds a the way numpy's sum does for a contiguous float64
// array (see pairwiseFn).
func pairwiseSum(a []float64) float64 {
	return pairwiseFn(len(a), func(i int) float64 { return a[i] })
}

// pairwiseFn adds f(0) … f(n-1) the way numpy's pairwise sum does for a
// contiguous float64 array (blocks of up to 128 summed with eight
// accumulators, larger ranges split in halves at a multiple of 8), so sums
// and means agree with GuideLLM's bit for bit when the inputs do.
func pairwiseFn(n int, f func(i int) float64) float64 {
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
