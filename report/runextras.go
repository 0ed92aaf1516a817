package report

// RunExtras is goodput's data about the whole run, written under the
// top-level key "goodput" (GuideLLM's loader drops unknown top-level keys,
// so a GuideLLM reader still loads the file).
type RunExtras struct {
	Version int    `json:"version"`
	RunID   string `json:"run_id"`
	// Interrupted is set when the run was stopped by a signal: the
	// benchmarks present are complete up to that moment (the last one is
	// marked with stop_reason "interrupted").
	Interrupted bool `json:"interrupted"`
	// SLO is the objective every benchmark was judged against.
	SLO *SLOSpec `json:"slo,omitempty"`
	// Knee is the result of a sweep or knee search (nil for plain runs).
	Knee *Knee `json:"knee,omitempty"`
	// ThroughputKnee is GuideLLM's knee detection beside it: where the
	// output token throughput stops rising with concurrency (nil unless
	// asked for).
	ThroughputKnee *ThroughputKnee `json:"throughput_knee,omitempty"`
	// Trials is the spread of the figures across repeated runs of the
	// plan (--num-runs); nil for a single run.
	Trials *Trials `json:"trials,omitempty"`
	// Metadata is what makes the run auditable (the twelve fields).
	Metadata *RunMetadata `json:"metadata,omitempty"`
	// Shard identifies a shard report of a multi-pod run (shard.go).
	Shard *ShardInfo `json:"shard,omitempty"`
	// Merge describes a report merged from shards (merge.go).
	Merge *MergeInfo `json:"merge,omitempty"`
	// Notes say how the command line was read where that may surprise:
	// a flag superseded by another, a named output file overwritten.
	Notes []string `json:"notes,omitempty"`
	// Lost is what the run measured but could not write (a full disk):
	// the report's figures are complete, the records named here are not
	// in the records file.
	Lost []LostOutput `json:"lost,omitempty"`
}

// LostOutput is a file the run could not write in full: the records file
// keeps its whole lines up to the first failed write, and every record
// from that write on is lost.
type LostOutput struct {
	File           string `json:"file"`
	RecordsWritten int    `json:"records_written"`
	RecordsLost    int    `json:"records_lost"`
	Error          string `json:"error"`
}

// SLOSpec is a declared service-level objective.
type SLOSpec struct {
	// Spec is the canonical text form, e.g.
	// "ttft_p99=500ms,itl_p95=50ms,error_rate=0.5%".
	Spec string `json:"spec"`
	// Default is true when no --slo was given and the documented default
	// (the interactive-chat SLO) applied.
	Default bool `json:"default"`
}

// SLOResult is one benchmark judged against the SLO (in Extras.SLO).
type SLOResult struct {
	Spec       string            `json:"spec"`
	Default    bool              `json:"default"`
	Pass       bool              `json:"pass"`
	Objectives []ObjectiveResult `json:"objectives"`
	// Attainment is the share of in-window requests that met every
	// per-request threshold (errored and incomplete requests fail).
	Attainment   Float `json:"attainment"`
	GoodRequests Int   `json:"good_requests"`
	// GoodputRPS and GoodputOutputTokS count only requests that met every
	// per-request threshold, over the measurement window.
	GoodputRPS        Float `json:"goodput_requests_per_second"`
	GoodputOutputTokS Float `json:"goodput_output_tokens_per_second"`
	// ThroughputOutputTokS is the output token rate of all successful
	// requests over the same window, for goodput = throughput comparisons.
	ThroughputOutputTokS Float `json:"throughput_output_tokens_per_second"`
	// Decision is the verdict at the run's confidence: holds (every
	// objective holds at it), breaks (some objective breaks at it) or
	// indeterminate (the data cannot tell, though Pass gives the point
	// estimate's side); Confidence is how sure: the least holding
	// confidence, else the greatest breaking one. Empty in older reports.
	Decision   string `json:"decision,omitempty"`
	Confidence Float  `json:"confidence,omitempty"`
}

// Decisions of an SLO or one of its objectives at a confidence.
const (
	DecisionHolds         = "holds"
	DecisionBreaks        = "breaks"
	DecisionIndeterminate = "indeterminate"
)

// ObjectiveResult is one objective of an SLO on one benchmark.
type ObjectiveResult struct {
	Key        string `json:"key"`        // e.g. ttft_p99, error_rate
	Metric     string `json:"metric"`     // ttft, itl, tpot, e2e, error_rate
	Percentile Float  `json:"percentile"` // 0 for error_rate
	Unit       string `json:"unit"`       // ms, or fraction for error_rate
	Threshold  Float  `json:"threshold"`
	Measured   Float  `json:"measured"`
	// Missing is set when the benchmark had no value to measure (no
	// successful request with a token): the objective then fails.
	Missing bool `json:"missing"`
	Pass    bool `json:"pass"`
	// Censored says Measured is censoring-aware (Kaplan–Meier over the
	// requests cut off at the end too; goodput.censored), and AtLeast that
	// the estimate never reached the percentile: Measured is then only a
	// lower bound (the longest time seen).
	Censored bool `json:"censored,omitempty"`
	AtLeast  bool `json:"at_least,omitempty"`
	// Decision (holds, breaks, indeterminate) and Confidence are the
	// objective's verdict at the run's confidence and how sure it is of
	// the side Pass is on (exact binomial for a percentile, error rate or
	// attainment; Student's t for a mean; the percentile's interval when
	// censored). Empty for a maximum.
	Decision   string `json:"decision,omitempty"`
	Confidence Float  `json:"confidence,omitempty"`
}

// Knee is the highest load whose goodput still equals its throughput under
// the SLO, as found by a sweep or knee search.
type Knee struct {
	Found bool `json:"found"`
	// Reason explains the outcome in one sentence, e.g. that the SLO held
	// up to a client limit (and which), so no knee was seen.
	Reason string `json:"reason"`
	// Mode is sweep, knee-rate, knee-concurrency or list.
	Mode string `json:"mode"`
	// Index is the benchmark index of the knee round; Below and Above the
	// rounds either side (the highest passing round is the knee; Above is
	// the lowest failing load above it). -1 when absent.
	Index Int `json:"index"`
	Below Int `json:"below"`
	Above Int `json:"above"`
	// Rate is the knee round's request rate (req/s, configured for
	// open-loop rounds, achieved otherwise); Streams its configured
	// concurrency (closed loop); Concurrency the achieved mean concurrency.
	Rate Float `json:"rate"`
	// AchievedRate is, for an open-loop knee round, the rate at which the
	// server completed its requests (successful requests over the round's
	// duration less their mean latency); omitted otherwise.
	AchievedRate         Float `json:"achieved_rate,omitempty"`
	Streams              Int   `json:"streams"`
	Concurrency          Float `json:"concurrency"`
	GoodputOutputTokS    Float `json:"goodput_output_tokens_per_second"`
	ThroughputOutputTokS Float `json:"throughput_output_tokens_per_second"`
	TTFTP99Ms            Float `json:"ttft_p99_ms"`
	ITLP95Ms             Float `json:"itl_p95_ms"`
	// TargetLoadTokS and Replicas: replicas needed to serve a target
	// output token rate = ceil(target / goodput at the knee); 0 when no
	// target was given.
	TargetLoadTokS Float `json:"target_load_tokens_per_second"`
	Replicas       Int   `json:"replicas"`
	// Limit names the client-side limit that ended the search without a
	// knee (max concurrency, max rate, time budget), "" otherwise.
	Limit string `json:"limit"`
	// HoldsConfidence is how sure the knee round holds the SLO and
	// BreaksConfidence how sure the round above breaks it (their SLO
	// decisions, at the run's confidence). Indeterminate says one side or
	// both could not be decided at that confidence: the search then names
	// no knee (Found is false) but keeps the bracket (Index, Above). All
	// omitted in older reports.
	HoldsConfidence  Float `json:"holds_confidence,omitempty"`
	BreaksConfidence Float `json:"breaks_confidence,omitempty"`
	Indeterminate    bool  `json:"indeterminate,omitempty"`
}

// RunMetadata holds the twelve fields that make a run auditable, plus free
// labels. Missing lists the fields that could not be filled.
type RunMetadata struct {
	Engine            string            `json:"engine"`
	EngineVersion     string            `json:"engine_version"`
	Model             string            `json:"model"`
	ModelRevision     string            `json:"model_revision"`
	Precision         string            `json:"precision"`
	PrecisionInferred bool              `json:"precision_inferred"`
	Tokenizer         string            `json:"tokenizer"`
	TokenizerHash     string            `json:"tokenizer_hash"`
	ISLTokens         Float             `json:"isl_tokens"`
	OSLTokens         Float             `json:"osl_tokens"`
	Data              string            `json:"data"`
	Hardware          string            `json:"hardware"`
	MaxConcurrency    Int               `json:"max_concurrency"`
	GoodputVersion    string            `json:"goodput_version"`
	GoodputCommit     string            `json:"goodput_commit"`
	SLO               string            `json:"slo"`
	Warmup            string            `json:"warmup"`
	RunID             string            `json:"run_id"`
	Labels            map[string]string `json:"labels"`
	// Sources says where each filled field came from (e.g. "engine":
	// "GET /version", "hardware": "--label").
	Sources map[string]string `json:"sources"`
	Missing []string          `json:"missing"`
	// ServerSlots is how many sequences the server decodes at once, where
	// it says (llama.cpp's total_slots); absent when unknown.
	ServerSlots Int `json:"server_slots,omitempty"`
}

// GoodputCounts are the good-request counts of one benchmark's
// measurement window, the input of SLO.Judge.
type GoodputCounts struct {
	// InWindow counts the requests in the measurement window; Judged
	// those with a verdict (the undetermined ones left out); Good those
	// that met every per-request threshold.
	InWindow, Judged, Good int64
	// GoodOutputTokens sums the output tokens of the good requests,
	// SuccessfulOutputTokens those of every successful request.
	GoodOutputTokens, SuccessfulOutputTokens int64
	// WindowSeconds is the measurement window's duration: Benchmark.Duration
	// computed from the nanosecond timestamps (measure end − measure start).
	WindowSeconds float64
	// Approximate is set when the benchmark exceeded Config.ExactCap: the
	// requests beyond it were placed in or out of the window by the
	// online decision (see Extras.InexactReasons), not the final window.
	Approximate bool
	// Confidence is the confidence the verdict's decisions are taken at
	// (0: stats' default).
	Confidence float64
}

// ThroughputKnee is GuideLLM's knee detection (--knee-detection) of a
// concurrent profile: a two-segment regression of successful output
// tokens/s on concurrency, fitted on the initial rounds (Initial), then,
// when adaptive, on those and the grid of concurrencies run around the
// knee (AdaptivePlan, Final). Final is Initial when not adaptive.
type ThroughputKnee struct {
	Initial      *KneeFit `json:"initial"`
	AdaptivePlan []Int    `json:"adaptive_plan"`
	Final        *KneeFit `json:"final"`
}

// KneeFit is one fit. Found says the two segments explain the curve
// (rising slope > 0, tail slope ≤ 25 % of it, squared error at least
// halved against one line, throughput at the breakpoint ≥ 85 % of the
// peak); Reason says why not. Slopes are of the normalised curve (both
// axes divided by their maximum).
type KneeFit struct {
	Found  bool   `json:"found"`
	Reason string `json:"reason"`
	// KneeConcurrency is where the two lines meet (the breakpoint when
	// they meet outside its neighbours); SaturationConcurrency the first
	// measured concurrency at or above it; BreakpointConcurrency the
	// measured point the segments split at.
	KneeConcurrency       *Float `json:"knee_concurrency"`
	SaturationConcurrency *Float `json:"saturation_concurrency"`
	BreakpointConcurrency *Float `json:"breakpoint_concurrency"`
	RisingSlope           Float  `json:"rising_slope"`
	TailSlope             Float  `json:"tail_slope"`
	// ErrorReduction is 1 − two segments' squared error ÷ one line's.
	ErrorReduction       Float       `json:"error_reduction"`
	PeakOutputTokS       Float       `json:"peak_output_tokens_per_second"`
	BreakpointOutputTokS Float       `json:"breakpoint_output_tokens_per_second"`
	Points               []KneePoint `json:"points"`
}

// KneePoint is one measured concurrency: its successful output tokens/s
// (the mean over its rounds when run more than once).
type KneePoint struct {
	Concurrency Float `json:"concurrency"`
	OutputTokS  Float `json:"output_tokens_per_second"`
}

// Trials summarises a plan run several times (AIPerf's multi-run
// confidence): for each load (strategy) run more than once, each key
// figure's values across the runs, their mean, sample standard deviation,
// coefficient of variation, standard error and Student's t interval of the
// mean. A figure whose coefficient of variation exceeds
// VariationThreshold is flagged: its runs disagree more than the
// threshold allows, and one run's figure is not to be trusted alone.
type Trials struct {
	Runs               Int          `json:"runs"`
	Confidence         Float        `json:"confidence"`
	VariationThreshold Float        `json:"variation_threshold"`
	Points             []TrialPoint `json:"points"`
	// Flagged lists "<strategy>: <metric>" of every flagged figure.
	Flagged []string `json:"flagged"`
}

// TrialPoint is one load's figures across runs; Benchmarks are the
// indices of its rounds, in run order.
type TrialPoint struct {
	Strategy   string        `json:"strategy"`
	Benchmarks []Int         `json:"benchmarks"`
	Metrics    []TrialMetric `json:"metrics"`
}

// TrialMetric is one figure across runs, in AIPerf's aggregate names
// (mean, std, cv, se, ci_low, ci_high, t_critical); the interval bounds
// are null with fewer than two values.
type TrialMetric struct {
	Metric    string  `json:"metric"` // GuideLLM's field and statistic, e.g. time_to_first_token_ms_p99
	Values    []Float `json:"values"`
	Mean      Float   `json:"mean"`
	Std       Float   `json:"std"`
	CV        Float   `json:"cv"`
	SE        Float   `json:"se"`
	CILow     *Float  `json:"ci_low"`
	CIHigh    *Float  `json:"ci_high"`
	TCritical Float   `json:"t_critical"`
	Exceeds   bool    `json:"exceeds_threshold"`
}
