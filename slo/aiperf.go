package slo

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/metric"
)

// AIPerfThreshold is one pair of AIPerf's --goodput: a request is good when
// its value of the metric Tag is at most Threshold (at least, for metrics
// where larger is better), in the metric's display unit. The AIPerf export
// (report/aiperf) judges these pairs AIPerf's way; AIPerfSpec turns the
// ones goodput has a metric for into goodput's own Spec.
type AIPerfThreshold struct {
	Tag       string
	Threshold float64
}

// String renders the pair in AIPerf's form, "tag:value".
func (t AIPerfThreshold) String() string {
	return t.Tag + ":" + strconv.FormatFloat(t.Threshold, 'g', -1, 64)
}

// AIPerfGoodputTags are the metric tags AIPerf's --goodput accepts, in
// AIPerf's order; the AIPerf export (report/aiperf) judges exactly these.
var AIPerfGoodputTags = []string{
	metric.E2E.AIPerf, metric.TTFT.AIPerf, "time_to_second_token", "time_to_first_output_token",
	metric.ITL.AIPerf, "output_token_throughput_per_user", "e2e_output_token_throughput",
	"prefill_throughput_per_user", "output_sequence_length", "input_sequence_length", "output_token_count",
}

// ParseAIPerfGoodput parses AIPerf's --goodput values (the flag may be
// repeated): each holds space-separated "tag:value" pairs in the metrics' display units (milliseconds for
// latencies, tokens/sec/user for per-user throughputs, tokens for
// lengths), e.g. "time_to_first_token:500 inter_token_latency:50". No
// pairs give none. Errors are one line naming the pair and the
// accepted form.
func ParseAIPerfGoodput(values ...string) ([]AIPerfThreshold, error) {
	var out []AIPerfThreshold
	seen := map[string]bool{}
	var fields []string
	for _, v := range values {
		fields = append(fields, strings.Fields(v)...)
	}
	for _, f := range fields {
		tag, val, ok := strings.Cut(f, ":")
		if !ok || tag == "" || val == "" {
			return nil, fmt.Errorf("--goodput %q: want space-separated metric:value pairs, e.g. \"time_to_first_token:500 inter_token_latency:50\"", clip(f, 60))
		}
		if !IsAIPerfGoodputTag(tag) {
			return nil, fmt.Errorf("--goodput %q: unknown metric %q (accepted: %s)", clip(f, 60), clip(tag, 40), strings.Join(AIPerfGoodputTags, ", "))
		}
		v, err := strconv.ParseFloat(val, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return nil, fmt.Errorf("--goodput %q: value %q is not a number ≥ 0 (in the metric's display unit, e.g. ms)", clip(f, 60), clip(val, 40))
		}
		if seen[tag] {
			return nil, fmt.Errorf("--goodput: metric %q given twice", tag)
		}
		seen[tag] = true
		out = append(out, AIPerfThreshold{Tag: tag, Threshold: v})
	}
	return out, nil
}

// IsAIPerfGoodputTag reports whether AIPerf's --goodput accepts tag.
func IsAIPerfGoodputTag(tag string) bool { return slices.Contains(AIPerfGoodputTags, tag) }

// FormatAIPerfGoodput renders pairs back into --goodput's form.
func FormatAIPerfGoodput(ts []AIPerfThreshold) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.String()
	}
	return strings.Join(parts, " ")
}

// clip shortens s for an error message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
