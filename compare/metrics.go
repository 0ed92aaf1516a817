package compare

import (
	"fmt"

	"github.com/goodput-dev/goodput/metric"
	"github.com/goodput-dev/goodput/report"
)

// Metric keys: the rows of a benchmark comparison, in table order. A
// latency row's key is its metric's key and statistic (the request latency
// is "latency" here, as in the --max-latency-p99-increase flag).
var (
	MetricGoodput    = "goodput"
	MetricThroughput = "throughput"
	MetricTTFTP50    = metric.TTFT.Key + "_p50"
	MetricTTFTP90    = metric.TTFT.Key + "_p90"
	MetricTTFTP99    = metric.TTFT.Key + "_p99"
	MetricITLP50     = metric.ITL.Key + "_p50"
	MetricITLP95     = metric.ITL.Key + "_p95"
	MetricLatencyP99 = "latency_p99"
	MetricErrorRate  = "error_rate"
	// Session rows: only in pairs whose benchmarks both ran sessions
	// (conversations). Session goodput is the share of sessions whose
	// every turn met the SLO; the later turns' TTFT is the mean over
	// turns ≥ 1 (what the prefix cache shortens); the hit rate is cached
	// ÷ prompt tokens.
	MetricSessionGoodput = "session_goodput"
	MetricLaterTurnTTFT  = metric.TTFT.Key + "_later_turns_mean"
	MetricCacheHitRate   = "prefix_cache_hit_rate"
	// MetricKnee gates the knee's load (the knee section).
	MetricKnee = "knee"
)

// MetricSpec describes one gated metric: its row, its threshold flag and
// the threshold's default.
type MetricSpec struct {
	Key   string // e.g. "ttft_p99"
	Title string // e.g. "TTFT p99 (ms)"
	// Flag is the command-line flag of its threshold, e.g.
	// "max-ttft-p99-increase"; Default its default value.
	Flag, Default string
	// HigherIsBetter: throughput-like (a drop is a regression) or
	// latency-like (an increase is).
	HigherIsBetter bool
	// Accept lists the threshold forms it takes.
	Accept []LimitKind
	// lat and pct are the latency metric and percentile of a latency row
	// (nil for the others), read from GuideLLM's field and, for the noise
	// estimate, from the metric's histogram; perToken says the histogram
	// is token-weighted (one value per token, resampled per request).
	lat      *metric.Latency
	pct      float64
	perToken bool
	// sessions: a session row, left out of a pair (and its limit out of
	// the result) unless both benchmarks ran sessions.
	sessions bool
}

// hist is the histogram of the noise estimate, "" for none.
func (s MetricSpec) hist() string {
	if s.lat == nil {
		return ""
	}
	return s.lat.Hist
}

// specs are the metrics, in table order. The knee is last (it is not a
// benchmark row).
var specs = []MetricSpec{
	{Key: MetricGoodput, Title: "Goodput (out tok/s)", Flag: "max-goodput-drop", Default: "5%", HigherIsBetter: true,
		Accept: []LimitKind{LimitPercent}},
	{Key: MetricThroughput, Title: "Throughput (out tok/s)", Flag: "max-throughput-drop", Default: "5%", HigherIsBetter: true,
		Accept: []LimitKind{LimitPercent}},
	{Key: MetricTTFTP50, Title: "TTFT p50 (ms)", Flag: "max-ttft-p50-increase", Default: "10%",
		Accept: []LimitKind{LimitPercent, LimitDuration}, lat: metric.TTFT, pct: 0.50},
	{Key: MetricTTFTP90, Title: "TTFT p90 (ms)", Flag: "max-ttft-p90-increase", Default: "10%",
		Accept: []LimitKind{LimitPercent, LimitDuration}, lat: metric.TTFT, pct: 0.90},
	{Key: MetricTTFTP99, Title: "TTFT p99 (ms)", Flag: "max-ttft-p99-increase", Default: "10%",
		Accept: []LimitKind{LimitPercent, LimitDuration}, lat: metric.TTFT, pct: 0.99},
	{Key: MetricITLP50, Title: "ITL p50 (ms)", Flag: "max-itl-p50-increase", Default: "10%",
		Accept: []LimitKind{LimitPercent, LimitDuration}, lat: metric.ITL, pct: 0.50, perToken: true},
	{Key: MetricITLP95, Title: "ITL p95 (ms)", Flag: "max-itl-p95-increase", Default: "10%",
		Accept: []LimitKind{LimitPercent, LimitDuration}, lat: metric.ITL, pct: 0.95, perToken: true},
	{Key: MetricLatencyP99, Title: "Latency p99 (ms)", Flag: "max-latency-p99-increase", Default: "off",
		Accept: []LimitKind{LimitPercent, LimitDuration}, lat: metric.E2E, pct: 0.99},
	{Key: MetricErrorRate, Title: "Error rate", Flag: "max-error-rate-increase", Default: "0.5pp",
		Accept: []LimitKind{LimitPoints}},
	{Key: MetricSessionGoodput, Title: "Session goodput (share)", Flag: "max-session-goodput-drop", Default: "5pp", HigherIsBetter: true,
		Accept: []LimitKind{LimitPoints}, sessions: true},
	{Key: MetricLaterTurnTTFT, Title: "TTFT of turns ≥ 1, mean (ms)", Flag: "max-later-turn-ttft-increase", Default: "10%",
		Accept: []LimitKind{LimitPercent, LimitDuration}, sessions: true},
	{Key: MetricCacheHitRate, Title: "Prefix-cache hit rate", Flag: "max-cache-hit-rate-drop", Default: "5pp", HigherIsBetter: true,
		Accept: []LimitKind{LimitPoints}, sessions: true},
	{Key: MetricKnee, Title: "Knee load", Flag: "max-knee-drop", Default: "10%", HigherIsBetter: true,
		Accept: []LimitKind{LimitPercent}},
}

// Forms describes the threshold forms the metric accepts, e.g. "a
// percentage like 5%, a duration like 20ms or off".
func (s MetricSpec) Forms() string { return forms(s.Accept) }

// Metrics returns the gated metrics in table order (the knee last).
func Metrics() []MetricSpec {
	out := make([]MetricSpec, len(specs))
	copy(out, specs)
	return out
}

// DefaultLimits returns every metric's default threshold.
func DefaultLimits() map[string]Limit {
	out := map[string]Limit{}
	for _, s := range specs {
		l, err := ParseLimit(s.Default, s.Accept...)
		if err != nil {
			panic(fmt.Sprintf("compare: default of %s: %v", s.Key, err))
		}
		out[s.Key] = l
	}
	return out
}

// side is one benchmark of one report.
type side struct {
	rep *report.Report
	b   *report.Benchmark
}

// value returns a metric of the benchmark, or why it has none. Every
// layout has GuideLLM's metrics; goodput's own keys (goodput, the SLO's
// window throughput) only goodput reports have. Latencies are GuideLLM's
// definitions over the successful requests, in ms.
func (s side) value(spec MetricSpec) (float64, string) {
	m := &s.b.Metrics
	if l := spec.lat; l != nil {
		return percentile(l.Of(m), spec.pct, l.ToMs(), l.Field)
	}
	switch spec.Key {
	case MetricGoodput:
		switch {
		case s.b.Extras == nil:
			return 0, fmt.Sprintf("a %s report has no goodput", s.rep.Layout)
		case s.b.Extras.SLO == nil:
			return 0, "no SLO result in the report"
		}
		return float64(s.b.Extras.SLO.GoodputOutputTokS), ""
	case MetricThroughput:
		return mean(m.OutputTokensPerSecond, "output_tokens_per_second")
	case MetricErrorRate:
		t := m.RequestTotals
		if t == nil || t.Total <= 0 {
			return 0, "no request totals"
		}
		return float64(t.Errored) / float64(t.Total), ""
	case MetricSessionGoodput, MetricLaterTurnTTFT, MetricCacheHitRate:
		return s.sessionValue(spec.Key)
	}
	return 0, "unknown metric"
}

// sessions is the benchmark's session figures, nil when it ran none.
func (s side) sessions() *report.SessionExtras {
	if s.b.Extras == nil || s.b.Extras.Sessions == nil || s.b.Extras.Sessions.Sessions == 0 {
		return nil
	}
	return s.b.Extras.Sessions
}

// sessionValue returns a session row's figure, or why it has none.
func (s side) sessionValue(key string) (float64, string) {
	x := s.sessions()
	if x == nil {
		return 0, "no sessions"
	}
	switch key {
	case MetricSessionGoodput:
		if x.GoodFraction == nil {
			return 0, "no SLO verdict of the sessions"
		}
		return float64(*x.GoodFraction), ""
	case MetricCacheHitRate:
		if x.CacheHitRate == nil {
			return 0, "no cached-token counts"
		}
		return float64(*x.CacheHitRate), ""
	}
	// The mean TTFT of turns ≥ 1: their turns' means weighted by count.
	var sum, n float64
	for _, t := range x.ByTurn {
		if t.Turn >= 1 && t.TimeToFirstTokenMs.Count > 0 {
			sum += float64(t.TimeToFirstTokenMs.Mean) * float64(t.TimeToFirstTokenMs.Count)
			n += float64(t.TimeToFirstTokenMs.Count)
		}
	}
	if n == 0 {
		return 0, "no later turn with a TTFT"
	}
	return sum / n, ""
}

// windowThroughput is the SLO's throughput (output tokens of successful
// requests over the measurement window), when the report has one.
func (s side) windowThroughput() (float64, bool) {
	if s.b.Extras == nil || s.b.Extras.SLO == nil {
		return 0, false
	}
	return float64(s.b.Extras.SLO.ThroughputOutputTokS), true
}

// sloSpec is the SLO the benchmark was judged against ("" when none).
func (s side) sloSpec() string {
	if s.b.Extras == nil || s.b.Extras.SLO == nil {
		return ""
	}
	return s.b.Extras.SLO.Spec
}

func mean(d *report.StatusDistributionSummary, name string) (float64, string) {
	if d == nil || d.Successful == nil {
		return 0, "no " + name
	}
	return float64(d.Successful.Mean), ""
}

func percentile(d *report.StatusDistributionSummary, p, scale float64, name string) (float64, string) {
	if d == nil || d.Successful == nil {
		return 0, "no " + name
	}
	s := d.Successful
	if s.Count <= 0 {
		return 0, "no successful request with " + name
	}
	var v report.Float
	switch p {
	case 0.50:
		v = s.Median
		if s.Percentiles.P50 != nil {
			v = *s.Percentiles.P50
		}
	case 0.90:
		v = s.Percentiles.P90
	case 0.95:
		v = s.Percentiles.P95
	case 0.99:
		v = s.Percentiles.P99
	}
	return float64(v) * scale, ""
}
