package report

import "math"

// denseValues bounds the small non-negative integer values (token counts,
// iteration counts, zero-filled values) a valueSet counts in dense arrays
// instead of sorting.
const denseValues = 1 << 20

// valueSet collects the status-tagged weighted samples of one
// distribution with bounded memory: small non-negative integers are
// counted in dense per-status arrays, other values are appended to list
// (backed by the Finish scratch buffer) and sorted per status.
type valueSet struct {
	list     []tsample
	dense    *[numStatus][]float64 // reused across distributions
	denseMax int
	extra    [numStatus][]tsample // value-sorted extra samples (GuideLLM's zero-filled requests)
}

func newValueSet(buf []tsample, dense *[numStatus][]float64) *valueSet {
	return &valueSet{list: buf[:0], dense: dense, denseMax: -1}
}

func (vs *valueSet) add(v, w float64, st uint8) {
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
	vs.list = append(vs.list, tsample{v: v, w: w, st: st})
}

// statusLists are, per status, value-sorted sample lists to be merged.
type statusLists [numStatus][][]tsample

// lists partitions and sorts the collected samples: per status, the
// sorted list segment and the dense values as a sorted list. The dense
// arrays are cleared for the next distribution.
func (vs *valueSet) lists() statusLists {
	var out statusLists
	// Partition the list by status (counting sort on 3 keys, in place).
	var counts [numStatus]int
	for i := range vs.list {
		counts[vs.list[i].st]++
	}
	var start, next [numStatus]int
	pos := 0
	for st := range counts {
		start[st], next[st] = pos, pos
		pos += counts[st]
	}
	for st := 0; st < int(numStatus); st++ {
		end := start[st] + counts[st]
		for next[st] < end {
			x := vs.list[next[st]]
			for int(x.st) != st {
				d := x.st
				vs.list[next[d]], x = x, vs.list[next[d]]
				next[d]++
			}
			vs.list[next[st]] = x
			next[st]++
		}
	}
	for st := uint8(0); st < numStatus; st++ {
		seg := vs.list[start[st] : start[st]+counts[st]]
		sortSamples(seg)
		if len(seg) > 0 {
			out[st] = append(out[st], seg)
		}
		d := vs.dense[st]
		if vs.denseMax >= 0 && len(d) > 0 {
			var dl []tsample
			for i := 0; i <= min(vs.denseMax, len(d)-1); i++ {
				if d[i] != 0 {
					dl = append(dl, tsample{v: float64(i), w: d[i]})
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
	lists [][]tsample
	pos   []int
}

func newUniqIter(lists [][]tsample) *uniqIter {
	return &uniqIter{lists: lists, pos: make([]int, len(lists))}
}

func (it *uniqIter) reset() { clear(it.pos) }

func (it *uniqIter) next() (v, w float64, ok bool) {
	if len(it.lists) == 1 { // the common case: no merging across lists
		l, p := it.lists[0], it.pos[0]
		for p < len(l) {
			v, w = l[p].v, 0
			for ; p < len(l) && l[p].v == v; p++ {
				w += l[p].w
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
			if p := it.pos[i]; p < len(l) && (!found || l[p].v < v) {
				v, found = l[p].v, true
			}
		}
		if !found {
			return 0, 0, false
		}
		w = 0
		for i, l := range it.lists {
			p := it.pos[i]
			for ; p < len(l) && l[p].v == v; p++ {
				w += l[p].w
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
// summaryFromUnique.
func summarizeLists(lists [][]tsample, count int64) DistributionSummary {
	it := newUniqIter(lists)
	n := 0
	for {
		if _, _, ok := it.next(); !ok {
			break
		}
		n++
	}
	if n == 0 {
		return zeroSummary(count)
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
	var d DistributionSummary
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
		for k < len(percentileProbs) && cum >= percentileProbs[k] {
			d.Percentiles.set(k, v)
			k++
		}
		if p > best {
			mode, best = v, p
		}
		return v * p
	})
	for ; k < len(percentileProbs); k++ {
		d.Percentiles.set(k, last)
	}
	it.reset()
	variance := pairwisePull(n, func() float64 {
		v, w, _ := it.next()
		dv := v - mean
		return dv * dv * prob(w)
	})
	d.Median = *d.Percentiles.P50
	d.Mean = Float(mean)
	d.Mode = Float(mode)
	d.Variance = Float(variance)
	d.StdDev = Float(math.Sqrt(variance))
	d.Min = Float(first)
	d.Max = Float(last)
	d.Count = Int(count)
	d.TotalSum = Float(mean * float64(count))
	return d
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

// statusSummaryLists computes a StatusDistributionSummary from per-status
// sorted lists: each status alone and all together (only the members
// selected by want; index numStatus is the total).
func statusSummaryLists(ls statusLists, want ...[numStatus + 1]bool) *StatusDistributionSummary {
	sel := [numStatus + 1]bool{true, true, true, true}
	if len(want) > 0 {
		sel = want[0]
	}
	var counts [numStatus + 1]float64
	var all [][]tsample
	for st := uint8(0); st < numStatus; st++ {
		for _, l := range ls[st] {
			for i := range l {
				counts[st] += l[i].w
			}
			all = append(all, l)
		}
	}
	// GuideLLM's total concatenates successful, incomplete, errored.
	counts[numStatus] = counts[stSuccessful] + counts[stIncomplete] + counts[stErrored]
	out := &StatusDistributionSummary{}
	for st := uint8(0); st < numStatus; st++ {
		if sel[st] {
			d := summarizeLists(ls[st], int64(math.RoundToEven(counts[st])))
			out.set(st, &d)
		}
	}
	if sel[numStatus] {
		d := summarizeLists(all, int64(math.RoundToEven(counts[numStatus])))
		out.Total = &d
	}
	return out
}
