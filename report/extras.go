package report

import (
	"fmt"
)

// ExtrasVersion is the version of the layout of goodput's "goodput" keys.
const ExtrasVersion = 1

// Extras is goodput's data about one benchmark, written under the key
// "goodput" of the benchmark (GuideLLM's loader keeps unknown keys there).
// Every distribution is a StatusDistributionSummary over the requests in
// the measurement window (GuideLLM's overlap rule), in the units its name
// says.
type Extras struct {
	Version int `json:"version"`
	// Exact is false when some figures are approximate; InexactReasons
	// says which and why.
	Exact          bool     `json:"exact"`
	InexactReasons []string `json:"inexact_reasons"`
	// StopReason is why the benchmark ended (the load engine's words, for
	// example max_duration, max_requests, max_errors, requests_exhausted,
	// interrupted).
	StopReason string `json:"stop_reason"`

	Requests      RequestCounts `json:"requests"`
	Errors        ErrorCounts   `json:"errors"`
	Metrics       ExtraMetrics  `json:"metrics"`
	TokenMismatch TokenMismatch `json:"token_mismatch"`
	// PromptTokenMismatch compares the server's prompt token counts
	// (usage.prompt_tokens) with the client's, like TokenMismatch; nil when
	// no in-window request had both.
	PromptTokenMismatch *TokenMismatch `json:"prompt_token_mismatch,omitempty"`
	// PromptOverhead is what the server adds to the raw prompt (a chat
	// template's role markers, special tokens), by request type
	// (chat_completions, text_completions); nil when not measured.
	PromptOverhead map[string]*PromptOverhead `json:"prompt_overhead,omitempty"`
	// Inputs counts the inputs of a pooling benchmark's successful
	// requests (embedded texts, ranked documents); nil for generative
	// benchmarks.
	Inputs *InputFigures `json:"inputs,omitempty"`
	// ByModel and ByTarget break the window's requests down by the model
	// and the target they were sent to, when the run had several (exact
	// only: absent beyond the exact cap); each group's request counts
	// and token sums add up to the benchmark's.
	ByModel  []GroupFigures `json:"by_model,omitempty"`
	ByTarget []GroupFigures `json:"by_target,omitempty"`
	// PromptCache is the share of the prompts the server served from its
	// prefix cache, by its usage; nil when no request reported it.
	PromptCache *PromptCache `json:"prompt_cache,omitempty"`
	// OutputShortfall counts the outputs shorter than asked; nil when
	// none was.
	OutputShortfall *OutputShortfall `json:"output_shortfall,omitempty"`
	// TokenWarnings are the token counts that disagree by more than the
	// run's threshold, with their likely cause; nil when none does.
	TokenWarnings []TokenWarning `json:"token_warnings,omitempty"`
	Histograms    *Histograms    `json:"histograms"`
	// Client is the load generator's own load during the benchmark; nil
	// when not measured (a report read from another tool).
	Client *ClientLoad `json:"client,omitempty"`
	// SLO is this benchmark judged against the run's SLO.
	SLO *SLOResult `json:"slo,omitempty"`
	// Shard is this benchmark's place in a sharded run's timetable.
	Shard *ShardRound `json:"shard,omitempty"`
	// Drain is how the runner waited for the server to be idle before
	// this benchmark (package sweep); nil when it did not wait.
	Drain *DrainWait `json:"drain,omitempty"`
	// Arrival is the load's shape where GuideLLM's strategy object cannot
	// hold it (gamma gaps, shaped ramps, a rate series); nil otherwise.
	Arrival *Arrival `json:"arrival,omitempty"`
	// WarmupPhase is the warmup phase run before this benchmark's
	// measured one (AIPerf's); nil without one.
	WarmupPhase *WarmupPhase `json:"warmup_phase,omitempty"`
	// Control are the control requests sent to the server around this
	// benchmark (a KV-cache reset, the profiler's start and stop: AIPerf's
	// control hooks), in the order sent; nil without any.
	Control []ControlCall `json:"server_control,omitempty"`
	// Censored is the censoring-aware view of the requests still in
	// flight when the benchmark ended (censored.go); nil beyond the exact
	// cap or in a report without it.
	Censored *Censored `json:"censored,omitempty"`
	// WindowThroughput is throughput counted exactly over the measurement
	// window (censored.go); nil where Censored is.
	WindowThroughput *WindowThroughput `json:"window_throughput,omitempty"`
	// Streaming is the streams' quality (longest stall, token deadline
	// misses, Etalon's fluidity index); nil unless asked for.
	Streaming *StreamingQuality `json:"streaming,omitempty"`
	// Slices are the window cut into equal time slices (AIPerf's
	// timeslices); nil unless asked for.
	Slices *TimeSlices `json:"timeslices,omitempty"`
	// Percentiles are the latency metrics at a chosen percentile list;
	// nil unless asked for.
	Percentiles *PercentileTable `json:"percentiles,omitempty"`
	// OverSaturation is GuideLLM's over_saturation constraint's final
	// state; nil without the constraint.
	OverSaturation *OverSaturation `json:"over_saturation,omitempty"`
	// TargetMOE is GuideLLM's target_moe constraint's final state; nil
	// without the constraint.
	TargetMOE *TargetMOE `json:"target_moe,omitempty"`

	Telemetry *BenchmarkTelemetry `json:"telemetry,omitempty"` // energy, cost and server metrics over the window (package scorecard)

	// Sessions holds the conversations' figures; nil when the benchmark
	// ran no sessions.
	Sessions *SessionExtras `json:"sessions,omitempty"`

	// ServerTime is the server's own per-request times (prefill, decode)
	// and the time to first token they leave unexplained; nil when no
	// response carried them (servertime.go).
	ServerTime *ServerTime `json:"server_time,omitempty"`
}

// SessionExtras describes the conversations (sessions) of a benchmark.
// Session counts cover every recorded turn (a session spans the
// measurement window's edges); the prefix-cache figures and ByTurn cover
// the successful turns in the window.
type SessionExtras struct {
	Sessions  Int `json:"sessions"`  // sessions with at least one recorded turn
	Completed Int `json:"completed"` // every turn the session was to have succeeded
	// CutByErrors counts sessions ended by an errored turn; CutShort
	// those that ended early without one (the benchmark stopped, or a
	// missing tool call ended them).
	CutByErrors Int `json:"cut_by_errors"`
	CutShort    Int `json:"cut_short"`
	// Good is session goodput: completed sessions in which every turn met
	// the SLO's per-request thresholds, and GoodFraction its share of
	// Sessions; nil without an SLO.
	Good         *Int   `json:"good,omitempty"`
	GoodFraction *Float `json:"good_fraction,omitempty"`
	// TurnsPerSession counts recorded turns per session; DurationSeconds
	// runs from a session's first dispatch to its last turn's end.
	TurnsPerSession DistributionSummary `json:"turns_per_session"`
	DurationSeconds DistributionSummary `json:"duration_seconds"`
	// PromptTokens and CachedTokens sum the turns that reported a cached
	// count (usage.prompt_tokens_details.cached_tokens, Responses'
	// input_tokens_details, Anthropic's cache_read_input_tokens), and
	// CacheHitRate is their ratio; nil when no turn reported one.
	PromptTokens Int           `json:"prompt_tokens"`
	CachedTokens Int           `json:"cached_tokens"`
	CacheHitRate *Float        `json:"cache_hit_rate,omitempty"`
	ByTurn       []TurnMetrics `json:"by_turn"`
}

// TurnMetrics is the latency of the successful in-window turns of one
// turn index, and their prompt, history and cache figures.
type TurnMetrics struct {
	Turn     Int `json:"turn"`
	Requests Int `json:"requests"`

	TimeToFirstTokenMs          DistributionSummary `json:"time_to_first_token_ms"`
	ScheduledTimeToFirstTokenMs DistributionSummary `json:"scheduled_time_to_first_token_ms"`
	InterTokenLatencyMs         DistributionSummary `json:"inter_token_latency_ms"`
	TimePerOutputTokenMs        DistributionSummary `json:"time_per_output_token_ms"`
	RequestLatency              DistributionSummary `json:"request_latency"`

	PromptTokensMean    Float  `json:"prompt_tokens_mean"`
	HistoryMessagesMean Float  `json:"history_messages_mean"`
	CacheHitRate        *Float `json:"cache_hit_rate,omitempty"`
}

// InputFigures are the inputs of a pooling benchmark (embeddings, rerank,
// score), or the audio of a transcription benchmark, over the successful
// requests in the measurement window.
type InputFigures struct {
	Kind  string `json:"kind"`  // "inputs" (embeddings), "documents" (rerank, score) or "audio_seconds" (transcriptions)
	Total Int    `json:"total"` // inputs, documents or audio clips
	// Seconds is the audio's length in all (audio_seconds only); per
	// request and per second then count audio seconds.
	Seconds    Float `json:"seconds,omitempty"`
	PerRequest Float `json:"per_request"`
	PerSecond  Float `json:"per_second"` // over the measurement window
	// Tokens and TokensPerSecond are the input (prompt) tokens of the
	// successful requests and their rate over the window: a pooling
	// benchmark's throughput, which has no output tokens; absent when no
	// request's count is known (and for transcriptions).
	Tokens          Int   `json:"tokens,omitempty"`
	TokensPerSecond Float `json:"tokens_per_second,omitempty"`
}

// GroupFigures are the figures of one model's (or target's) requests in
// the measurement window: counts by status, and over the successful
// ones latencies (ms), token sums and rates (over the window).
type GroupFigures struct {
	Name                  string       `json:"name"`
	Requests              StatusCounts `json:"requests"`
	RequestsPerSecond     Float        `json:"requests_per_second"`
	PromptTokens          Int          `json:"prompt_tokens"`
	OutputTokens          Int          `json:"output_tokens"`
	OutputTokensPerSecond Float        `json:"output_tokens_per_second"`
	Inputs                Int          `json:"inputs,omitempty"` // pooling requests' inputs or documents
	// GoodRequests and Attainment judge the group's requests against the
	// SLO's per-request thresholds: those that met them all, and their
	// share of the requests judged; absent without an SLO verdict.
	GoodRequests     Int        `json:"good_requests,omitempty"`
	Attainment       *Float     `json:"attainment,omitempty"`
	RequestLatencyMs *Quantiles `json:"request_latency_ms"`
	TTFTMs           *Quantiles `json:"ttft_ms"`
	ITLMs            *Quantiles `json:"itl_ms"`
}

// Quantiles is a small summary of a group's values (nearest-rank
// percentiles).
type Quantiles struct {
	Count Int   `json:"count"`
	Mean  Float `json:"mean"`
	P50   Float `json:"p50"`
	P90   Float `json:"p90"`
	P99   Float `json:"p99"`
	Max   Float `json:"max"`
}

// ClientLoad describes goodput's own process during a benchmark, so that a
// reader can tell whether the client was fast enough for its figures. The
// load engine measures it (loadgen.Result.Client) in this form.
type ClientLoad struct {
	CPUSeconds  Float `json:"cpu_seconds"`  // user+system CPU of the process
	WallSeconds Float `json:"wall_seconds"` // benchmark duration
	Cores       Float `json:"cores"`        // CPU seconds per wall second
	MaxProcs    Int   `json:"max_procs"`    // GOMAXPROCS at the start (the governor's ceiling)
	// MinProcs is the lowest GOMAXPROCS goodput's governor set while its
	// own CPU use was low (max_procs when it never lowered it), and
	// ProcsChanges how often it changed the setting.
	MinProcs     Int `json:"min_procs"`
	ProcsChanges Int `json:"procs_changes"`
	// SchedLag is how late a 5 ms timer fired in the process (µs): it
	// grows when the process is CPU-starved, and delays every timestamp
	// taken.
	SchedLagP50us Float `json:"sched_lag_p50_us"`
	SchedLagP99us Float `json:"sched_lag_p99_us"`
	SchedLagMaxus Float `json:"sched_lag_max_us"`
	// DeliveryLag is chunk arrival minus the server's emission stamp (µs;
	// only against a goodput mock, which stamps its chunks): it grows when
	// the client reads slower than the server writes.
	DeliveryLagP50us Float `json:"delivery_lag_p50_us"`
	DeliveryLagP99us Float `json:"delivery_lag_p99_us"`
	DeliverySamples  Int   `json:"delivery_samples"`
	// ReadLag is, per request, the longest the client took to read bytes
	// after the kernel received them (µs; only with kernel receive
	// timestamps, which keep it out of the latency figures): P50 and P99
	// over requests. A client that lags this much sends its next requests
	// late.
	ReadLagP50us   Float `json:"read_lag_p50_us"`
	ReadLagP99us   Float `json:"read_lag_p99_us"`
	ReadLagSamples Int   `json:"read_lag_samples"`
	// ArrivalTimestamps says how response arrival times were taken:
	// "kernel" (the kernel's receive timestamps), "user" (when the
	// client's reads returned) or a mix with its counts; empty when no
	// response arrived.
	ArrivalTimestamps string `json:"arrival_timestamps"`
	// HTTPClient names what sent the requests: "goodput" (goodput's own
	// HTTP/1.1 client), "net/http" (Go's, for HTTP/2 and proxies) or
	// both with their target counts.
	HTTPClient string `json:"http_client,omitempty"`
	// GOGC is the Go collector's setting while the benchmark ran (GOGC:
	// 100 by default, 50 for plans of many streams; -1 off): it trades
	// the client's memory against its CPU. The largest of a merge's
	// shards.
	GOGC Int `json:"gogc,omitempty"`
	// Saturated says the client could not keep up; the benchmark's latency
	// figures are then unreliable, for the Reason given.
	Saturated bool   `json:"saturated"`
	Reason    string `json:"reason"`
	// Backoffs counts the pauses closed-loop streams took after
	// consecutive immediate failures (a server refusing every request at
	// once), and BackoffS their total in seconds over all streams; both
	// omitted when none.
	Backoffs Int   `json:"backoffs,omitempty"`
	BackoffS Float `json:"backoff_s,omitempty"`
	// ConnRetries counts requests goodput's HTTP/1.1 client sent again, on
	// a freshly dialled connection, because the server had closed the
	// kept-alive connection they were written on before any byte of a
	// response; ClosedIdleConns counts idle connections found closed by
	// the server before reuse (llama.cpp's server closes one after every
	// streamed response). Neither is a failed request; both omitted when
	// none.
	ConnRetries     Int `json:"conn_retries,omitempty"`
	ClosedIdleConns Int `json:"closed_idle_conns,omitempty"`
}

// RequestCounts accounts for every record the accumulator saw.
type RequestCounts struct {
	Recorded      Int `json:"recorded"`       // records added
	Invalid       Int `json:"invalid"`        // records without status or timestamps (ignored)
	NotDispatched Int `json:"not_dispatched"` // incomplete records never sent (excluded, like GuideLLM)
	OutsideWindow Int `json:"outside_window"` // records excluded by warmup/cooldown
	InWindow      Int `json:"in_window"`      // records in the metrics (= metrics.request_totals.total)
	ExactCap      Int `json:"exact_cap"`      // per-request summaries kept exactly at most
	// OnlineMismatch counts in-window decisions the histograms had to
	// make before the window was known and that turned out wrong.
	OnlineMismatch Int `json:"online_mismatch"`
	// NotSent counts requests an open-loop schedule had due but never
	// dispatched (its in-flight cap was full when the benchmark ended):
	// no record exists for them, and GuideLLM would not count them.
	NotSent Int `json:"not_sent"`
}

// ErrorCounts breaks down the errored and incomplete requests in the
// window.
type ErrorCounts struct {
	// ErrorRate is errored / all requests in the window (0 when empty).
	ErrorRate Float `json:"error_rate"`
	// ByClass counts errored and incomplete requests by error class
	// (record.ErrorClass: http_status, connect, timeout, stall, disconnect,
	// stream_error, protocol, empty_response, cancelled, client).
	ByClass map[string]Int `json:"by_class"`
	// ByHTTPStatus counts errored requests by HTTP status code.
	ByHTTPStatus map[string]Int `json:"by_http_status"`
	// Messages is the most common message of each class in ByClass (one
	// line, cut to 200 bytes) and how many of the class's requests had
	// it; absent when no request failed.
	Messages map[string]ErrorMessage `json:"messages,omitempty"`
}

// ErrorMessage is an error message and how many requests had it.
type ErrorMessage struct {
	Message string `json:"message"`
	Count   Int    `json:"count"`
}

// ExtraMetrics are goodput's distributions. Unlike GuideLLM's fields,
// a request without a value is left out ("absent means absent"): a failed
// request has no TTFT rather than a TTFT of 0.
type ExtraMetrics struct {
	// RequestLatency is End − Dispatched in seconds, over requests that
	// were dispatched.
	RequestLatency *StatusDistributionSummary `json:"request_latency"`
	// TimeToFirstTokenMs is FirstToken − Dispatched, requests with a token.
	TimeToFirstTokenMs *StatusDistributionSummary `json:"time_to_first_token_ms"`
	// TimeToFirstOutputTokenMs is FirstOutputToken − Dispatched.
	TimeToFirstOutputTokenMs *StatusDistributionSummary `json:"time_to_first_output_token_ms"`
	// TimeToSecondTokenMs is the second token-bearing chunk − Dispatched
	// (from the HDR histograms, like ITLPerGapMs).
	TimeToSecondTokenMs *StatusDistributionSummary `json:"time_to_second_token_ms"`
	// TimePerOutputTokenMs is GuideLLM's TPOT (token-weighted), over
	// requests with at least one output token.
	TimePerOutputTokenMs *StatusDistributionSummary `json:"time_per_output_token_ms"`
	// InterTokenLatencyMs is GuideLLM's per-request average ITL weighted
	// by output tokens − 1, over requests with at least two tokens.
	InterTokenLatencyMs *StatusDistributionSummary `json:"inter_token_latency_ms"`
	// ITLPerGapMs is every gap between consecutive token-bearing chunks of
	// every request, one sample per gap (from the HDR histograms: the mean,
	// min, max and count are exact, percentiles within 0.1%).
	ITLPerGapMs *StatusDistributionSummary `json:"itl_per_gap_ms"`
	// ITLPerTokenMs is the same gaps divided by the tokens the later chunk
	// carried, one sample per token (chunks without token counts count as
	// one token; chunks reporting zero tokens are left out).
	ITLPerTokenMs *StatusDistributionSummary `json:"itl_per_token_ms"`
	// DispatchLatenessMs is Dispatched − Intended: how late the client
	// sent each request against its schedule (open-loop strategies).
	DispatchLatenessMs *StatusDistributionSummary `json:"dispatch_lateness_ms"`
	// ScheduledTimeToFirstTokenMs is FirstToken − Intended: TTFT as the
	// schedule's user saw it, including the client's lateness
	// (coordinated-omission-free).
	ScheduledTimeToFirstTokenMs *StatusDistributionSummary `json:"scheduled_time_to_first_token_ms"`
	// ScheduledRequestLatency is End − Intended in seconds.
	ScheduledRequestLatency *StatusDistributionSummary `json:"scheduled_request_latency"`
}

// TokenMismatch compares the server's output token counts (usage) with the
// client's own count (tokenizer), over in-window requests that have both
// (counted as requests complete, like the histograms).
type TokenMismatch struct {
	Compared     Int `json:"compared"`
	Equal        Int `json:"equal"`
	ServerHigher Int `json:"server_higher"`
	ClientHigher Int `json:"client_higher"`
	// Difference is server − client tokens per request.
	Difference *DistributionSummary `json:"difference"`
}

// PromptOverhead is the server's prompt count minus the client's count of
// the raw prompt content, per in-window request that has both.
type PromptOverhead struct {
	// Applied is the overhead the client took off each exact synthetic
	// prompt so that the server bills the requested count
	// (--chat-template-overhead); 0 when none.
	Applied Int `json:"applied"`
	// Tokens is the measured overhead per request (its count is the
	// number of requests measured).
	Tokens *DistributionSummary `json:"tokens"`
}

// Token count kinds (TokenWarning.Tokens).
const (
	TokensPrompt = "prompt"
	TokensOutput = "output"
)

// TokenWarning says that the server's and the client's counts of one kind
// of tokens disagree by more than the threshold.
type TokenWarning struct {
	Tokens string `json:"tokens"` // TokensPrompt or TokensOutput
	// DifferencePct is Σ|server − client| / Σ server × 100 over the
	// compared requests, and ThresholdPct the threshold it exceeded.
	DifferencePct Float `json:"difference_pct"`
	ThresholdPct  Float `json:"threshold_pct"`
	// RequestsPct is the share of compared requests whose counts differ.
	RequestsPct Float `json:"requests_pct"`
	// Tokenizer is the client's tokenizer ("" when none).
	Tokenizer string `json:"tokenizer"`
	// Message says what disagrees and its likely cause, in one line.
	Message string `json:"message"`
}

// Histograms are goodput's lossless histograms of the in-window requests,
// one per metric and status, serialised with HistEncoding. Values are
// integers in Unit (nanoseconds); token-weighted metrics (tpot, itl)
// record each request's value once per token. Merge them across runs or
// shards with MergeHistograms and re-derive percentiles with
// HistogramSummary.
type Histograms struct {
	Encoding          string                       `json:"encoding"`
	Unit              string                       `json:"unit"`
	LowestDiscernible Int                          `json:"lowest_discernible"`
	HighestTrackable  Int                          `json:"highest_trackable"`
	SignificantDigits Int                          `json:"significant_digits"`
	Clamped           Int                          `json:"clamped"`
	Metrics           map[string]*StatusHistograms `json:"metrics"`
}

// StatusHistograms holds one metric's serialised histogram per status
// ("" when the status had no samples).
type StatusHistograms struct {
	Successful string `json:"successful"`
	Errored    string `json:"errored"`
	Incomplete string `json:"incomplete"`
}

// Set stores the encoded histogram of status st (StatusSuccessful, …).
func (h *StatusHistograms) Set(st uint8, enc string) {
	switch st {
	case StatusSuccessful:
		h.Successful = enc
	case StatusErrored:
		h.Errored = enc
	default:
		h.Incomplete = enc
	}
}

// Histogram metric keys in Histograms.Metrics, besides the per-request
// metrics' own (metric.Latency.Hist).
const (
	HistITLPerGap   = "itl_per_gap"
	HistITLPerToken = "itl_per_token"
)

// Drain methods (DrainWait.Method).
const (
	DrainGauges  = "gauges"  // the server's running and waiting gauges
	DrainLatency = "latency" // the previous round's longest request latency
	DrainNone    = "none"    // nothing to wait for (a first round without gauges)
	DrainProbe   = "probe"   // one-token probes until one is as fast as on the idle server
)

// DrainWait is how a benchmark's round began: how long the runner waited
// for the server to finish what earlier rounds left (their cancelled
// requests go on where the server does not abort them), and what the server
// reported when the round started.
type DrainWait struct {
	// WaitedS is the time waited before the round, in seconds.
	WaitedS Float `json:"waited_s"`
	// Method is DrainGauges, DrainProbe, DrainLatency or DrainNone.
	Method string `json:"method"`
	// Running and Waiting are the server's requests at the round's start,
	// summed over engines; null when not read.
	Running *Float `json:"running"`
	Waiting *Float `json:"waiting"`
	// Busy says the round started on a busy server: the bound ran out
	// first (by the gauges, or by the latency estimate). Knee and sweep
	// verdicts leave such a round out unless told to keep it.
	Busy bool `json:"busy"`
	// Note says what went wrong reading the gauges, or why the estimate
	// was used; "" when nothing did.
	Note string `json:"note,omitempty"`
	// With DrainProbe: Probes is the number of one-token probes sent,
	// ProbeTTFTMs the last one's time to first token and ProbeLimitMs the
	// most a probe may take for the server to count as idle (set from the
	// idle baseline measured before the first round).
	Probes       Int    `json:"probes,omitempty"`
	ProbeTTFTMs  *Float `json:"probe_ttft_ms,omitempty"`
	ProbeLimitMs *Float `json:"probe_limit_ms,omitempty"`
}

// Warning is the console's line about a round that started on a busy
// server, "" when it did not.
func (d *DrainWait) Warning() string {
	if d == nil || !d.Busy {
		return ""
	}
	state := "its longest request was presumably still running (no server gauges)"
	switch {
	case d.Method == DrainProbe && d.ProbeTTFTMs != nil && d.ProbeLimitMs != nil:
		state = fmt.Sprintf("a one-token probe still waited %.0f ms for its first token, above the %.0f ms limit set by the idle server's probes (no server gauges)",
			float64(*d.ProbeTTFTMs), float64(*d.ProbeLimitMs))
	case d.Running != nil && d.Waiting != nil:
		state = fmt.Sprintf("the server still had %g requests running and %g waiting", float64(*d.Running), float64(*d.Waiting))
	}
	return fmt.Sprintf("started on a busy server: after waiting %.1f s for earlier rounds to drain, %s; its figures are contaminated and knee and sweep verdicts leave it out",
		float64(d.WaitedS), state)
}
