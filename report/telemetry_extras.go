package report

// BenchmarkTelemetry is what the telemetry sources (GPU energy, cost,
// inference-server metrics) measured over one benchmark's window, written
// under the benchmark's "goodput"."telemetry" key. It is filled by package
// scorecard's observer; nil when the run had no telemetry.
//
// Every figure covers Window, the benchmark's measurement window, so that
// J/token, cost per million tokens and the latency percentiles share one
// denominator. A nil *Float is a figure that could not be computed (JSON
// null); Missing and Warnings say why.
type BenchmarkTelemetry struct {
	Window TelemetryWindow `json:"window"`
	// Tokens are the client's own counts of what was generated inside the
	// window (the denominators of the energy figures).
	Tokens WindowTokens `json:"tokens"`
	// Energy is nil when no energy source was configured or reachable.
	Energy *EnergyTelemetry `json:"energy"`
	// Cost is nil when no price (--gpu-cost-per-hour, --cost-per-hour or
	// --opencost) was given or reachable.
	Cost *CostTelemetry `json:"cost"`
	// Server is nil when the inference server's /metrics was not scraped.
	Server *ServerTelemetry `json:"server"`
	// GPU is the GPUs' utilization, memory, temperature, clocks, power
	// limit and throttle reasons over the window; nil when the energy
	// source exports none of them.
	GPU *GPUTelemetry `json:"gpu,omitempty"`
	// Missing lists the sources that were asked for but are not in the
	// figures (unreachable with --telemetry-optional, or failed for this
	// window), with the reason.
	Missing  []MissingTelemetry `json:"missing"`
	Warnings []string           `json:"warnings"`
}

// TelemetryWindow is the time span the telemetry figures cover.
type TelemetryWindow struct {
	Start     Float `json:"start"` // Unix seconds
	End       Float `json:"end"`   // Unix seconds
	DurationS Float `json:"duration_s"`
	// Basis is "measurement" (scheduler_metrics.measure_start_time to
	// measure_end_time, after warmup and before cooldown) or "round" (the
	// benchmark's start to its end, when the report had no measurement
	// window).
	Basis string `json:"basis"`
}

// WindowTokens are counted by the client from its own records: each
// token-bearing chunk's tokens at the chunk's arrival time (the server's
// per-chunk usage when it streams it, else the request's output tokens
// spread evenly over its chunks), prompt tokens at the first token (else
// at the end), and requests at their end. Only what falls inside the window
// counts, so a request straddling an edge contributes its share.
type WindowTokens struct {
	Output Float `json:"output"`
	Prompt Float `json:"prompt"`
	// Requests completed inside the window, any status; Successful the
	// ones that succeeded.
	Requests   Int `json:"requests"`
	Successful Int `json:"successful"`
	// OutputTokS is Output / DurationS.
	OutputTokS Float `json:"output_tokens_per_second"`
}

// EnergyTelemetry is the GPU energy over the window from the primary energy
// source, the figures derived from it, and the other sources as
// cross-checks.
type EnergyTelemetry struct {
	// Source names the primary source ("dcgm-exporter <URL>", "nvml",
	// "prometheus <URL>", ...); Method is counter, power-integral, mixed or
	// none; Scope says what the energy covers.
	Source string `json:"source"`
	Method string `json:"method"`
	Scope  string `json:"scope"`
	// EnergyJ and EnergyWh are the energy over the window (Wh = J / 3600).
	EnergyJ  *Float `json:"energy_j"`
	EnergyWh *Float `json:"energy_wh"`
	// MeanPowerW is the time-weighted mean of the summed power; PeakPowerW
	// the highest summed power seen.
	MeanPowerW *Float `json:"mean_power_w"`
	PeakPowerW *Float `json:"peak_power_w"`
	// PowerSeries is the summed power over the window at up to 120 evenly
	// spaced instants (direct sampling; empty from Prometheus).
	PowerSeries []PowerPoint `json:"power_series,omitempty"`
	// GPUs counts the GPUs in the figures; GPUModel names them.
	GPUs     Int    `json:"gpus"`
	GPUModel string `json:"gpu_model"`
	// UpdateIntervalS is the coarsest interval at which the source
	// refreshed its values (detected, not configured); null when unknown.
	UpdateIntervalS *Float `json:"update_interval_s"`
	// Coverage is the fraction of the window the samples span (1 = all).
	Coverage *Float               `json:"coverage"`
	PerGPU   []GPUEnergyTelemetry `json:"per_gpu"`
	// Derived are the per-token, per-request and carbon figures.
	Derived *EnergyDerived `json:"derived"`
	// CrossChecks are the other configured energy sources over the same
	// window.
	CrossChecks []EnergyCrossCheck `json:"cross_checks"`
	Warnings    []string           `json:"warnings"`
}

// GPUEnergyTelemetry is one GPU's share of the energy.
type GPUEnergyTelemetry struct {
	Index      string `json:"gpu"`
	UUID       string `json:"uuid"`
	Hostname   string `json:"hostname"`
	Model      string `json:"model"`
	MIG        string `json:"mig"`
	Source     string `json:"source"`
	Method     string `json:"method"`
	EnergyJ    *Float `json:"energy_j"`
	MeanPowerW *Float `json:"mean_power_w"`
	PeakPowerW *Float `json:"peak_power_w"`
	Coverage   *Float `json:"coverage"`
	Samples    Int    `json:"samples"`
}

// EnergyDerived are the figures telemetry.DeriveEnergy computes from the
// window's energy and the client's token counts. "Output" figures divide by
// output tokens, the others by prompt + output tokens.
type EnergyDerived struct {
	JPerOutputToken     *Float `json:"j_per_output_token"`
	JPerToken           *Float `json:"j_per_token"`
	WhPerOutputToken    *Float `json:"wh_per_output_token"`
	WhPerToken          *Float `json:"wh_per_token"`
	KWhPerMOutputTokens *Float `json:"kwh_per_1m_output_tokens"`
	WhPerRequest        *Float `json:"wh_per_request"`
	OutputTokensPerJ    *Float `json:"output_tokens_per_j"`
	TokensPerJ          *Float `json:"tokens_per_j"`
	// PUE is the power usage effectiveness applied (1 = GPU energy only);
	// PUEDefault is true when it is the default rather than --pue.
	PUE                 Float  `json:"pue"`
	PUEDefault          bool   `json:"pue_default"`
	WhPerOutputTokenPUE *Float `json:"wh_per_output_token_pue_adjusted"`
	WhPerTokenPUE       *Float `json:"wh_per_token_pue_adjusted"`
	// GridGCO2PerKWh is --grid-intensity (null when not given); the carbon
	// figures are PUE-adjusted grams of CO2 per million tokens.
	GridGCO2PerKWh       *Float `json:"grid_intensity_gco2_kwh"`
	GCO2PerMOutputTokens *Float `json:"gco2_per_1m_output_tokens"`
	GCO2PerMTokens       *Float `json:"gco2_per_1m_tokens"`
	// The plausibility band applied to JPerOutputToken, by GPU family.
	PlausibilityFamily string   `json:"plausibility_family"`
	PlausibilityLowJ   Float    `json:"plausibility_low_j"`
	PlausibilityHighJ  Float    `json:"plausibility_high_j"`
	Warnings           []string `json:"warnings"`
}

// EnergyCrossCheck is another energy source over the same window.
type EnergyCrossCheck struct {
	Source  string `json:"source"`
	Method  string `json:"method"`
	Scope   string `json:"scope"`
	EnergyJ *Float `json:"energy_j"`
	// DiffPct is (EnergyJ / primary − 1) × 100; null when either is
	// unavailable.
	DiffPct *Float `json:"diff_pct"`
	// Error says why the source gave no figure for this window.
	Error    string   `json:"error"`
	Warnings []string `json:"warnings"`
}

// CostTelemetry prices the window.
type CostTelemetry struct {
	// Source is where the price comes from, e.g. "--gpu-cost-per-hour 2.7
	// × 4 GPUs" or "opencost <URL>/allocation".
	Source string `json:"source"`
	// Currency is the ISO 4217 code the amounts are in (--currency;
	// OpenCost converts nothing, its prices are in its own currency).
	Currency string `json:"currency"`
	// CostPerHour is the deployment's cost per hour; WindowCost its cost
	// over the window.
	CostPerHour Float `json:"cost_per_hour"`
	WindowCost  Float `json:"cost_window"`
	// CPM is the cost per million output tokens:
	// CostPerHour × 10^6 / (BasisTokS × 3600).
	CPM *Float `json:"cpm"`
	// CPMBasis says which rate BasisTokS is: "goodput" (the benchmark's
	// SLO result) or "throughput" (no SLO result: all output tokens).
	CPMBasis  string `json:"cpm_basis"`
	BasisTokS *Float `json:"basis_tokens_per_second"`
	// CostPerRequest is WindowCost / requests completed in the window.
	CostPerRequest *Float `json:"cost_per_request"`
	// OpenCost details the allocation query when OpenCost priced it.
	OpenCost *OpenCostQuery `json:"opencost,omitempty"`
	Warnings []string       `json:"warnings"`
}

// OpenCostQuery records the OpenCost allocation query behind a cost.
type OpenCostQuery struct {
	Path        string           `json:"path"`
	Aggregate   string           `json:"aggregate"`
	QueryStart  Float            `json:"query_start"` // Unix seconds, whole minutes
	QueryEnd    Float            `json:"query_end"`
	QueriedCost Float            `json:"queried_cost"`
	ByKey       map[string]Float `json:"by_key"`
}

// ServerTelemetry is what the inference server's /metrics said about the
// window, beside the client's own figures.
type ServerTelemetry struct {
	Source string `json:"source"`
	Engine string `json:"engine"` // the engine table's name (telemetry.Engines): vllm, sglang, llama.cpp …
	// Replicas counts the /metrics URLs combined (counters and histograms
	// summed over them); absent for one.
	Replicas Int `json:"replicas,omitempty"`
	// Metrics maps each figure to the exposed metric name used.
	Metrics map[string]string `json:"metrics"`
	// KV cache usage is a fraction 0..1; queue depths are requests.
	KVCacheUsageMean    *Float `json:"kv_cache_usage_mean"`
	KVCacheUsageMax     *Float `json:"kv_cache_usage_max"`
	RequestsRunningMean *Float `json:"requests_running_mean"`
	RequestsRunningMax  *Float `json:"requests_running_max"`
	RequestsWaitingMean *Float `json:"requests_waiting_mean"`
	RequestsWaitingMax  *Float `json:"requests_waiting_max"`
	// Counter changes over the window. The token counters cross-check the
	// client's WindowTokens.
	Preemptions      *Float `json:"preemptions"`
	PromptTokens     *Float `json:"prompt_tokens"`
	GenerationTokens *Float `json:"generation_tokens"`
	// Latencies from the server's histograms beside the client's figures.
	TTFT *ServerLatency `json:"ttft"`
	ITL  *ServerLatency `json:"itl"`
	E2E  *ServerLatency `json:"e2e"`
	// RequestsSucceeded is the change of the server's succeeded-requests
	// counter over the window.
	RequestsSucceeded *Float `json:"requests_succeeded,omitempty"`
	// PrefixCache is the prefix cache over the window (vLLM, SGLang).
	PrefixCache *PrefixCacheTelemetry `json:"prefix_cache,omitempty"`
	// SpecDecode is speculative decoding over the window (vLLM, llama.cpp).
	SpecDecode *SpecDecodeTelemetry `json:"spec_decode,omitempty"`
	// The server's own tokens/s gauges (llama.cpp), where it has them.
	PromptThroughputMean     *Float `json:"prompt_throughput_mean,omitempty"`
	PromptThroughputMax      *Float `json:"prompt_throughput_max,omitempty"`
	GenerationThroughputMean *Float `json:"generation_throughput_mean,omitempty"`
	GenerationThroughputMax  *Float `json:"generation_throughput_max,omitempty"`
	// EngineSteps are the engine's steps in the window (llama.cpp's
	// llama_decode calls), BusySlotsPerStep the mean sequences a step
	// carried (its batch).
	EngineSteps      *Float `json:"engine_steps,omitempty"`
	BusySlotsPerStep *Float `json:"busy_slots_per_step,omitempty"`
	// PromptSeconds and GenerationSeconds are the server's prefill and
	// generation time summed over requests (llama.cpp counts a prefill's
	// when it ends and a request's generation when the request ends).
	PromptSeconds     *Float `json:"prompt_seconds,omitempty"`
	GenerationSeconds *Float `json:"generation_seconds,omitempty"`
	// KV cache occupancy in tokens (llama.cpp builds that expose it), and
	// the longest sequence a slot held since the server started.
	KVCacheTokensMean *Float `json:"kv_cache_tokens_mean,omitempty"`
	KVCacheTokensMax  *Float `json:"kv_cache_tokens_max,omitempty"`
	ContextTokensMax  *Float `json:"context_tokens_max,omitempty"`
	// Phases are the server's request-phase histograms (queue, inference,
	// prefill, decode time), and its tokens per engine step.
	QueueTime       *ServerLatency  `json:"queue_time,omitempty"`
	InferenceTime   *ServerLatency  `json:"inference_time,omitempty"`
	PrefillTime     *ServerLatency  `json:"prefill_time,omitempty"`
	DecodeTime      *ServerLatency  `json:"decode_time,omitempty"`
	IterationTokens *TokenHistogram `json:"iteration_tokens,omitempty"`
	Coverage        *Float          `json:"coverage"`
	Warnings        []string        `json:"warnings"`
}

// ServerLatency compares a server-side latency histogram over the window
// with the client's distribution. Server percentiles are interpolated
// inside coarse buckets (histogram_quantile); the client's are exact.
type ServerLatency struct {
	Metric       string `json:"metric"`
	Count        *Float `json:"count"`
	ServerMeanMs *Float `json:"server_mean_ms"`
	ServerP50Ms  *Float `json:"server_p50_ms"`
	ServerP95Ms  *Float `json:"server_p95_ms"`
	ServerP99Ms  *Float `json:"server_p99_ms"`
	// Client names the client distribution compared (a goodput metrics
	// key, e.g. time_to_first_token_ms, successful requests).
	Client      string `json:"client"`
	ClientP50Ms *Float `json:"client_p50_ms"`
	ClientP95Ms *Float `json:"client_p95_ms"`
	ClientP99Ms *Float `json:"client_p99_ms"`
}

// MissingTelemetry is a source or figure that is not in the telemetry.
type MissingTelemetry struct {
	Source string `json:"source"`
	Reason string `json:"reason"`
}

// PowerPoint is the summed GPU power at one instant (Unix seconds, W).
type PowerPoint struct {
	T Float `json:"t"`
	W Float `json:"w"`
}

// GPUTelemetry is the GPU gauges over the window from the first energy
// source that exports them (dcgm-exporter, the ROCm device-metrics-exporter,
// NVML or Prometheus).
type GPUTelemetry struct {
	Source string `json:"source"`
	// GPUs counts the GPUs with at least one gauge.
	GPUs Int `json:"gpus"`
	// Gauges are the exported gauges, combined over the GPUs: utilization
	// (%), sm_active, tensor_active, dram_active and memory_utilization
	// (%), framebuffer_used and framebuffer_free (MiB), temperature and
	// memory_temperature (C), sm_clock and memory_clock (MHz),
	// power_limit (W).
	Gauges []GPUGaugeTelemetry `json:"gauges"`
	// ThrottleReasons names the clock throttle (event) reasons any GPU
	// reported in the window (NVML's names: sw_power_cap,
	// hw_thermal_slowdown, ...); empty when none or not exported.
	ThrottleReasons []string         `json:"throttle_reasons"`
	PerGPU          []GPUGaugesOfGPU `json:"per_gpu"`
}

// GPUGaugeTelemetry is one gauge combined over the GPUs: averaged
// ("mean") for activity, temperature and clocks, summed ("sum") for
// memory and power limit.
type GPUGaugeTelemetry struct {
	Name    string `json:"name"`
	Unit    string `json:"unit"`
	Combine string `json:"combine"`
	GPUs    Int    `json:"gpus"`
	// Mean is the time-weighted mean over the window; Peak the highest
	// single-GPU value (mean gauges) or the highest sum (summed gauges).
	Mean *Float `json:"mean"`
	Peak *Float `json:"peak"`
	// Series is the combined gauge at up to 120 evenly spaced instants
	// (direct sampling; empty from Prometheus).
	Series []GaugePoint `json:"series,omitempty"`
}

// GaugePoint is a gauge at one instant (Unix seconds).
type GaugePoint struct {
	T Float `json:"t"`
	V Float `json:"v"`
}

// GPUGaugesOfGPU is one GPU's gauges over the window.
type GPUGaugesOfGPU struct {
	Index    string `json:"gpu"`
	UUID     string `json:"uuid"`
	Hostname string `json:"hostname"`
	// Gauges maps a gauge name to its mean and peak on this GPU.
	Gauges          map[string]GaugeStat `json:"gauges"`
	ThrottleReasons []string             `json:"throttle_reasons"`
}

// GaugeStat is a gauge's time-weighted mean and peak.
type GaugeStat struct {
	Mean *Float `json:"mean"`
	Peak *Float `json:"peak"`
}

// Gauge returns the combined gauge called name, nil when absent.
func (g *GPUTelemetry) Gauge(name string) *GPUGaugeTelemetry {
	if g == nil {
		return nil
	}
	for i := range g.Gauges {
		if g.Gauges[i].Name == name {
			return &g.Gauges[i]
		}
	}
	return nil
}

// PrefixCacheTelemetry is the prefix cache's hits over its queries, in
// tokens, over the window.
type PrefixCacheTelemetry struct {
	Queries *Float `json:"queries_tokens"`
	Hits    *Float `json:"hits_tokens"`
	HitRate *Float `json:"hit_rate"` // Hits / Queries, 0..1
}

// SpecDecodeTelemetry is speculative decoding over the window: accepted
// over proposed (draft) tokens.
type SpecDecodeTelemetry struct {
	DraftTokens    *Float `json:"draft_tokens"`
	AcceptedTokens *Float `json:"accepted_tokens"`
	AcceptanceRate *Float `json:"acceptance_rate"` // AcceptedTokens / DraftTokens, 0..1
	// Drafts counts the drafts proposed, where the server says.
	Drafts *Float `json:"drafts,omitempty"`
}

// TokenHistogram is a server histogram of token counts over the window
// (vLLM's tokens per engine step).
type TokenHistogram struct {
	Metric string `json:"metric"`
	Count  *Float `json:"count"`
	Mean   *Float `json:"mean"`
	P50    *Float `json:"p50"`
	P95    *Float `json:"p95"`
	P99    *Float `json:"p99"`
}
