package htmlreport

import (
	"fmt"
	"math"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/goodput-dev/goodput/metric"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/stats"
)

// cdfResolution bounds the points of one CDF curve: a point is kept when
// it moves at least 1/cdfResolution of the x span (log span on a log axis)
// or 100/cdfResolution percentage points from the last kept one.
const cdfResolution = 200

// cdfTicks is the HDR percentile iterator's ticks per half distance: the
// CDF is sampled every 2.5% of the samples below the median, then ever
// more finely towards the tail (1.25% up to P75, 0.625% up to P87.5, …),
// about 20 points per halving of the remaining share.
const cdfTicks = 20

// cdfFromHistogram returns the CDF of a histogram of nanoseconds as
// points (milliseconds, cumulative percent), starting at 0% at the lowest
// value, thinned for drawing. Each point is a bucket's highest value and
// the exact share of samples at or below it. Time and memory do not grow
// with the histogram's range.
func cdfFromHistogram(h *hdrhistogram.Histogram) []point {
	total := float64(h.TotalCount())
	if total <= 0 {
		return nil
	}
	all := []point{{x: float64(h.Min()) / 1e6, y: 0}}
	if all[0].x <= 0 {
		all = all[:0]
	}
	for _, b := range h.CumulativeDistributionWithTicks(cdfTicks) {
		if b.Count <= 0 {
			continue
		}
		p := point{x: float64(b.ValueAt) / 1e6, y: 100 * math.Min(float64(b.Count)/total, 1)}
		if n := len(all); n > 1 && all[n-1].x == p.x { // all[0] is the 0% start: keep it
			all[n-1].y = math.Max(all[n-1].y, p.y)
			continue
		}
		all = append(all, p)
	}
	return thinCDF(all)
}

// thinCDF drops points closer than the resolution to the previous kept
// one (in log x when every x is positive), always keeping the first and
// the last.
func thinCDF(pts []point) []point {
	if len(pts) <= 2 {
		return pts
	}
	logX := pts[0].x > 0
	tx := func(x float64) float64 {
		if logX {
			return math.Log10(x)
		}
		return x
	}
	span := tx(pts[len(pts)-1].x) - tx(pts[0].x)
	if !(span > 0) {
		return []point{pts[0], pts[len(pts)-1]}
	}
	out := []point{pts[0]}
	last := pts[0]
	for i := 1; i < len(pts)-1; i++ {
		p := pts[i]
		if (tx(p.x)-tx(last.x))/span >= 1.0/cdfResolution || p.y-last.y >= 100.0/cdfResolution {
			out = append(out, p)
			last = p
		}
	}
	return append(out, pts[len(pts)-1])
}

// cdfFromPercentiles is the coarse CDF that a distribution's percentile
// keys give (GuideLLM's p001 … p999): the p-th percentile value at p%.
func cdfFromPercentiles(d *report.DistributionSummary) []point {
	if d == nil || d.Count <= 0 {
		return nil
	}
	var pts []point
	for _, p := range []float64{0.1, 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9} {
		if v := pctOf(d, p); !math.IsNaN(v) {
			pts = append(pts, point{x: v, y: p})
		}
	}
	return pts
}

// distMetric is one latency distribution the page draws per round.
type distMetric struct {
	key, title, hist string
	slo              func(*runView) float64 // SLO threshold in ms (NaN: none)
	extras           func(*report.ExtraMetrics) *report.StatusDistributionSummary
	guide            func(*report.Metrics) *report.StatusDistributionSummary // nil: goodput only
	about            string
}

var distMetrics = [...]distMetric{
	latencyDist(metric.TTFT, "Time to first token", func(v *runView) float64 { return v.slo.ttftMs },
		"one sample per successful request"),
	latencyDist(metric.ITL, "Inter-token latency (per request)", func(v *runView) float64 { return v.slo.itlMs },
		"each request's (last token − first token) ÷ (output tokens − 1), weighted by its tokens, as the SLO judges ITL"),
	{key: "gap", title: "Gap between chunks (every gap)", hist: report.HistITLPerGap,
		slo:    func(*runView) float64 { return math.NaN() },
		extras: func(x *report.ExtraMetrics) *report.StatusDistributionSummary { return x.ITLPerGapMs },
		about:  "every gap between consecutive token-bearing chunks of every successful request: stalls show here, averaged away in the per-request ITL"},
}

// latencyDist is the row of a latency metric of the metric table.
func latencyDist(l *metric.Latency, title string, slo func(*runView) float64, about string) distMetric {
	return distMetric{key: l.Key, title: title, hist: l.Hist, slo: slo, about: about,
		extras: func(x *report.ExtraMetrics) *report.StatusDistributionSummary { return l.OfExtra(x) },
		guide:  func(m *report.Metrics) *report.StatusDistributionSummary { return l.Of(m) }}
}

// renderDistributions writes a CDF chart per latency metric, one curve per
// round: from goodput's HDR histograms, else from the percentile keys.
func renderDistributions(p *page, v *runView) {
	h3(p, v, "dist", "Latency distributions")
	if len(v.rounds) == 0 {
		p.note("No round to plot.")
		return
	}
	for _, m := range distMetrics {
		c := &chart{id: v.id + "-cdf-" + m.key, title: m.title + " CDF per round",
			x: axis{label: m.title + " (ms)"}, y: axis{label: "Requests at or below (%)", zero: true, max: 5}, height: 220}
		fromHist, fromPct, fromGuide := 0, 0, 0
		var failed []string
		for k, r := range v.rounds {
			s := series{name: r.name(), kind: stepSeries, color: k}
			if pts, err := histCDF(r.b, m.hist); err != nil {
				failed = append(failed, r.name()+": "+err.Error())
			} else if pts != nil {
				s.pts = pts
				fromHist++
			}
			if s.pts == nil && r.b.Extras != nil {
				if d := m.extras(&r.b.Extras.Metrics); d != nil {
					s.pts, s.kind, s.dots = cdfFromPercentiles(d.Successful), lineSeries, true
					if s.pts != nil {
						fromPct++
					}
				}
			}
			if s.pts == nil && m.guide != nil {
				if d := m.guide(&r.b.Metrics); d != nil {
					s.pts, s.kind, s.dots = cdfFromPercentiles(d.Successful), lineSeries, true
					if s.pts != nil {
						fromGuide++
					}
				}
			}
			if s.pts == nil {
				continue
			}
			c.series = append(c.series, s)
		}
		if len(c.series) == 0 {
			msg := m.title + ": no distribution in this report."
			if len(failed) > 0 {
				msg += " Histograms could not be read: " + clip(joinMax(failed, 3), 400)
			}
			p.note(msg)
			continue
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, s := range c.series {
			for _, pt := range s.pts {
				if pt.x > 0 && usable(pt.x) {
					lo, hi = math.Min(lo, pt.x), math.Max(hi, pt.x)
				}
			}
		}
		if hi/lo > 20 {
			c.x.log = true
			c.x.label = m.title + " (ms, log scale)"
		} else {
			c.x.zero = true
		}
		if thr := m.slo(v); !math.IsNaN(thr) {
			c.vlines = append(c.vlines, refLine{v: thr, label: "SLO " + fmtNum(thr) + " ms"})
		}
		capt := m.title + ": " + m.about + ". "
		switch {
		case fromHist > 0 && fromPct+fromGuide == 0:
			capt += "Curves from goodput's HDR histograms (values within 0.1%)."
		case fromHist == 0 && fromGuide == 0:
			capt += "Curves through the report's 11 percentiles (P0.1 … P99.9), not full distributions."
		case fromHist == 0:
			capt += "Curves through the report's 11 percentiles (P0.1 … P99.9), not full distributions; GuideLLM's percentiles count a missing value as 0."
		default:
			capt += "Step curves from goodput's HDR histograms; curves with dots through the 11 percentiles where a round has no histogram."
		}
		if len(failed) > 0 {
			capt += " Histograms that could not be read: " + clip(joinMax(failed, 3), 300)
		}
		p.figure(c, capt)
	}
}

// histCDF is the CDF of the successful requests' histogram of metric
// key, nil when the benchmark has none.
func histCDF(b *report.Benchmark, key string) ([]point, error) {
	if b.Extras == nil || b.Extras.Histograms == nil {
		return nil, nil
	}
	hs := b.Extras.Histograms
	sh := hs.Metrics[key]
	if sh == nil || sh.Successful == "" {
		return nil, nil
	}
	if hs.Unit != "" && hs.Unit != "ns" {
		return nil, fmt.Errorf("unit %q, want ns", clip(hs.Unit, 20))
	}
	h, err := stats.DecodeHistogram(sh.Successful)
	if err != nil {
		return nil, err
	}
	// Only goodput's geometry: it bounds the buckets iterated, and the
	// sample count keeps percentiles below 100% distinct in float64 (the
	// HDR percentile iterator never ends when they are not).
	if h.HighestTrackableValue() > stats.HistHighest || h.SignificantFigures() > stats.HistSignificantDigits || h.TotalCount() > maxHistSamples {
		return nil, fmt.Errorf("histogram of %d samples, values up to %d ns, %d digits: not goodput's geometry (up to %d ns, %d digits)",
			h.TotalCount(), h.HighestTrackableValue(), h.SignificantFigures(), int64(stats.HistHighest), stats.HistSignificantDigits)
	}
	return cdfFromHistogram(h), nil
}

// maxHistSamples bounds the samples of a histogram the page draws (far
// beyond any run: a million requests per second for thirty years).
const maxHistSamples = 1e15

// joinMax joins up to n items, saying how many more there are.
func joinMax(items []string, n int) string {
	out := ""
	for i, s := range items {
		if i == n {
			out += "; and " + fmtNum(float64(len(items)-n)) + " more"
			break
		}
		if i > 0 {
			out += "; "
		}
		out += s
	}
	return out
}
