package aiperf

import (
	"github.com/goodput-dev/goodput/metric"
	"github.com/goodput-dev/goodput/slo"
)

// aiperfDef describes one AIPerf metric: its tag (from the metric table
// for the metrics goodput also names), display name and
// display unit, the factors between its base unit (nanoseconds for
// times, as AIPerf computes them) and the display unit, whether larger
// values are better (for --goodput thresholds) and, for record metrics,
// the histogram resolution and offset used beyond the exact cap.
type aiperfDef struct {
	tag, header, unit  string
	toDisplay, toBase  float64 // base→display and display→base factors (AIPerf's convert_to)
	larger             bool
	resolution, offset float64
}

// Time unit factors exactly as AIPerf's MetricTimeUnit.convert_to
// computes them (value · other.per_second / self.per_second).
const (
	nsToMsFactor  = 1000.0 / 1_000_000_000
	msToNsFactor  = 1_000_000_000.0 / 1000
	nsToSecFactor = 1.0 / 1_000_000_000
)

// Record metrics (one value per request, or per chunk gap for
// inter_chunk_latency).
const (
	apRequestLatency = iota
	apTTFT
	apTTST
	apTTFO
	apITL
	apICL
	apOTPU
	apE2E
	apPrefill
	apOSL
	apISL
	apOutCount
	apReasoning
	apOSLDiff
	apErrorISL
	// AIPerf's HTTP trace metrics (k6's names), written with
	// Options.HTTPTrace only; the ones goodput measures (README.md).
	apHTTPConnecting
	apHTTPSending
	apHTTPWaiting
	apHTTPReceiving
	apHTTPConnReused
	apHTTPDuration
	apNumRecord
)

// apFirstHTTP is the first HTTP trace metric: the metrics from it on are
// written with Options.HTTPTrace only.
const apFirstHTTP = apHTTPConnecting

var aiperfRecordDefs = [apNumRecord]aiperfDef{
	apRequestLatency: {tag: metric.E2E.AIPerf, header: "Request Latency", unit: "ms", toDisplay: nsToMsFactor, toBase: msToNsFactor, resolution: 1},
	apTTFT:           {tag: metric.TTFT.AIPerf, header: "Time to First Token", unit: "ms", toDisplay: nsToMsFactor, toBase: msToNsFactor, resolution: 1},
	apTTST:           {tag: "time_to_second_token", header: "Time to Second Token", unit: "ms", toDisplay: nsToMsFactor, toBase: msToNsFactor, resolution: 1},
	apTTFO:           {tag: "time_to_first_output_token", header: "Time to First Output Token", unit: "ms", toDisplay: nsToMsFactor, toBase: msToNsFactor, resolution: 1},
	apITL:            {tag: metric.ITL.AIPerf, header: "Inter Token Latency", unit: "ms", toDisplay: nsToMsFactor, toBase: msToNsFactor, resolution: 1},
	apICL:            {tag: "inter_chunk_latency", header: "Inter Chunk Latency", unit: "ms", toDisplay: nsToMsFactor, toBase: msToNsFactor, resolution: 1},
	apOTPU:           {tag: "output_token_throughput_per_user", header: "Output Token Throughput Per User", unit: "tokens/sec/user", toDisplay: 1, toBase: 1, larger: true, resolution: 1000},
	apE2E:            {tag: "e2e_output_token_throughput", header: "E2E Output Token Throughput", unit: "tokens/sec/user", toDisplay: 1, toBase: 1, larger: true, resolution: 1000},
	apPrefill:        {tag: "prefill_throughput_per_user", header: "Prefill Throughput Per User", unit: "tokens/sec/user", toDisplay: 1, toBase: 1, larger: true, resolution: 1000},
	apOSL:            {tag: "output_sequence_length", header: "Output Sequence Length", unit: "tokens", toDisplay: 1, toBase: 1, larger: true, resolution: 1},
	apISL:            {tag: "input_sequence_length", header: "Input Sequence Length", unit: "tokens", toDisplay: 1, toBase: 1, resolution: 1},
	apOutCount:       {tag: "output_token_count", header: "Output Token Count", unit: "tokens", toDisplay: 1, toBase: 1, larger: true, resolution: 1},
	apReasoning:      {tag: "reasoning_token_count", header: "Reasoning Token Count", unit: "tokens", toDisplay: 1, toBase: 1, resolution: 1},
	apOSLDiff:        {tag: "osl_mismatch_diff_pct", header: "OSL Mismatch Diff", unit: "%", toDisplay: 1, toBase: 1, resolution: 1000, offset: 100},
	apErrorISL:       {tag: "error_isl", header: "Error Input Sequence Length", unit: "tokens", toDisplay: 1, toBase: 1, resolution: 1},
	apHTTPConnecting: {tag: "http_req_connecting", header: "HTTP Connecting", unit: "ms", toDisplay: nsToMsFactor, toBase: msToNsFactor, resolution: 1},
	apHTTPConnReused: {tag: "http_req_connection_reused", header: "HTTP Connection Reused", unit: "ratio", toDisplay: 1, toBase: 1, resolution: 1},
	apHTTPSending:    {tag: "http_req_sending", header: "HTTP Sending", unit: "ms", toDisplay: nsToMsFactor, toBase: msToNsFactor, resolution: 1},
	apHTTPWaiting:    {tag: "http_req_waiting", header: "HTTP Waiting (TTFB)", unit: "ms", toDisplay: nsToMsFactor, toBase: msToNsFactor, resolution: 1},
	apHTTPReceiving:  {tag: "http_req_receiving", header: "HTTP Receiving", unit: "ms", toDisplay: nsToMsFactor, toBase: msToNsFactor, resolution: 1},
	apHTTPDuration:   {tag: "http_req_duration", header: "HTTP Duration (excl. conn)", unit: "ms", toDisplay: nsToMsFactor, toBase: msToNsFactor, resolution: 1},
}

// Derived and aggregate metrics (one value: unit and avg only).
var aiperfScalarDefs = map[string]aiperfDef{
	"request_throughput":      {tag: "request_throughput", header: "Request Throughput", unit: "requests/sec"},
	"request_count":           {tag: "request_count", header: "Request Count", unit: "requests"},
	"error_request_count":     {tag: "error_request_count", header: "Error Request Count", unit: "requests"},
	"benchmark_duration":      {tag: "benchmark_duration", header: "Benchmark Duration", unit: "sec"},
	"total_isl":               {tag: "total_isl", header: "Total Input Sequence Length", unit: "tokens"},
	"total_osl":               {tag: "total_osl", header: "Total Output Sequence Length", unit: "tokens"},
	"total_output_tokens":     {tag: "total_output_tokens", header: "Total Output Tokens", unit: "tokens"},
	"total_reasoning_tokens":  {tag: "total_reasoning_tokens", header: "Total Reasoning Tokens", unit: "tokens"},
	"output_token_throughput": {tag: "output_token_throughput", header: "Output Token Throughput", unit: "tokens/sec"},
	"total_token_throughput":  {tag: "total_token_throughput", header: "Total Token Throughput", unit: "tokens/sec"},
	"total_error_isl":         {tag: "total_error_isl", header: "Total Error Input Sequence Length", unit: "tokens"},
	"osl_mismatch_count":      {tag: "osl_mismatch_count", header: "OSL Mismatch Count", unit: "requests"},
	"good_request_count":      {tag: "good_request_count", header: "Good Request Count", unit: "requests"},
	"goodput":                 {tag: "goodput", header: "Goodput", unit: "requests/sec"},
	"session_count":           {tag: "session_count", header: "Session Count", unit: "sessions"},
}

// AIPerf's per-session metrics (its SessionMetricsResultsProcessor): one
// value per session.
var (
	sessionTurnsDef    = aiperfDef{tag: "session_turns", header: "Turns Per Session", unit: "count", toDisplay: 1, toBase: 1}
	sessionDurationDef = aiperfDef{tag: "session_duration", header: "Session Duration", unit: "ms", toDisplay: nsToMsFactor, toBase: msToNsFactor}
)

// scalarMetric builds a derived metric block.
func scalarMetric(tag string, v float64) Metric {
	d := aiperfScalarDefs[tag] // every tag used is in the table (TestAIPerfScalarTags)
	return Metric{Tag: tag, Header: d.header, Unit: d.unit, Avg: &v}
}

// recordMetric converts statistics in the base unit into a metric block
// in the display unit, each statistic multiplied by the conversion factor
// as AIPerf's to_display_unit does.
func recordMetric(d *aiperfDef, st aiperfStats) Metric {
	f := func(v float64) *float64 {
		if d.toDisplay != 1 {
			v *= d.toDisplay
		}
		return &v
	}
	m := Metric{Tag: d.tag, Header: d.header, Unit: d.unit}
	m.Avg, m.Min, m.Max, m.Std, m.Sum = f(st.avg), f(st.min), f(st.max), f(st.std), f(st.sum)
	for i := range m.P {
		m.P[i] = f(st.pct[i])
	}
	n := st.n
	m.Count = &n
	return m
}

// aiperfSLODef finds the metric a --goodput tag judges: the record metric
// of a tag slo accepts.
func aiperfSLODef(tag string) (int, bool) {
	if !slo.IsAIPerfGoodputTag(tag) {
		return 0, false
	}
	for i := range aiperfRecordDefs {
		if aiperfRecordDefs[i].tag == tag {
			return i, true
		}
	}
	return 0, false
}
