package compare

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// dist is the empirical distribution of a histogram: bucket values (the
// bucket's highest equivalent value clamped to the histogram's min and
// max, as stats.HistogramSummary reads them) and cumulative counts.
type dist struct {
	values []float64 // ascending, in the histogram's unit divided by scale
	cum    []float64 // cumulative counts
}

func newDist(h *hdrhistogram.Histogram, scale float64) (dist, error) {
	var d dist
	lo, hi := h.Min(), h.Max()
	c := 0.0
	for _, b := range h.Distribution() {
		if b.Count <= 0 {
			continue
		}
		v := min(max(b.To, lo), hi)
		c += float64(b.Count)
		d.values = append(d.values, float64(v)/scale)
		d.cum = append(d.cum, c)
	}
	if c == 0 {
		return d, errors.New("empty histogram")
	}
	return d, nil
}

func (d dist) total() float64 { return d.cum[len(d.cum)-1] }

// quantile is F⁻¹(u): the first value whose cumulative probability reaches
// u (GuideLLM's percentile rule).
func (d dist) quantile(u float64) float64 {
	t := u * d.total()
	i := sort.SearchFloat64s(d.cum, t)
	if i >= len(d.values) {
		i = len(d.values) - 1
	}
	return d.values[i]
}

// Interval is a confidence interval of a percentile. An end is open
// (unbounded) when the run has too few requests beyond the percentile for
// any of its values to bound it with the interval's confidence: the
// upper end when p^n > (1−confidence)/2 (e.g. p99 of fewer than 368
// requests, p95 of fewer than 72), the lower end when (1−p)^n exceeds it.
// Low and High then hold the bootstrap's bounds, the sample's extremes.
type Interval struct {
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
	LowOpen  bool    `json:"low_unbounded,omitempty"`
	HighOpen bool    `json:"high_unbounded,omitempty"`

	// needLow and needHigh are, for an open end, the fewest requests that
	// would bound it at the interval's confidence (0 when bounded).
	needLow, needHigh int
}

// above says the interval lies entirely above o.
func (i Interval) above(o Interval) bool { return !i.LowOpen && !o.HighOpen && i.Low > o.High }

// percentileCI is a seeded percentile-bootstrap confidence interval of the
// p-th percentile of a sample of n values drawn from d.
//
// A bootstrap resample is n values drawn with replacement from d, and its
// p-th percentile (the first value whose cumulative share reaches p) is
// its k-th smallest value, k = ⌈p·n⌉. The k-th smallest of n independent
// draws from d is distributed as F⁻¹(U), U the k-th smallest of n
// uniforms, which is Beta(k, n−k+1). Drawing U directly gives exactly the
// distribution of the resampled percentile at the cost of one beta draw
// per resample instead of n draws and a selection.
//
// The bootstrap cannot reach beyond the sample's extremes; where the
// extremes are too close to the percentile to bound it (see Interval),
// the end is marked open.
func percentileCI(d dist, p float64, n, resamples int, confidence float64, rng *rand.Rand) Interval {
	k := int(math.Ceil(p*float64(n) - 1e-9))
	k = min(max(k, 1), n)
	a, b := float64(k), float64(n-k+1)
	draws := make([]float64, resamples)
	for i := range draws {
		draws[i] = d.quantile(betaDraw(rng, a, b))
	}
	slices.Sort(draws)
	alpha := (1 - confidence) / 2
	li := int(math.Ceil(alpha*float64(resamples))) - 1
	hi := int(math.Ceil((1-alpha)*float64(resamples))) - 1
	li = min(max(li, 0), resamples-1)
	hi = min(max(hi, 0), resamples-1)
	ci := Interval{
		Low: draws[li], High: draws[hi],
		LowOpen:  math.Pow(1-p, float64(n)) > alpha,
		HighOpen: math.Pow(p, float64(n)) > alpha,
	}
	if ci.LowOpen {
		ci.needLow = boundingSize(1-p, alpha)
	}
	if ci.HighOpen {
		ci.needHigh = boundingSize(p, alpha)
	}
	return ci
}

// boundingSize is the fewest requests n with q^n ≤ alpha: the sample that
// has, with probability 1 − alpha, a request beyond the percentile on the
// side whose share is 1 − q (q = p for the upper end of the p-th
// percentile: 368 for a p99 at 95 %, 72 for a p95, 36 for a p90).
func boundingSize(q, alpha float64) int {
	if q <= 0 {
		return 1
	}
	n := int(math.Ceil(math.Log(alpha) / math.Log(q)))
	for n > 1 && math.Pow(q, float64(n-1)) <= alpha {
		n--
	}
	for math.Pow(q, float64(n)) > alpha {
		n++
	}
	return n
}

// betaDraw draws from Beta(a, b), a, b ≥ 1, as X/(X+Y) of two gamma
// variates.
func betaDraw(rng *rand.Rand, a, b float64) float64 {
	x := gammaDraw(rng, a)
	y := gammaDraw(rng, b)
	return x / (x + y)
}

// gammaDraw draws from Gamma(shape, 1), shape ≥ 1 (Marsaglia and Tsang,
// "A simple method for generating gamma variables", 2000).
func gammaDraw(rng *rand.Rand, shape float64) float64 {
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		x2 := x * x
		if u < 1-0.0331*x2*x2 {
			return d * v
		}
		if math.Log(u) < 0.5*x2+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}
