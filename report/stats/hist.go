package stats

import (
	"fmt"
	"math"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/goodput-dev/goodput/report"
)

// HDR histogram geometry used for every goodput histogram: values are
// integers (nanoseconds for times), 1 .. 24 h, 3 significant digits (a
// recorded value is kept to within 0.1%).
const (
	HistLowest            = 1
	HistHighest           = 24 * 3600 * 1_000_000_000
	HistSignificantDigits = 3
	// HistEncoding names the serialisation of goodput's histograms: the
	// HdrHistogram V2 compressed encoding, base64 (what
	// hdrhistogram.Histogram.Encode and hdrhistogram.Decode produce and
	// read, and what HdrHistogram's Java, C and Python ports exchange).
	HistEncoding = "hdrhistogram-v2-compressed-base64"
)

func NewHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(HistLowest, HistHighest, HistSignificantDigits)
}

// HistAcc is an HDR histogram plus exact running moments (weight, sum and
// sum of squares shifted by the first value, min, max), so that the
// summary's mean, variance, min, max and count are exact and only the
// percentiles and mode come from the histogram buckets.
type HistAcc struct {
	Hist     *hdrhistogram.Histogram
	Total    float64 // Σ weights
	shift    float64 // first value, subtracted before summing (precision)
	sum, sq  float64 // Σ w·(v−shift), Σ w·(v−shift)²
	Min, Max int64
	Clamped  int64   // values outside [0, HistHighest] recorded at the edge
	Squares  float64 // Σ weights², for the effective sample size of the intervals
	off      int64   // added to values before they enter the histogram (for signed values)
}

func NewHistAcc() *HistAcc { return &HistAcc{Hist: NewHistogram()} }

// record adds value v (an integer, nanoseconds for times) with integer
// weight w. Negative values (clock skew) and values above the range are
// clamped into the histogram and counted in clamped; the exact moments
// keep the true value.
func (a *HistAcc) Record(v, w int64) {
	if w <= 0 {
		return
	}
	if a.Total == 0 {
		a.shift = float64(v)
		a.Min, a.Max = v, v
	}
	if v < a.Min {
		a.Min = v
	}
	if v > a.Max {
		a.Max = v
	}
	d := float64(v) - a.shift
	fw := float64(w)
	a.Total += fw
	a.Squares += fw * fw
	a.sum += fw * d
	a.sq += fw * d * d
	hv := v + a.off
	switch {
	case hv < 0:
		hv = 0
		a.Clamped += w
	case hv > HistHighest:
		hv = HistHighest
		a.Clamped += w
	}
	_ = a.Hist.RecordValues(hv, w) // cannot fail: hv is in range and w > 0
}

// merge adds b into a.
func (a *HistAcc) Merge(b *HistAcc) {
	if b == nil || b.Total == 0 {
		return
	}
	if a.Total == 0 {
		a.shift, a.Min, a.Max = b.shift, b.Min, b.Max
	}
	// Re-centre b's sums on a's shift: Σw(v−s_a) = Σw(v−s_b) + n_b(s_b−s_a).
	delta := b.shift - a.shift
	sum := b.sum + b.Total*delta
	sq := b.sq + 2*delta*b.sum + b.Total*delta*delta
	a.Total += b.Total
	a.Squares += b.Squares
	a.sum += sum
	a.sq += sq
	a.Min = min(a.Min, b.Min)
	a.Max = max(a.Max, b.Max)
	a.Clamped += b.Clamped
	a.Hist.Merge(b.Hist)
}

// summary is the DistributionSummary of the recorded values divided by
// scale (1e6 for nanoseconds to milliseconds): exact mean, variance,
// min, max, count and total_sum; percentiles (GuideLLM's rule: the first
// bucket whose cumulative weight reaches p) and mode from the histogram,
// reported as the bucket's highest equivalent value clamped to the exact
// min and max.
func (a *HistAcc) Summary(scale float64) report.DistributionSummary {
	if a == nil || a.Total == 0 {
		return ZeroSummary(0)
	}
	mean := a.shift + a.sum/a.Total
	variance := math.Max(a.sq/a.Total-(a.sum/a.Total)*(a.sum/a.Total), 0)
	var d report.DistributionSummary
	d.Mean = report.Float(mean / scale)
	d.Variance = report.Float(variance / (scale * scale))
	d.StdDev = report.Float(math.Sqrt(variance) / scale)
	d.Min = report.Float(float64(a.Min) / scale)
	d.Max = report.Float(float64(a.Max) / scale)
	d.Count = report.Int(math.RoundToEven(a.Total))
	d.TotalSum = report.Float(float64(d.Mean) * float64(d.Count))
	clampV := func(v int64) float64 {
		v -= a.off
		return float64(min(max(v, a.Min), a.Max)) / scale
	}
	bars := a.Hist.Distribution()
	total := float64(a.Hist.TotalCount())
	cum, k := 0.0, 0
	var modeCount int64 = -1
	var mode int64
	for _, b := range bars {
		if b.Count == 0 {
			continue
		}
		if b.Count > modeCount {
			modeCount, mode = b.Count, b.To
		}
		cum += float64(b.Count)
		for k < len(report.PercentileProbs) && cum/total >= report.PercentileProbs[k] {
			d.Percentiles.Set(k, clampV(b.To))
			k++
		}
	}
	for ; k < len(report.PercentileProbs); k++ {
		d.Percentiles.Set(k, float64(a.Max)/scale)
	}
	d.Median = *d.Percentiles.P50
	d.Mode = report.Float(clampV(mode))
	return d
}

// EncodeHistogram serialises h in goodput's histogram encoding
// (HistEncoding).
func EncodeHistogram(h *hdrhistogram.Histogram) (string, error) {
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", fmt.Errorf("encoding histogram: %w", err)
	}
	return string(b), nil
}

// DecodeHistogram reads a histogram written by EncodeHistogram.
func DecodeHistogram(s string) (*hdrhistogram.Histogram, error) {
	h, err := hdrhistogram.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("decoding histogram: %w", err)
	}
	return h, nil
}

// MergeHistograms decodes serialised histograms and adds them into one
// (for example the same metric from several runs or shards). Empty strings
// are skipped. It fails if a histogram cannot be decoded or if any of its
// values do not fit goodput's geometry.
func MergeHistograms(encoded ...string) (*hdrhistogram.Histogram, error) {
	out := NewHistogram()
	for i, s := range encoded {
		if s == "" {
			continue
		}
		h, err := DecodeHistogram(s)
		if err != nil {
			return nil, fmt.Errorf("histogram %d: %w", i, err)
		}
		if dropped := out.Merge(h); dropped != 0 {
			return nil, fmt.Errorf("histogram %d: %d values outside the range 1..%d", i, dropped, int64(HistHighest))
		}
	}
	return out, nil
}

// SummaryCI is Summary with the mean's and the percentiles' confidence
// intervals (at confidence; none when it is 0). The sample size is the
// effective number of observations (Σw)²/Σw² (the count for unit
// weights); a percentile bound of rank r is the first bucket whose
// cumulative share reaches r/n, a lower bound its lowest equivalent value
// and an upper bound its highest (so the histogram widens an interval by
// at most its precision, never narrows it).
func (a *HistAcc) SummaryCI(scale, confidence float64) report.DistributionSummary {
	d := a.Summary(scale)
	if confidence <= 0 || a == nil || a.Total == 0 || a.Squares <= 0 {
		return d
	}
	n := int64(math.Round(a.Total * a.Total / a.Squares))
	if n < 1 {
		return d
	}
	m := MeanCI(float64(d.Mean), float64(d.StdDev), n, confidence)
	d.MeanCI = report.NewConfidenceInterval(m.Lower, m.Upper, confidence)
	bars := a.Hist.Distribution()
	total := float64(a.Hist.TotalCount())
	at := func(r int64, low bool) float64 {
		cum := 0.0
		for _, b := range bars {
			cum += float64(b.Count)
			if b.Count > 0 && cum*float64(n) >= float64(r)*total-1e-9*total {
				v := b.To
				if low {
					v = b.From
				}
				v -= a.off
				return float64(min(max(v, a.Min), a.Max)) / scale
			}
		}
		return float64(a.Max) / scale
	}
	d.PercentileCIs = &report.PercentileCIs{}
	for i, p := range report.PercentileProbs {
		lo, hi := OrderStatRanks(n, p, confidence)
		l, u := math.Inf(-1), math.Inf(1)
		if lo >= 1 {
			l = at(lo, true)
		}
		if hi <= n {
			u = at(hi, false)
		}
		d.PercentileCIs.Set(i, report.NewConfidenceInterval(l, u, confidence))
	}
	return d
}

// HistogramSummary re-derives a DistributionSummary from a histogram
// alone, with values divided by scale (1e6: nanoseconds to milliseconds).
// Unlike the summaries in a report, its mean and variance are computed
// from the bucket values too (each bucket's highest equivalent value, so
// within 0.1%); min and max are the histogram's.
func HistogramSummary(h *hdrhistogram.Histogram, scale float64) report.DistributionSummary {
	a := &HistAcc{Hist: h}
	for _, b := range h.Distribution() {
		if b.Count <= 0 {
			continue
		}
		if a.Total == 0 {
			a.shift = float64(b.To)
		}
		d := float64(b.To) - a.shift
		fw := float64(b.Count)
		a.Total += fw
		a.sum += fw * d
		a.sq += fw * d * d
	}
	if a.Total > 0 {
		a.Min, a.Max = h.Min(), h.Max()
	}
	return a.Summary(scale)
}

// MergeHistogramSets merges the goodput histograms of several benchmarks
// (shards of one run, or repeated runs) metric by metric and status by
// status. The sets must use goodput's encoding and geometry.
func MergeHistogramSets(sets ...*report.Histograms) (*report.Histograms, error) {
	out := &report.Histograms{Encoding: HistEncoding, Unit: "ns", LowestDiscernible: HistLowest, HighestTrackable: HistHighest,
		SignificantDigits: HistSignificantDigits, Metrics: map[string]*report.StatusHistograms{}}
	byMetric := map[string][3][]string{}
	for i, s := range sets {
		if s == nil {
			continue
		}
		if s.Encoding != HistEncoding || s.Unit != "ns" || s.LowestDiscernible != HistLowest ||
			s.HighestTrackable != HistHighest || s.SignificantDigits != HistSignificantDigits {
			return nil, fmt.Errorf("histogram set %d: encoding %q unit %q geometry %d..%d/%d, want %s ns %d..%d/%d", i,
				s.Encoding, s.Unit, s.LowestDiscernible, s.HighestTrackable, s.SignificantDigits,
				HistEncoding, int64(HistLowest), int64(HistHighest), HistSignificantDigits)
		}
		out.Clamped += s.Clamped
		for name, sh := range s.Metrics {
			if sh == nil {
				continue
			}
			e := byMetric[name]
			e[0] = append(e[0], sh.Successful)
			e[1] = append(e[1], sh.Errored)
			e[2] = append(e[2], sh.Incomplete)
			byMetric[name] = e
		}
	}
	for name, e := range byMetric {
		var sh report.StatusHistograms
		for st, encs := range e {
			h, err := MergeHistograms(encs...)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			if h.TotalCount() == 0 {
				continue
			}
			enc, err := EncodeHistogram(h)
			if err != nil {
				return nil, err
			}
			switch st {
			case 0:
				sh.Successful = enc
			case 1:
				sh.Errored = enc
			default:
				sh.Incomplete = enc
			}
		}
		out.Metrics[name] = &sh
	}
	return out, nil
}
