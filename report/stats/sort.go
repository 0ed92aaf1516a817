package stats

import "math"

// sortKey maps a float64 to a uint64 whose unsigned order is the numeric
// order (NaN never occurs here).
func sortKey(v float64) uint64 {
	b := math.Float64bits(v)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// SortSamples sorts ss by value in place: an MSD radix sort on the
// order-preserving bits of the values (American flag sort, 8-bit digits),
// with insertion sort for small buckets. It needs no extra memory beyond a
// few KB of stack, which keeps Finish's memory bounded.
func SortSamples(ss []Tagged) {
	if len(ss) < 2 {
		return
	}
	var and, or uint64 = ^uint64(0), 0
	for i := range ss {
		k := sortKey(ss[i].Value)
		and &= k
		or |= k
	}
	diff := and ^ or
	if diff == 0 {
		return
	}
	shift := 56
	for (diff>>uint(shift))&0xff == 0 {
		shift -= 8
	}
	flagSort(ss, shift)
}

func flagSort(ss []Tagged, shift int) {
	if len(ss) <= 48 {
		insertionSortSamples(ss)
		return
	}
	var count [256]int
	for i := range ss {
		count[(sortKey(ss[i].Value)>>uint(shift))&0xff]++
	}
	var start, next [256]int
	pos := 0
	for b := 0; b < 256; b++ {
		start[b] = pos
		next[b] = pos
		pos += count[b]
	}
	for b := 0; b < 256; b++ {
		end := start[b] + count[b]
		for next[b] < end {
			x := ss[next[b]]
			d := int((sortKey(x.Value) >> uint(shift)) & 0xff)
			for d != b {
				ss[next[d]], x = x, ss[next[d]]
				next[d]++
				d = int((sortKey(x.Value) >> uint(shift)) & 0xff)
			}
			ss[next[b]] = x
			next[b]++
		}
	}
	if shift == 0 {
		return
	}
	for b := 0; b < 256; b++ {
		if count[b] > 1 {
			flagSort(ss[start[b]:start[b]+count[b]], shift-8)
		}
	}
}

func insertionSortSamples(ss []Tagged) {
	for i := 1; i < len(ss); i++ {
		x := ss[i]
		j := i
		for ; j > 0 && ss[j-1].Value > x.Value; j-- {
			ss[j] = ss[j-1]
		}
		ss[j] = x
	}
}
