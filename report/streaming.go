package report

import "strconv"

// StreamingQuality is how smoothly the successful in-window requests
// streamed their tokens. Every request's longest stall is the largest gap
// between two consecutive token-bearing chunks. With a TBT deadline, each
// request's tokens also get Etalon's deadlines: the first token is due
// TTFTDeadlineMs after dispatch (not judged when 0), each later token
// TBTDeadlineMs after the one before, plus the slack earlier tokens saved by
// arriving early; a late token misses every deadline that passed while it
// was awaited, and the slack is reset. A request's fluidity index is
// 1 − missed ÷ deadlines.
type StreamingQuality struct {
	TTFTDeadlineMs Float `json:"ttft_deadline_ms"`
	TBTDeadlineMs  Float `json:"tbt_deadline_ms"`
	// FluidityFloor is the per-request fluidity the SLO asks for (0: none);
	// AboveFloor the share of requests with deadlines at or above it.
	FluidityFloor Float `json:"fluidity_floor"`
	AboveFloor    Float `json:"share_above_floor"`
	// Requests counts the successful in-window requests measured; Kept
	// those whose values the distributions hold (all, unless more than the
	// exact cap).
	Requests Int `json:"requests"`
	Kept     Int `json:"kept"`
	// LongestStallMs is over requests with at least two token-bearing
	// chunks; DeadlineMisses and FluidityIndex over requests with at least
	// one deadline (nil without a TBT deadline).
	LongestStallMs *DistributionSummary `json:"longest_stall_ms"`
	DeadlineMisses *DistributionSummary `json:"deadline_misses,omitempty"`
	FluidityIndex  *DistributionSummary `json:"fluidity_index,omitempty"`
}

// TimeSlices cut a benchmark's measurement window into slices of equal
// duration (AIPerf's --slice-duration); a request belongs to the slice its
// end falls in.
type TimeSlices struct {
	DurationS Float       `json:"slice_duration_s"`
	Slices    []TimeSlice `json:"slices"`
}

// TimeSlice is one slice's throughput and latency, over the in-window
// requests that ended in it. Latency percentiles are at PercentileTable's
// list (GuideLLM's p50, p90, p99 by default), keyed like it.
type TimeSlice struct {
	StartS             Float            `json:"start_s"` // seconds after the window's start
	EndS               Float            `json:"end_s"`
	Successful         Int              `json:"successful"`
	Errored            Int              `json:"errored"`
	Incomplete         Int              `json:"incomplete"`
	RequestsPerSecond  Float            `json:"requests_per_second"`      // successful per second
	OutputTokensPerSec Float            `json:"output_tokens_per_second"` // of successful requests
	TTFTMs             map[string]Float `json:"time_to_first_token_ms,omitempty"`
	ITLMs              map[string]Float `json:"inter_token_latency_ms,omitempty"`
	RequestLatencyS    map[string]Float `json:"request_latency,omitempty"`
}

// PercentileTable is each latency metric of the successful requests at a
// chosen percentile list (--percentiles), read from the benchmark's HDR
// histograms (within 0.1 %). Metrics is keyed by the metric's GuideLLM
// field, Values by PercentileKey, in the field's unit.
type PercentileTable struct {
	Percentiles []Float                     `json:"percentiles"`
	Metrics     map[string]map[string]Float `json:"metrics"`
}

// PercentileKey names a percentile in PercentileTable and TimeSlice: "p"
// and the percentile with its dot, e.g. p50, p99.9.
func PercentileKey(p float64) string {
	return "p" + strconv.FormatFloat(p, 'f', -1, 64)
}

// OverSaturation is the over_saturation constraint's detector at the end
// of a benchmark, in GuideLLM's metadata keys: the last slopes (per
// second; TTFT in seconds) with their relative margins of error and
// window sizes, null before a slope was first estimated.
type OverSaturation struct {
	Mode     string `json:"mode"`     // stop or monitor
	Settings string `json:"settings"` // every setting, key=value
	// IsOverSaturated says it was detected during the benchmark, first at
	// DetectedAtS seconds after the start.
	IsOverSaturated    bool   `json:"is_over_saturated"`
	DetectedAtS        *Float `json:"detected_at_s"`
	TTFTSlope          *Float `json:"ttft_slope"`
	TTFTSlopeMOE       *Float `json:"ttft_slope_moe"`
	TTFTN              Int    `json:"ttft_n"`
	TTFTViolations     Int    `json:"ttft_violations"`
	ConcurrentSlope    *Float `json:"concurrent_slope"`
	ConcurrentSlopeMOE *Float `json:"concurrent_slope_moe"`
	ConcurrentN        Int    `json:"concurrent_n"`
}

// TargetMOE is the target_moe constraint at the end of a benchmark, in
// GuideLLM's keys: whether the statistic reached the relative margin, on
// how many successful requests, the estimate and its interval (null where
// the sample cannot bound it), the margin, and the samples and seconds
// it would still need.
type TargetMOE struct {
	Metric              string `json:"metric"`
	Statistic           string `json:"statistic"`
	MOE                 Float  `json:"moe"`
	Confidence          Float  `json:"confidence"`
	Reached             bool   `json:"target_moe_reached"`
	Samples             Int    `json:"samples"`
	Estimate            *Float `json:"estimate"`
	Lower               *Float `json:"lower"`
	Upper               *Float `json:"upper"`
	RelativeMOE         *Float `json:"relative_moe"`
	RequiredSamples     Int    `json:"required_samples"`
	EstimatedRemainingS *Float `json:"estimated_remaining_seconds"`
}
