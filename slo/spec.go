package slo

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/metric"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/reqtype"
)

// Metric is what an objective bounds: a latency metric's key
// (metric.Latency.Key) or a fraction.
type Metric string

// Latency metrics (ms), from the metric table.
var (
	TTFT = Metric(metric.TTFT.Key) // time to first token
	ITL  = Metric(metric.ITL.Key)  // GuideLLM's per-request inter-token latency
	TPOT = Metric(metric.TPOT.Key) // GuideLLM's time per output token, TTFT included
	E2E  = Metric(metric.E2E.Key)  // request latency
)

// Streaming-quality metrics: Stall is a latency (ms); Fluidity (a share,
// bounded from below) and DeadlineMisses (a count) need token deadlines.
var (
	Stall          = Metric(metric.Stall.Key)
	Fluidity       = Metric(metric.Fluidity.Key)
	DeadlineMisses = Metric(metric.DeadlineMisses.Key)
)

// Fraction metrics.
const (
	ErrorRate  Metric = "error_rate" // errored / in-window requests
	Attainment Metric = "attainment" // good / judged requests
)

// latency reports whether m is a latency metric (in milliseconds).
func (m Metric) latency() bool { _, ok := metric.ByKey(string(m)); return ok }

// order is the canonical position of a metric: the latencies in the
// metric table's order, then the others.
func (m Metric) order() int {
	if l, ok := metric.ByKey(string(m)); ok {
		return l.Slot
	}
	return metric.N + slices.Index([]Metric{Fluidity, DeadlineMisses, ErrorRate, Attainment}, m)
}

// quality reports whether m is a streaming-quality metric that is not a
// latency (fluidity, deadline_misses).
func (m Metric) quality() bool { return m == Fluidity || m == DeadlineMisses }

// Streaming reports whether the spec needs the streams' quality measured.
func (s Spec) Streaming() bool {
	for _, o := range s.Objectives {
		if l, ok := metric.ByKey(string(o.Metric)); (ok && l.Stream) || o.Metric.quality() {
			return true
		}
	}
	return false
}

// NeedsDeadlines reports whether the spec needs token deadlines (an
// objective on fluidity or deadline_misses).
func (s Spec) NeedsDeadlines() bool {
	for _, o := range s.Objectives {
		if o.Metric.quality() {
			return true
		}
	}
	return false
}

// Stat is the statistic of a latency or streaming-quality objective.
type Stat uint8

// Statistics, in canonical order.
const (
	Each       Stat = iota // per-request threshold only (no benchmark-level statistic)
	Mean                   // mean over successful requests
	Percentile             // Objective.Percentile over successful requests
	Max                    // largest value
	Min                    // smallest value (fluidity)
)

// MaxLatencyMs bounds latency thresholds (24 h, the report histograms'
// highest trackable value).
const MaxLatencyMs = 24 * 3600 * 1000

// minLatencyMs is the smallest latency threshold (1 ns).
const minLatencyMs = 1e-6

// Objective is one item of a spec.
type Objective struct {
	Metric Metric
	// Stat and Percentile apply to latency metrics.
	Stat       Stat
	Percentile float64
	// Threshold is in milliseconds for latency metrics (stall included),
	// a fraction (0..1) for error_rate, attainment and fluidity (a floor),
	// and a count for deadline_misses.
	Threshold float64
}

// Key is the objective's key, e.g. ttft_p99, e2e_mean, itl, error_rate.
func (o Objective) Key() string {
	if !o.Metric.latency() && !o.Metric.quality() {
		return string(o.Metric)
	}
	switch o.Stat {
	case Mean:
		return string(o.Metric) + "_mean"
	case Max:
		return string(o.Metric) + "_max"
	case Min:
		return string(o.Metric) + "_min"
	case Percentile:
		return string(o.Metric) + "_p" + strconv.FormatFloat(o.Percentile, 'f', -1, 64)
	}
	return string(o.Metric)
}

// String is the canonical key=value form.
func (o Objective) String() string {
	if o.Metric.latency() {
		return o.Key() + "=" + strconv.FormatFloat(o.Threshold, 'f', -1, 64) + "ms"
	}
	if o.Metric.quality() {
		return o.Key() + "=" + strconv.FormatFloat(o.Threshold, 'f', -1, 64)
	}
	return o.Key() + "=" + formatPercent(o.Threshold)
}

// formatPercent writes a fraction as a percentage with 12 significant
// digits, enough to read back the same threshold and short enough to hide
// binary rounding (0.007 → "0.7%").
func formatPercent(f float64) string {
	return strconv.FormatFloat(f*100, 'g', 12, 64) + "%"
}

// Spec is a service-level objective: its objectives in canonical order.
type Spec struct {
	Objectives []Objective
	// Default is set on the documented default (no --slo given).
	Default bool
}

// DefaultSpec is the interactive-chat SLO of the reference harness: TTFT
// P99 ≤ 500 ms, ITL P95 ≤ 50 ms, errors ≤ 0.5 %.
const DefaultSpec = "ttft_p99=500ms,itl_p95=50ms,error_rate=0.5%"

// Default returns the default spec, marked as such.
func Default() Spec {
	s, err := Parse(DefaultSpec)
	if err != nil {
		panic("slo: the default spec does not parse: " + err.Error())
	}
	s.Default = true
	return s
}

// DefaultPoolingSpec is the default SLO of the request types that have
// no tokens to time (reqtype.SLOLatency: embeddings, rerank, score): request
// latency P99 ≤ 1 s, errors ≤ 0.5 %.
const DefaultPoolingSpec = "e2e_p99=1s,error_rate=0.5%"

// DefaultPooling returns DefaultPoolingSpec, marked as the default.
func DefaultPooling() Spec {
	s, err := Parse(DefaultPoolingSpec)
	if err != nil {
		panic("slo: the default pooling spec does not parse: " + err.Error())
	}
	s.Default = true
	return s
}

// DefaultFor is the default spec of request type t, streamed or not: its
// row's SLO family (Default for tokens, DefaultPooling for the request
// latency).
func DefaultFor(t *reqtype.Type, stream bool) Spec {
	if t.DefaultSLO(stream) == reqtype.SLOLatency {
		return DefaultPooling()
	}
	return Default()
}

// String is the canonical form, which Parse reads back to the same spec.
func (s Spec) String() string {
	parts := make([]string, len(s.Objectives))
	for i, o := range s.Objectives {
		parts[i] = o.String()
	}
	return strings.Join(parts, ",")
}

// Report is the spec as the report's run-level extras record it.
func (s Spec) Report() *report.SLOSpec {
	return &report.SLOSpec{Spec: s.String(), Default: s.Default}
}

// canonical sorts objectives: metric, then per-request, mean,
// percentiles ascending, max.
func canonical(os []Objective) {
	slices.SortStableFunc(os, func(a, b Objective) int {
		if c := cmp.Compare(a.Metric.order(), b.Metric.order()); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Stat, b.Stat); c != 0 {
			return c
		}
		return cmp.Compare(a.Percentile, b.Percentile)
	})
}
