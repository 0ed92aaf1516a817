package mock

import (
	"container/heap"
	"math"
	"slices"
	"time"
)

// The virtual-time simulator drives the engine's batcher (the same compose
// and complete the real engine runs) with a virtual clock, so the analytic
// model can be checked against the exact engine rules without timer noise.

// vArrival is a request arriving at t (seconds) from stream s.
type vArrival struct {
	t float64
	s int
}

type vArrivals []vArrival

func (h vArrivals) Len() int           { return len(h) }
func (h vArrivals) Less(i, j int) bool { return h[i].t < h[j].t }
func (h vArrivals) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *vArrivals) Push(x any)        { *h = append(*h, x.(vArrival)) }
func (h *vArrivals) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// measured is what a simulation (virtual or real) measured over its window.
type measured struct {
	ttftP99, itlP95, itlMean, e2eP99 time.Duration
	tokensPerSec                     float64
	requests                         int
	maxWaiting                       int
}

// nearestRank returns the nearest-rank q-quantile of xs (sorted in place).
func nearestRank(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	slices.Sort(xs)
	i := int(math.Ceil(q*float64(len(xs)))) - 1
	return xs[min(max(i, 0), len(xs)-1)]
}

// vsimConfig describes one virtual run.
type vsimConfig struct {
	m        CapacityModel
	w        Workload
	streams  int     // closed loop: number of streams (0 for open loop)
	stagger  float64 // closed loop: first arrivals spread evenly over this (s)
	rate     float64 // open loop: constant arrival rate (req/s)
	turn     float64 // closed loop: client turnaround after the last chunk (s)
	warmup   float64 // requests arriving before are not measured (s)
	duration float64 // requests arriving after are not measured (s); the run continues until they end

	keepTTFTs bool
	ttfts     []float64
}

// vsim runs the batcher in virtual time.
func vsim(c *vsimConfig) measured {
	b := newBatcher(&c.m)
	tpc := max(c.w.TokensPerChunk, 1)
	steps := (c.w.OutputTokens + tpc - 1) / tpc
	var arr vArrivals
	if c.streams > 0 {
		for s := range c.streams {
			arr = append(arr, vArrival{t: c.stagger * float64(s) / float64(c.streams), s: s})
		}
	} else {
		for i := 0; float64(i)/c.rate < c.duration+1e-9; i++ {
			arr = append(arr, vArrival{t: float64(i) / c.rate, s: -1})
		}
	}
	heap.Init(&arr)

	type inflight struct {
		q  *seq
		at float64
		s  int
	}
	var (
		t, endMeasured float64
		n              int64
		ends           []float64
		live           []inflight
		ttfts, gaps    []float64
		e2es           []float64
		tokens         int
		res            measured
	)
	firstEnd, lastEnd := math.Inf(1), 0.0
	for {
		for arr.Len() > 0 && arr[0].t <= t {
			a := heap.Pop(&arr).(vArrival)
			q := newSeq(c.w.PromptTokens-c.w.CachedTokens, steps, c.w.OutputTokens, tpc)
			q.cached = c.w.CachedTokens
			q.state = seqNew
			b.enqueue(q)
			live = append(live, inflight{q: q, at: a.t, s: a.s})
		}
		res.maxWaiting = max(res.maxWaiting, b.nWaiting)
		if b.idle() {
			if arr.Len() == 0 {
				break
			}
			t = arr[0].t
			continue
		}
		plan := b.compose(n)
		end := t + plan.dur.Seconds()
		b.complete()
		ends = append(ends, end)
		keep := live[:0]
		for _, r := range live {
			if !r.q.done.Load() {
				keep = append(keep, r)
				continue
			}
			f := r.q.first.Load()
			measuredReq := r.at >= c.warmup && r.at < c.duration
			if measuredReq {
				ttfts = append(ttfts, ends[f]-r.at)
				for i := f + 1; i < f+int64(steps); i++ {
					gaps = append(gaps, ends[i]-ends[i-1])
				}
				e2es = append(e2es, end-r.at)
				tokens += c.w.OutputTokens
				res.requests++
				firstEnd = min(firstEnd, ends[f])
				lastEnd = max(lastEnd, end)
				endMeasured = end
			}
			if r.s >= 0 && r.at < c.duration {
				heap.Push(&arr, vArrival{t: end + c.turn, s: r.s})
			}
		}
		live = keep
		t = end
		n++
		if arr.Len() == 0 && len(live) == 0 {
			break
		}
	}
	_ = endMeasured
	sec := func(x float64) time.Duration { return time.Duration(math.Round(x * 1e9)) }
	if c.keepTTFTs {
		c.ttfts = slices.Clone(ttfts)
	}
	res.ttftP99 = sec(nearestRank(ttfts, 0.99))
	res.e2eP99 = sec(nearestRank(e2es, 0.99))
	if len(gaps) > 0 {
		sum := 0.0
		for _, g := range gaps {
			sum += g
		}
		res.itlMean = sec(sum / float64(len(gaps)))
		res.itlP95 = sec(nearestRank(gaps, 0.95))
	}
	// Throughput over the measured requests' arrivals: tokens of requests
	// arriving in [warmup, duration) per second of that window.
	res.tokensPerSec = float64(tokens) / (c.duration - c.warmup)
	return res
}
