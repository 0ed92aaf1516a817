package report

import (
	"encoding/json"
)

// Report is a benchmark report: GuideLLM's report v2 layout
// (GenerativeBenchmarksReport, metadata.version 2) with goodput's
// additions under "goodput" keys where GuideLLM's loader keeps unknown
// keys. Reports read from older GuideLLM layouts map into the same model;
// what those layouts lack stays nil.
type Report struct {
	Metadata   *Metadata    `json:"metadata"`
	Config     *Scenario    `json:"config"`
	Benchmarks []*Benchmark `json:"benchmarks"`
	// Run is goodput's run-level data (nil in GuideLLM reports).
	Run *RunExtras `json:"goodput,omitempty"`

	// Layout is the layout the report was read from (LayoutGoodput for a
	// report built in memory).
	Layout Layout `json:"-"`
	// Args is the top-level "args" object of a GuideLLM v0.4–v0.6 report,
	// kept verbatim.
	Args json.RawMessage `json:"-"`
}

// Layout identifies a report file layout.
type Layout string

// Layouts Read accepts.
const (
	LayoutGoodput  Layout = "goodput"           // goodput's own report (GuideLLM v2 + goodput keys)
	LayoutV2       Layout = "guidellm-v2"       // GuideLLM v0.7+ (metadata.version 2)
	LayoutV1       Layout = "guidellm-v1"       // GuideLLM v0.5–v0.6 (metadata.version 1, args)
	LayoutV04      Layout = "guidellm-v0.4"     // GuideLLM v0.4 ({args, benchmarks})
	LayoutLegacy03 Layout = "guidellm-v0.2-0.3" // GuideLLM v0.2–v0.3 ({benchmarks} only)
)

// Metadata is GuideLLM's GenerativeBenchmarkMetadata plus goodput's
// version. For goodput reports GuideLLMVersion names the GuideLLM release
// whose schema the report follows ("0.7.3"), PythonVersion is empty and
// Platform is GOOS/GOARCH.
type Metadata struct {
	Version         Int    `json:"version"`
	GuideLLMVersion string `json:"guidellm_version"`
	PythonVersion   string `json:"python_version"`
	Platform        string `json:"platform"`
	GoodputVersion  string `json:"goodput_version,omitempty"`
}

// Benchmark is one entry of "benchmarks": GuideLLM's GenerativeBenchmark
// plus goodput's extras.
type Benchmark struct {
	Type             string            `json:"type_"`
	Config           BenchmarkConfig   `json:"config"`
	SchedulerState   *SchedulerState   `json:"scheduler_state"`
	SchedulerMetrics *SchedulerMetrics `json:"scheduler_metrics"`
	Metrics          Metrics           `json:"metrics"`
	Requests         RequestsByStatus  `json:"requests"`
	StartTime        *Float            `json:"start_time"`
	EndTime          *Float            `json:"end_time"`
	Duration         *Float            `json:"duration"`
	WarmupDuration   *Float            `json:"warmup_duration"`
	CooldownDuration *Float            `json:"cooldown_duration"`
	Extras           *Extras           `json:"goodput,omitempty"`

	// legacy is what a GuideLLM v0.2–v0.3 benchmark had beyond the
	// model, kept for writing it as report v2 (legacy_v2.go).
	legacy *legacySource
}

// BenchmarkConfig is GuideLLM's BenchmarkConfig.
type BenchmarkConfig struct {
	ID                    string                     `json:"id_"`
	RunID                 string                     `json:"run_id"`
	RunIndex              Int                        `json:"run_index"`
	Strategy              Strategy                   `json:"strategy"`
	Constraints           map[string]json.RawMessage `json:"constraints"`
	SampleSize            *Int                       `json:"sample_size"`
	Warmup                TransientPhase             `json:"warmup"`
	Cooldown              TransientPhase             `json:"cooldown"`
	PreferResponseMetrics bool                       `json:"prefer_response_metrics"`
	// SLO is GuideLLM's newest release's per-request objectives (its
	// GoodputSLO), nil when the run has none GuideLLM can state.
	SLO         *GoodputSLO     `json:"slo,omitempty"`
	Profile     json.RawMessage `json:"profile"`
	Requests    json.RawMessage `json:"requests"`
	Backend     json.RawMessage `json:"backend"`
	Environment json.RawMessage `json:"environment"`
}

// SchedulerState is GuideLLM's SchedulerState (the scheduler's final
// counters).
type SchedulerState struct {
	NodeID                   Int                              `json:"node_id"`
	NumProcesses             Int                              `json:"num_processes"`
	StartTime                Float                            `json:"start_time"`
	EndTime                  *Float                           `json:"end_time"`
	StartRequestsTime        *Float                           `json:"start_requests_time"`
	EndRequestsTime          *Float                           `json:"end_requests_time"`
	EndQueuingTime           *Float                           `json:"end_queuing_time"`
	EndQueuingConstraints    map[string]SchedulerUpdateAction `json:"end_queuing_constraints"`
	EndProcessingTime        *Float                           `json:"end_processing_time"`
	EndProcessingConstraints map[string]SchedulerUpdateAction `json:"end_processing_constraints"`
	SchedulerConstraints     map[string]SchedulerUpdateAction `json:"scheduler_constraints"`
	Progress                 SchedulerProgress                `json:"progress"`
	CreatedRequests          Int                              `json:"created_requests"`
	QueuedRequests           Int                              `json:"queued_requests"`
	PendingRequests          Int                              `json:"pending_requests"`
	ProcessingRequests       Int                              `json:"processing_requests"`
	ProcessedRequests        Int                              `json:"processed_requests"`
	SuccessfulRequests       Int                              `json:"successful_requests"`
	ErroredRequests          Int                              `json:"errored_requests"`
	CancelledRequests        Int                              `json:"cancelled_requests"`
}

// SchedulerUpdateAction is GuideLLM's record of what a constraint did.
type SchedulerUpdateAction struct {
	RequestQueuing    string                     `json:"request_queuing"`
	RequestProcessing string                     `json:"request_processing"`
	StoppingScope     string                     `json:"stopping_scope"`
	Metadata          map[string]json.RawMessage `json:"metadata"`
	Progress          SchedulerProgress          `json:"progress"`
}

// SchedulerProgress is GuideLLM's SchedulerProgress.
type SchedulerProgress struct {
	RemainingRequests *Float `json:"remaining_requests"`
	TotalRequests     *Float `json:"total_requests"`
	RemainingDuration *Float `json:"remaining_duration"`
	TotalDuration     *Float `json:"total_duration"`
	StopTime          *Float `json:"stop_time"`
}

// SchedulerMetrics is GuideLLM's SchedulerMetrics. Times are Unix seconds;
// the *_avg fields are seconds, -1.0 where goodput does not measure that
// scheduler stage (GuideLLM's own value for "no data").
type SchedulerMetrics struct {
	StartTime                    *Float        `json:"start_time"`
	RequestStartTime             *Float        `json:"request_start_time"`
	MeasureStartTime             *Float        `json:"measure_start_time"`
	MeasureEndTime               *Float        `json:"measure_end_time"`
	RequestEndTime               *Float        `json:"request_end_time"`
	EndTime                      *Float        `json:"end_time"`
	RequestsMade                 *StatusCounts `json:"requests_made"`
	QueuedTimeAvg                *Float        `json:"queued_time_avg"`
	ResolveStartDelayAvg         *Float        `json:"resolve_start_delay_avg"`
	ResolveTargetedStartDelayAvg *Float        `json:"resolve_targeted_start_delay_avg"`
	RequestStartDelayAvg         *Float        `json:"request_start_delay_avg"`
	RequestTargetedStartDelayAvg *Float        `json:"request_targeted_start_delay_avg"`
	RequestTimeAvg               *Float        `json:"request_time_avg"`
	ResolveEndDelayAvg           *Float        `json:"resolve_end_delay_avg"`
	ResolveTimeAvg               *Float        `json:"resolve_time_avg"`
	FinalizedDelayAvg            *Float        `json:"finalized_delay_avg"`
	ProcessedDelayAvg            *Float        `json:"processed_delay_avg"`
}

// StatusCounts is GuideLLM's StatusBreakdown[int, int, int, int].
type StatusCounts struct {
	Successful Int `json:"successful"`
	Errored    Int `json:"errored"`
	Incomplete Int `json:"incomplete"`
	Total      Int `json:"total"`
}

// Metrics is GuideLLM's GenerativeMetrics. A nil distribution is one the
// source report did not have (GuideLLM v0.2–v0.3 reports have 10 of the
// 16).
type Metrics struct {
	RequestTotals                   *StatusCounts              `json:"request_totals"`
	RequestsPerSecond               *StatusDistributionSummary `json:"requests_per_second"`
	RequestConcurrency              *StatusDistributionSummary `json:"request_concurrency"`
	RequestLatency                  *StatusDistributionSummary `json:"request_latency"`
	RequestStreamingIterationsCount *StatusDistributionSummary `json:"request_streaming_iterations_count"`
	PromptTokenCount                *StatusDistributionSummary `json:"prompt_token_count"`
	OutputTokenCount                *StatusDistributionSummary `json:"output_token_count"`
	TotalTokenCount                 *StatusDistributionSummary `json:"total_token_count"`
	TimeToFirstTokenMs              *StatusDistributionSummary `json:"time_to_first_token_ms"`
	TimeToFirstOutputTokenMs        *StatusDistributionSummary `json:"time_to_first_output_token_ms"`
	TimePerOutputTokenMs            *StatusDistributionSummary `json:"time_per_output_token_ms"`
	InterTokenLatencyMs             *StatusDistributionSummary `json:"inter_token_latency_ms"`
	PromptTokensPerSecond           *StatusDistributionSummary `json:"prompt_tokens_per_second"`
	OutputTokensPerSecond           *StatusDistributionSummary `json:"output_tokens_per_second"`
	TokensPerSecond                 *StatusDistributionSummary `json:"tokens_per_second"`
	OutputTokensPerIteration        *StatusDistributionSummary `json:"output_tokens_per_iteration"`
	IterTokensPerIteration          *StatusDistributionSummary `json:"iter_tokens_per_iteration"`
	Text                            *TextMetrics               `json:"text"`
	Image                           *ImageMetrics              `json:"image"`
	Video                           *VideoMetrics              `json:"video"`
	Audio                           *AudioMetrics              `json:"audio"`
	ToolCall                        *ToolCallMetrics           `json:"tool_call"`
	// SLOAttainment and SLODeterminedRequests are where GuideLLM's newest
	// release writes the verdict against BenchmarkConfig.SLO: the share of
	// the determined requests that met every objective, and their number.
	// nil without such objectives (older GuideLLM releases keep the keys
	// as extras).
	SLOAttainment         *Float `json:"slo_attainment,omitempty"`
	SLODeterminedRequests *Int   `json:"slo_determined_requests,omitempty"`
}

// GoodputSLO is GuideLLM's GoodputSLO (its newest release): per-request
// thresholds in ms on time to first token, inter-token latency (GuideLLM's
// tpot_ms, the first token excluded) and request latency. A request
// conforms when it meets every threshold set.
type GoodputSLO struct {
	TTFTMs *Float `json:"ttft_ms,omitempty"`
	TPOTMs *Float `json:"tpot_ms,omitempty"`
	E2ELMs *Float `json:"e2el_ms,omitempty"`
}

// MetricsSummary is GuideLLM's GenerativeMetricsSummary: a quantity on the
// input and output side and their union, as values per request, as rates
// and as concurrency.
type MetricsSummary struct {
	Input             *StatusDistributionSummary `json:"input"`
	InputPerSecond    *StatusDistributionSummary `json:"input_per_second"`
	InputConcurrency  *StatusDistributionSummary `json:"input_concurrency"`
	Output            *StatusDistributionSummary `json:"output"`
	OutputPerSecond   *StatusDistributionSummary `json:"output_per_second"`
	OutputConcurrency *StatusDistributionSummary `json:"output_concurrency"`
	Total             *StatusDistributionSummary `json:"total"`
	TotalPerSecond    *StatusDistributionSummary `json:"total_per_second"`
	TotalConcurrency  *StatusDistributionSummary `json:"total_concurrency"`
}

// TextMetrics is GuideLLM's GenerativeTextMetricsSummary.
type TextMetrics struct {
	Tokens     *MetricsSummary `json:"tokens"`
	Words      *MetricsSummary `json:"words"`
	Characters *MetricsSummary `json:"characters"`
}

// ImageMetrics is GuideLLM's GenerativeImageMetricsSummary.
type ImageMetrics struct {
	Tokens *MetricsSummary `json:"tokens"`
	Images *MetricsSummary `json:"images"`
	Pixels *MetricsSummary `json:"pixels"`
	Bytes  *MetricsSummary `json:"bytes"`
}

// VideoMetrics is GuideLLM's GenerativeVideoMetricsSummary.
type VideoMetrics struct {
	Tokens  *MetricsSummary `json:"tokens"`
	Frames  *MetricsSummary `json:"frames"`
	Seconds *MetricsSummary `json:"seconds"`
	Bytes   *MetricsSummary `json:"bytes"`
}

// AudioMetrics is GuideLLM's GenerativeAudioMetricsSummary.
type AudioMetrics struct {
	Tokens  *MetricsSummary `json:"tokens"`
	Samples *MetricsSummary `json:"samples"`
	Seconds *MetricsSummary `json:"seconds"`
	Bytes   *MetricsSummary `json:"bytes"`
}

// ToolCallMetrics is GuideLLM's GenerativeToolCallMetricsSummary.
type ToolCallMetrics struct {
	Tokens      *MetricsSummary `json:"tokens"`
	MixedTokens *MetricsSummary `json:"mixed_tokens"`
	Count       *MetricsSummary `json:"count"`
}

// RequestsByStatus is the sampled request records per status; GuideLLM's
// "total" member is always null.
type RequestsByStatus struct {
	Successful []*RequestStats `json:"successful"`
	Errored    []*RequestStats `json:"errored"`
	Incomplete []*RequestStats `json:"incomplete"`
	Total      json.RawMessage `json:"total"`
}

// Set stores the sampled requests of status st (StatusSuccessful, …).
func (r *RequestsByStatus) Set(st uint8, list []*RequestStats) {
	switch st {
	case StatusSuccessful:
		r.Successful = list
	case StatusErrored:
		r.Errored = list
	default:
		r.Incomplete = list
	}
}

// RequestStats is GuideLLM's GenerativeRequestStats (one request), with
// goodput's per-request extras under "goodput".
type RequestStats struct {
	Type            string          `json:"type_"`
	RequestID       string          `json:"request_id"`
	ResponseID      *string         `json:"response_id"`
	RequestArgs     *string         `json:"request_args"`
	Output          *string         `json:"output"`
	ReasoningOutput *string         `json:"reasoning_output"`
	ToolCalls       json.RawMessage `json:"tool_calls"`
	Info            RequestInfo     `json:"info"`
	InputMetrics    UsageMetrics    `json:"input_metrics"`
	OutputMetrics   UsageMetrics    `json:"output_metrics"`

	RequestStartTime         *Float `json:"request_start_time"`
	RequestEndTime           *Float `json:"request_end_time"`
	RequestLatency           *Float `json:"request_latency"`
	PromptTokens             *Int   `json:"prompt_tokens"`
	OutputTokens             *Int   `json:"output_tokens"`
	TotalTokens              *Int   `json:"total_tokens"`
	TimeToFirstTokenMs       *Float `json:"time_to_first_token_ms"`
	TimePerOutputTokenMs     *Float `json:"time_per_output_token_ms"`
	InterTokenLatencyMs      *Float `json:"inter_token_latency_ms"`
	TokensPerSecond          *Float `json:"tokens_per_second"`
	OutputTokensPerSecond    *Float `json:"output_tokens_per_second"`
	TimeToFirstOutputTokenMs *Float `json:"time_to_first_output_token_ms"`
	IterTokensPerIteration   *Float `json:"iter_tokens_per_iteration"`
	OutputTokensPerIteration *Float `json:"output_tokens_per_iteration"`

	Extras *RequestExtras `json:"goodput,omitempty"`
}

// RequestInfo is GuideLLM's RequestInfo.
type RequestInfo struct {
	RequestID          string          `json:"request_id"`
	ConversationID     *string         `json:"conversation_id"`
	TurnIndex          Int             `json:"turn_index"`
	Status             string          `json:"status"`
	SchedulerNodeID    Int             `json:"scheduler_node_id"`
	SchedulerProcessID Int             `json:"scheduler_process_id"`
	SchedulerStartTime Float           `json:"scheduler_start_time"`
	Timings            RequestTimings  `json:"timings"`
	Settings           RequestSettings `json:"settings"`
	Error              *string         `json:"error"`
	Traceback          *string         `json:"traceback"`
	StartedAt          *Float          `json:"started_at"`
	CompletedAt        *Float          `json:"completed_at"`
	// HistoryLen is the messages sent before the turn's own (newer
	// GuideLLM's info.history_len); absent outside conversations.
	HistoryLen *Int `json:"history_len,omitempty"`
}

// RequestTimings is GuideLLM's RequestTimings (Unix seconds).
type RequestTimings struct {
	TargetedStart             *Float `json:"targeted_start"`
	Queued                    *Float `json:"queued"`
	Dequeued                  *Float `json:"dequeued"`
	ScheduledAt               *Float `json:"scheduled_at"`
	ResolveStart              *Float `json:"resolve_start"`
	RequestStart              *Float `json:"request_start"`
	FirstRequestIteration     *Float `json:"first_request_iteration"`
	FirstTokenIteration       *Float `json:"first_token_iteration"`
	FirstOutputTokenIteration *Float `json:"first_output_token_iteration"`
	LastTokenIteration        *Float `json:"last_token_iteration"`
	LastRequestIteration      *Float `json:"last_request_iteration"`
	RequestIterations         Int    `json:"request_iterations"`
	TokenIterations           Int    `json:"token_iterations"`
	RequestEnd                *Float `json:"request_end"`
	ResolveEnd                *Float `json:"resolve_end"`
	Finalized                 *Float `json:"finalized"`
}

// RequestSettings is GuideLLM's RequestSettings.
type RequestSettings struct {
	RelativeTimestamp *Float `json:"relative_timestamp"`
	RequeueDelay      *Float `json:"requeue_delay"`
}

// UsageMetrics is GuideLLM's UsageMetrics (v0.7.3 keys).
type UsageMetrics struct {
	TextTokens             *Int   `json:"text_tokens"`
	TextWords              *Int   `json:"text_words"`
	TextCharacters         *Int   `json:"text_characters"`
	ImageTokens            *Int   `json:"image_tokens"`
	ImageCount             *Int   `json:"image_count"`
	ImagePixels            *Int   `json:"image_pixels"`
	ImageBytes             *Int   `json:"image_bytes"`
	VideoTokens            *Int   `json:"video_tokens"`
	VideoFrames            *Int   `json:"video_frames"`
	VideoSeconds           *Float `json:"video_seconds"`
	VideoBytes             *Int   `json:"video_bytes"`
	AudioTokens            *Int   `json:"audio_tokens"`
	AudioSamples           *Int   `json:"audio_samples"`
	AudioSeconds           *Float `json:"audio_seconds"`
	AudioBytes             *Int   `json:"audio_bytes"`
	ToolCallTokens         *Int   `json:"tool_call_tokens"`
	MixedContentToolTokens *Int   `json:"mixed_content_tool_tokens"`
	ToolCallCount          *Int   `json:"tool_call_count"`
	TotalTokens            *Int   `json:"total_tokens"`
}

// RequestExtras are goodput's per-request fields (what GuideLLM's record
// has no key for).
type RequestExtras struct {
	ID                 uint64 `json:"id"`
	ErrorClass         string `json:"error_class,omitempty"`
	HTTPStatus         Int    `json:"http_status"`
	FinishReason       string `json:"finish_reason,omitempty"`
	TokenSource        string `json:"token_source"`
	CachedTokens       *Int   `json:"cached_tokens"`
	ReasoningTokens    Int    `json:"reasoning_tokens"`
	ServerOutputTokens *Int   `json:"server_output_tokens"`
	ClientOutputTokens *Int   `json:"client_output_tokens"`
	Sent               *Float `json:"sent"`
	Headers            *Float `json:"headers"`
	// InWindow says whether the request is inside the measurement window
	// (GuideLLM's requests lists include warmup and cooldown requests).
	InWindow bool `json:"in_window"`
}
