package report

import (
	"encoding/json"
	"math"
)

// Percentiles are GuideLLM's percentile keys. P50 is a pointer only so that
// GuideLLM v0.2–v0.3 reports, which have no p50 key, read back with the
// value absent; every distribution goodput computes sets it.
type Percentiles struct {
	P001 Float  `json:"p001"`
	P01  Float  `json:"p01"`
	P05  Float  `json:"p05"`
	P10  Float  `json:"p10"`
	P25  Float  `json:"p25"`
	P50  *Float `json:"p50"`
	P75  Float  `json:"p75"`
	P90  Float  `json:"p90"`
	P95  Float  `json:"p95"`
	P99  Float  `json:"p99"`
	P999 Float  `json:"p999"`
}

// percentileProbs are the probabilities of the Percentiles fields, in
// field order.
var percentileProbs = [11]float64{0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999}

func (p *Percentiles) set(i int, v float64) {
	f := Float(v)
	switch i {
	case 0:
		p.P001 = f
	case 1:
		p.P01 = f
	case 2:
		p.P05 = f
	case 3:
		p.P10 = f
	case 4:
		p.P25 = f
	case 5:
		p.P50 = &f
	case 6:
		p.P75 = f
	case 7:
		p.P90 = f
	case 8:
		p.P95 = f
	case 9:
		p.P99 = f
	case 10:
		p.P999 = f
	}
}

func (p *Percentiles) get(i int) Float {
	switch i {
	case 0:
		return p.P001
	case 1:
		return p.P01
	case 2:
		return p.P05
	case 3:
		return p.P10
	case 4:
		return p.P25
	case 6:
		return p.P75
	case 7:
		return p.P90
	case 8:
		return p.P95
	case 9:
		return p.P99
	}
	return p.P999
}

// Percentile returns percentile pct (in percent: 0.1, 1, 5, …, 99.9) of
// d, and false when the report does not carry that percentile (or d is
// nil). The 50th is p50, or the median in a report without p50.
func (d *DistributionSummary) Percentile(pct float64) (float64, bool) {
	if d == nil {
		return math.NaN(), false
	}
	for i, pr := range percentileProbs {
		if math.Abs(pr*100-pct) > 1e-9 {
			continue
		}
		if i == 5 {
			if d.Percentiles.P50 != nil {
				return float64(*d.Percentiles.P50), true
			}
			return float64(d.Median), true
		}
		return float64(d.Percentiles.get(i)), true
	}
	return math.NaN(), false
}

// DistributionSummary is GuideLLM's DistributionSummary. Count is the sum
// of the sample weights (so it is in tokens for token-weighted metrics),
// TotalSum is Mean×Count, and PDF is always null in goodput's output (it
// is kept verbatim when a GuideLLM report carries one).
type DistributionSummary struct {
	Mean        Float           `json:"mean"`
	Median      Float           `json:"median"`
	Mode        Float           `json:"mode"`
	Variance    Float           `json:"variance"`
	StdDev      Float           `json:"std_dev"`
	Min         Float           `json:"min"`
	Max         Float           `json:"max"`
	Count       Int             `json:"count"`
	TotalSum    Float           `json:"total_sum"`
	Percentiles Percentiles     `json:"percentiles"`
	PDF         json.RawMessage `json:"pdf"`
}

// StatusDistributionSummary is GuideLLM's per-status breakdown of a
// distribution. A nil member is a key absent from the source report.
type StatusDistributionSummary struct {
	Successful *DistributionSummary `json:"successful"`
	Errored    *DistributionSummary `json:"errored"`
	Incomplete *DistributionSummary `json:"incomplete"`
	Total      *DistributionSummary `json:"total"`
}

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

// Status indexes used by tagged samples.
const (
	stSuccessful uint8 = iota
	stErrored
	stIncomplete
	numStatus
)

func (s *StatusDistributionSummary) get(st uint8) *DistributionSummary {
	switch st {
	case stSuccessful:
		return s.Successful
	case stErrored:
		return s.Errored
	case stIncomplete:
		return s.Incomplete
	}
	return s.Total
}

func (s *StatusDistributionSummary) set(st uint8, d *DistributionSummary) {
	switch st {
	case stSuccessful:
		s.Successful = d
	case stErrored:
		s.Errored = d
	case stIncomplete:
		s.Incomplete = d
	default:
		s.Total = d
	}
}
