package stats

import (
	"math"

	"github.com/goodput-dev/goodput/report"
)

// denseValues bounds the small non-negative integer values (token counts,
// iteration counts, zero-filled values) a valueSet counts in dense arrays
// instead of sorting.
const denseValues = 1 << 20

// ValueSet collects the status-tagged weighted samples of one
// distribution with bounded memory: small non-negative integers are
// counted in dense per-status arrays, other values are appended to list
// (backed by the Finish scratch buffer) and sorted per status.
type ValueSet struct {
	list     []Tagged
	dense    *[report.NumStatus][]float64 // reused across distributions
	denseMax int
	extra    [report.NumStatus][]Tagged // value-sorted extra samples (GuideLLM's zero-filled requests)
}

func NewValueSet(buf []Tagged, dense *[report.NumStatus][]float64) *ValueSet {
	return &ValueSet{list: buf[:0], dense: dense, denseMax: -1}
}

func (vs *ValueSet) Add(v, w float64, st uint8) {
	if v >= 0 && v < denseValues && v == math.Trunc(v) && !math.Signbit(v) {
		i := int(v)
		d := vs.dense[st]
		if i >= len(d) {
			n := max(256, 2*len(d))
			for n <= i {
				n *= 2
			}
			grown := make([]float64, min(n, denseValues))
			copy(grown, d)
			vs.dense[st] = grown
			d = grown
		}
		d[i] += w
		vs.denseMax = max(vs.denseMax, i)
		return
	}
	vs.list = append(vs.list, Tagged{Value: v, Weight: w, Status: st})
}

// StatusLists are, per status, value-sorted sample lists to be merged.
type StatusLists [report.NumStatus][][]Tagged

// lists partitions and sorts the collected samples: per status, the
// sorted list segment and the dense values as a sorted list. The dense
// arrays are cleared for the next distribution.
func (vs *ValueSet) Lists() StatusLists {
	var out StatusLists
	// Partition the list by status (counting sort on 3 keys, in place).
	var counts [report.NumStatus]int
	for i := range vs.list {
		counts[vs.list[i].Status]++
	}
	var start, next [report.NumStatus]int
	pos := 0
	for st := range counts {
		start[st], next[st] = pos, pos
		pos += counts[st]
	}
	for st := 0; st < int(report.NumStatus); st++ {
		end := start[st] + counts[st]
		for next[st] < end {
			x := vs.list[next[st]]
			for int(x.Status) != st {
				d := x.Status
				vs.list[next[d]], x = x, vs.list[next[d]]
				next[d]++
			}
			vs.list[next[st]] = x
			next[st]++
		}
	}
	for st := uint8(0); st < report.NumStatus; st++ {
		seg := vs.list[start[st] : start[st]+counts[st]]
		SortSamples(seg)
		if len(seg) > 0 {
			out[st] = append(out[st], seg)
		}
		d := vs.dense[st]
		if vs.denseMax >= 0 && len(d) > 0 {
			var dl []Tagged
			for i := 0; i <= min(vs.denseMax, len(d)-1); i++ {
				if d[i] != 0 {
					dl = append(dl, Tagged{Value: float64(i), Weight: d[i]})
				}
			}
			clear(d[:min(vs.denseMax+1, len(d))])
			if len(dl) > 0 {
				out[st] = append(out[st], dl)
			}
		}
		if len(vs.extra[st]) > 0 {
			out[st] = append(out[st], vs.extra[st])
		}
	}
	vs.denseMax = -1
	return out
}

// uniqIter walks several value-sorted lists as one, merging equal values
// (weights summed) and skipping values whose merged weight is not
// positive.
type uniqIter struct {
	lists [][]Tagged
	pos   []int
}

func newUniqIter(lists [][]Tagged) *uniqIter {
	return &uniqIter{lists: lists, pos: make([]int, len(lists))}
}

func (it *uniqIter) reset() { clear(it.pos) }

func (it *uniqIter) next() (v, w float64, ok bool) {
	if len(it.lists) == 1 { // the common case: no merging across lists
		l, p := it.lists[0], it.pos[0]
		for p < len(l) {
			v, w = l[p].Value, 0
			for ; p < len(l) && l[p].Value == v; p++ {
				w += l[p].Weight
			}
			if w > 0 {
				it.pos[0] = p
				return v, w, true
			}
		}
		it.pos[0] = p
		return 0, 0, false
	}
	for {
		found := false
		for i, l := range it.lists {
			if p := it.pos[i]; p < len(l) && (!found || l[p].Value < v) {
				v, found = l[p].Value, true
			}
		}
		if !found {
			return 0, 0, false
		}
		w = 0
		for i, l := range it.lists {
			p := it.pos[i]
			for ; p < len(l) && l[p].Value == v; p++ {
				w += l[p].Weight
			}
			it.pos[i] = p
		}
		if w > 0 {
			return v, w, true
		}
	}
}

// summarizeLists is GuideLLM's from_values over the merged lists, computed in
// four streaming passes (no copy of the distinct values): their number,
// the total weight, the percentiles, mode and mean, and the variance. The
// sums follow numpy's pairwise order over the distinct values, like
// SummaryFromUnique.
func summarizeLists(lists [][]Tagged, count int64, neff, confidence float64) report.DistributionSummary {
	it := newUniqIter(lists)
	n := 0
	for {
		if _, _, ok := it.next(); !ok {
			break
		}
		n++
	}
	if n == 0 {
		return ZeroSummary(count)
	}
	it.reset()
	total := pairwisePull(n, func() float64 { _, w, _ := it.next(); return w })
	uniform := total <= weightEpsilon
	if uniform {
		total = float64(n)
	}
	prob := func(w float64) float64 {
		if uniform {
			return 1 / total
		}
		return w / total
	}
	var d report.DistributionSummary
	cum, k := 0.0, 0
	var first, last, mode, best float64
	i := 0
	it.reset()
	mean := pairwisePull(n, func() float64 {
		v, w, _ := it.next()
		p := prob(w)
		if i == 0 {
			first, mode, best = v, v, p
		}
		last = v
		i++
		cum += p
		for k < len(report.PercentileProbs) && cum >= report.PercentileProbs[k] {
			d.Percentiles.Set(k, v)
			k++
		}
		if p > best {
			mode, best = v, p
		}
		return v * p
	})
	for ; k < len(report.PercentileProbs); k++ {
		d.Percentiles.Set(k, last)
	}
	it.reset()
	variance := pairwisePull(n, func() float64 {
		v, w, _ := it.next()
		dv := v - mean
		return dv * dv * prob(w)
	})
	d.Median = *d.Percentiles.P50
	d.Mean = report.Float(mean)
	d.Mode = report.Float(mode)
	d.Variance = report.Float(variance)
	d.StdDev = report.Float(math.Sqrt(variance))
	d.Min = report.Float(first)
	d.Max = report.Float(last)
	d.Count = report.Int(count)
	d.TotalSum = report.Float(mean * float64(count))
	if confidence > 0 && !uniform {
		addIntervals(&d, it, prob, neff, confidence)
	}
	return d
}

// addIntervals sets d's mean and percentile intervals. The sample size is
// the effective number of observations of the weighted sample,
// neff = (Σw)²/Σw² (the count itself for unit weights, where every bound
// is an exact order statistic); a bound of rank r is the first value whose
// cumulative probability reaches r/neff.
func addIntervals(d *report.DistributionSummary, it *uniqIter, prob func(float64) float64, neff, confidence float64) {
	n := int64(math.Round(neff))
	if n < 1 {
		return
	}
	m := MeanCI(float64(d.Mean), float64(d.StdDev), n, confidence)
	d.MeanCI = report.NewConfidenceInterval(m.Lower, m.Upper, confidence)
	const k = len(report.PercentileProbs)
	var lo, hi [k]int64
	var lv, hv [k]float64
	for i, p := range report.PercentileProbs {
		lo[i], hi[i] = OrderStatRanks(n, p, confidence)
		lv[i], hv[i] = math.Inf(-1), math.Inf(1)
	}
	// Ranks grow with p, so one pass finds every bound.
	const eps = 1e-9
	li, hj := 0, 0
	for li < k && lo[li] < 1 {
		li++
	}
	cum := 0.0
	it.reset()
	for {
		v, w, ok := it.next()
		if !ok {
			break
		}
		cum += prob(w)
		for li < k && cum*float64(n) >= float64(lo[li])-eps {
			lv[li] = v
			li++
		}
		for hj < k && hi[hj] <= n && cum*float64(n) >= float64(hi[hj])-eps {
			hv[hj] = v
			hj++
		}
	}
	d.PercentileCIs = &report.PercentileCIs{}
	for i := range k {
		if lo[i] >= 1 && math.IsInf(lv[i], -1) { // rounding left the last rank above the total
			lv[i] = float64(d.Max)
		}
		if hi[i] <= n && math.IsInf(hv[i], 1) {
			hv[i] = float64(d.Max)
		}
		d.PercentileCIs.Set(i, report.NewConfidenceInterval(lv[i], hv[i], confidence))
	}
}

// pairwisePull is pairwiseRange over n values pulled in order.
func pairwisePull(n int, pull func() float64) float64 {
	switch {
	case n < 8:
		res := 0.0
		for i := 0; i < n; i++ {
			res += pull()
		}
		return res
	case n <= 128:
		var r [8]float64
		for j := 0; j < 8; j++ {
			r[j] = pull()
		}
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := 0; j < 8; j++ {
				r[j] += pull()
			}
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			res += pull()
		}
		return res
	default:
		n2 := n / 2
		n2 -= n2 % 8
		left := pairwisePull(n2, pull)
		return left + pairwisePull(n-n2, pull)
	}
}

// StatusSummaryLists computes a StatusDistributionSummary from per-status
// sorted lists: each status alone and all together (only the members
// selected by want; index numStatus is the total).
func StatusSummaryLists(ls StatusLists, want ...[report.NumStatus + 1]bool) *report.StatusDistributionSummary {
	return StatusSummaryListsCI(ls, 0, want...)
}

// StatusSummaryListsCI is StatusSummaryLists with the mean's and the
// percentiles' confidence intervals at confidence (none when it is 0).
func StatusSummaryListsCI(ls StatusLists, confidence float64, want ...[report.NumStatus + 1]bool) *report.StatusDistributionSummary {
	sel := [report.NumStatus + 1]bool{true, true, true, true}
	if len(want) > 0 {
		sel = want[0]
	}
	var counts, squares [report.NumStatus + 1]float64
	var all [][]Tagged
	for st := uint8(0); st < report.NumStatus; st++ {
		for _, l := range ls[st] {
			for i := range l {
				counts[st] += l[i].Weight
				squares[st] += l[i].Weight * l[i].Weight
			}
			all = append(all, l)
		}
	}
	// GuideLLM's total concatenates successful, incomplete, errored.
	counts[report.NumStatus] = counts[report.StatusSuccessful] + counts[report.StatusIncomplete] + counts[report.StatusErrored]
	squares[report.NumStatus] = squares[report.StatusSuccessful] + squares[report.StatusIncomplete] + squares[report.StatusErrored]
	neff := func(st uint8) float64 {
		if squares[st] <= 0 {
			return 0
		}
		return counts[st] * counts[st] / squares[st]
	}
	out := &report.StatusDistributionSummary{}
	for st := uint8(0); st < report.NumStatus; st++ {
		if sel[st] {
			d := summarizeLists(ls[st], int64(math.RoundToEven(counts[st])), neff(st), confidence)
			out.SetStatus(st, &d)
		}
	}
	if sel[report.NumStatus] {
		d := summarizeLists(all, int64(math.RoundToEven(counts[report.NumStatus])), neff(report.NumStatus), confidence)
		out.Total = &d
	}
	return out
}
