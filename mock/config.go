package mock

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// DefaultModel is the model name the mock serves unless Config.Model says otherwise.
const DefaultModel = "goodput-mock"

// DefaultVersion is what GET /version reports unless Config.Version says otherwise.
const DefaultVersion = "goodput-mock-0.1.0"

// Config configures a mock server. Start from DefaultConfig and change what you
// need: New takes every field literally (a zero TTFT means no delay, a false
// Stamp means no stamps) and rejects values outside the documented ranges.
type Config struct {
	// Model is the served model name, reported by /v1/models, echoed in
	// responses and used as the model_name label in /metrics. Requests naming
	// another model get a 404 with an OpenAI-style error body; a request with
	// no "model" field is served. Default "goodput-mock". Must be non-empty.
	Model string
	// LoRAModules are LoRA adapters served as extra models, as vLLM's
	// --lora-modules name=path: /v1/models lists each (its root the path,
	// its parent Model), and requests may name them (lora.go).
	LoRAModules []LoRAModule

	// MaxModelLen is the context length in tokens, reported by /v1/models as
	// max_model_len. As in vLLM, a request whose prompt tokens plus max_tokens
	// exceed it gets a 400, and a request without max_tokens may generate at
	// most MaxModelLen minus its prompt tokens. Default 32768. Must be >= 1.
	MaxModelLen int

	// Personality makes the mock behave as another server does where it
	// differs from vLLM: "vllm" (or ""), "llamacpp" or "ollama" (see
	// PersonalityLlamaCpp and PersonalityOllama). Default "vllm".
	Personality string

	// Version is what GET /version reports as {"version": Version}.
	// Default "goodput-mock-0.1.0". Must be non-empty.
	Version string

	// TTFT is the mean time to first token, measured from the arrival of the
	// request (the moment its handler starts, before the body is read).
	// Default 100ms. Must be >= 0.
	TTFT time.Duration
	// TTFTStdev is the standard deviation of the TTFT (Gaussian, clamped at 0).
	// 0 makes the TTFT exactly TTFT. Default 20ms. Must be >= 0.
	TTFTStdev time.Duration

	// ITL is the mean inter-token latency: the gap between consecutive steps
	// (chunks). Default 20ms. Must be >= 0.
	ITL time.Duration
	// ITLStdev is the standard deviation of each gap (Gaussian, clamped at 0),
	// drawn independently per gap. 0 makes every gap exactly ITL.
	// Default 4ms. Must be >= 0.
	ITLStdev time.Duration

	// OutputTokens is the mean "natural" output length in tokens: the length a
	// request gets when it does not set ignore_eos with max_tokens. The actual
	// length is min(max_tokens if given, natural), where natural is drawn from
	// N(OutputTokens, OutputTokensStdev), rounded and clamped to >= 1; with
	// ignore_eos and max_tokens the length is exactly max_tokens.
	// Default 128. Must be >= 1.
	OutputTokens int
	// OutputTokensStdev is the standard deviation of the natural output length.
	// 0 makes it exactly OutputTokens. Default 32. Must be >= 0.
	OutputTokensStdev float64

	// TokensPerChunk is the number of tokens per step (SSE chunk), like
	// speculative decoding delivering several tokens per engine step. ITL is
	// the gap between steps, so a stream's token rate is TokensPerChunk/ITL.
	// Continuous usage stats count every token. Default 1. Must be >= 1.
	TokensPerChunk int

	// Seed seeds the per-request random generators: request k's parameters
	// (TTFT, gaps, natural length, faults, id) depend only on Seed and k.
	// Any value is valid. Default 0.
	Seed uint64

	// Stamp adds "goodput_emit_ns" (wall-clock Unix ns read immediately before
	// the write) to every JSON payload written. Default true.
	Stamp bool

	// PromptTokenCounter counts the prompt tokens reported in usage and in
	// vllm:prompt_tokens_total. It is called once per text piece (each chat
	// message's text content, a tool call's name and arguments, a tool
	// result, the tools array as sent, or the completion prompt string) and
	// the results are summed (parts without text count 0); a prompt given as token ids
	// counts one per id. Negative results count as 0. It is called from
	// concurrent requests, so it must be safe for concurrent use. nil
	// selects ApproxTokenCount, ceil(bytes/4), which is only an
	// approximation. Default nil.
	PromptTokenCounter func(string) int

	// PromptTokenIDs, when set, tokenizes each text piece: with the prefix
	// cache on its ids count the prompt tokens and are what the cache
	// hashes (with it off PromptTokenCounter counts, if set); it must agree
	// with PromptTokenCounter (len(ids) == count). Without it the prefix cache hashes pseudo
	// tokens consistent with the counter: with the default counter token j
	// of a piece is its bytes 4j..4j+3; with another counter a piece of n
	// tokens is cut into n equal byte segments. It must be safe for
	// concurrent use. Default nil.
	PromptTokenIDs func(string) []int

	// PromptTokenDecoder turns PromptTokenIDs' ids back into text for
	// POST /detokenize; without it (and with PromptTokenIDs set) that
	// endpoint answers 501. Default nil.
	PromptTokenDecoder func([]int) string

	// PrefixCache turns on the automatic prefix cache (vLLM's
	// --enable-prefix-caching): prompts are hashed in blocks of BlockSize
	// tokens, chained so that a block's hash covers every token before
	// it; a request's leading blocks found in the cache (at most its
	// prompt minus one token, in whole blocks) are not prefilled by the
	// capacity model and are reported as cached tokens in usage and in
	// vllm:prefix_cache_hits_total. A finished chat, Responses or Messages
	// answer's blocks are cached after its prompt's, so the next turn hits
	// through it. Default true.
	PrefixCache bool
	// BlockSize is the prefix cache's block size in tokens (vLLM's
	// --block-size). Default 16. Range 1..1024.
	BlockSize int
	// PrefixCacheTokens is the prefix cache's capacity in tokens (whole
	// blocks; the least recently used block is evicted first). 0 means
	// KVCacheTokens. Default 0. Range 0, or BlockSize..1<<30.
	PrefixCacheTokens int

	// StoredResponses is how many Responses API responses the server keeps
	// (least recently used evicted first) for previous_response_id; 0
	// keeps none, and every previous_response_id is then unknown.
	// Default 10000. Range 0..1000000.
	StoredResponses int

	// ToolCallRate is the fraction, in [0,1], of requests offering tools
	// with tool_choice "auto" (or none given) answered with a tool call;
	// "required" and a named function always get one. Whether request k
	// does depends only on Seed and k. Default 0.5.
	ToolCallRate float64
	// ServerToolTime is how long a built-in tool of the Responses API (a
	// tool whose type is not "function": web_search, shell, mcp, …) runs
	// on the server when the model calls it (with the draw above): the
	// server runs it itself and then answers in text, so it adds to the
	// time to first token (GuideLLM's server-side tool calls). Default
	// 100ms. Range 0..1h.
	ServerToolTime time.Duration

	// ErrorRate is the fraction of requests, in [0,1], answered at once (no
	// TTFT wait) with an HTTP error before any stream byte: a status drawn
	// uniformly from ErrorCodes, an OpenAI-style JSON error body, and
	// "Retry-After: 1" on 429.
	// Default 0.
	ErrorRate float64
	// ErrorCodes are the HTTP statuses ErrorRate draws from, each in 400..599.
	// Default [429, 500, 503]. Must be non-empty when ErrorRate > 0.
	ErrorCodes []int

	// DisconnectRate is the fraction of requests, in [0,1], whose connection
	// is closed abruptly (no [DONE], no chunked-encoding terminator) at the
	// time step p would be due, p drawn uniformly in [1, steps-1] (p = 0 for a
	// one-step response: closed at the first step's deadline without data).
	// For a non-streaming request no body is sent. Default 0.
	DisconnectRate float64

	// StallRate is the fraction of requests, in [0,1], whose output pauses for
	// StallDuration before step p (p drawn as for DisconnectRate): step p and
	// all later steps are due StallDuration later than the model says.
	// Default 0.
	StallRate float64
	// StallDuration is the length of an injected stall. Default 1s. Must be
	// > 0 when StallRate > 0.
	StallDuration time.Duration

	// StreamErrorRate is the fraction of requests, in [0,1], that get, at the
	// time step p would be due (p drawn as for DisconnectRate), a vLLM-style
	// `data: {"error":{...,"code":500}}` payload in their 200 stream instead
	// of step p, followed, as vLLM does, by `data: [DONE]`. A non-streaming
	// request gets an HTTP 500 error body at that time instead. Default 0.
	StreamErrorRate float64

	// NoAbort keeps working on a request whose client went away, as
	// servers that do not propagate a disconnect do (llm-d's inference
	// simulator; a gateway in front of vLLM that does not cancel): the
	// request keeps its capacity-model slot (or queue place) and is
	// generated to its end at the model's pace, its tokens counted in
	// vllm:generation_tokens_total and the KV-cache gauge, and it stays in
	// vllm:num_requests_running (or _waiting) until then; it ends as stop
	// or length. Nothing more is written to the client. Stats counts it in
	// Completed and Abandoned. Close still ends it. Default false.
	NoAbort bool

	// MetricsErrorRate is the fraction of GET /metrics scrapes, in [0,1],
	// answered with an HTTP 500 instead of the exposition, as an engine
	// busy or restarting does now and then. Whether scrape j fails depends
	// only on Seed and j. Default 0.
	MetricsErrorRate float64

	// LazyMetrics leaves the engine's counters and histograms out of
	// /metrics until the first completion request is admitted, as a
	// freshly started vLLM creates them at their first observation; the
	// scheduler gauges (running, waiting, KV cache) are always there.
	// Default false.
	LazyMetrics bool

	// ChatTemplateTokens is added to the prompt tokens of every chat
	// completion, a chat template's overhead (role markers, special
	// tokens): in usage.prompt_tokens, vllm:prompt_tokens_total, the
	// context-length check, the KV cache and the capacity model's
	// prefill. Text completions have no template and are not affected
	// (but with the ollama personality, whose template wraps them too).
	// Default 0. Range 0..MaxModelLen-1.
	ChatTemplateTokens int

	// KVCacheTokens is the KV-cache size in tokens behind
	// vllm:kv_cache_usage_perc (and vllm:gpu_cache_usage_perc): the gauge is
	// (prompt tokens + tokens emitted so far, summed over running requests) /
	// KVCacheTokens, capped at 1. With a capacity model, "running" means in
	// the engine's batch and prompt tokens count once prefilled. The mock
	// never rejects or preempts for lack of cache. Default 262144. Must be
	// >= 1.
	KVCacheTokens int

	// Capacity, when set, replaces the independent per-request latency
	// model (TTFT, TTFTStdev, ITL, ITLStdev are then unused) with a
	// continuous-batching engine: MaxNumSeqs slots, a FIFO waiting queue,
	// chunked prefill and a step time growing with the batch. See
	// CapacityModel, Preset and README.md. Default nil.
	Capacity *CapacityModel

	// GPUs is the number of simulated GPUs in the DCGM exposition and the
	// power model. 0 means Capacity.GPUs with a capacity model, else 1.
	// Default 0. Range 0..256.
	GPUs int
	// GPU describes each simulated GPU (name, memory, power model). nil
	// means Capacity.GPU with a capacity model, else DefaultGPU(). Default
	// nil.
	GPU *GPUSpec

	// DCGMAddr, when non-empty, is a second listen address (like
	// dcgm-exporter's :9400) that Start opens for the DCGM exposition,
	// served there at GET /metrics; it is always served on the main
	// address at GET /dcgm/metrics. An empty host binds 127.0.0.1, as for
	// Start. Default "" (no second listener).
	DCGMAddr string
	// DCGMUpdateInterval is how often the DCGM exposition's values change,
	// like dcgm-exporter's --collect-interval (whose default is 30s): every
	// value shows the state at the last multiple of the interval since
	// New, the energy counter its exact value at that instant, power and
	// utilisation their means over the min(1s, interval) before it.
	// Default 1s. Range 1ms..1h.
	DCGMUpdateInterval time.Duration
}

// DefaultConfig returns the documented defaults.
func DefaultConfig() Config {
	return Config{
		Model:             DefaultModel,
		MaxModelLen:       32768,
		Version:           DefaultVersion,
		Personality:       PersonalityVLLM,
		TTFT:              100 * time.Millisecond,
		TTFTStdev:         20 * time.Millisecond,
		ITL:               20 * time.Millisecond,
		ITLStdev:          4 * time.Millisecond,
		OutputTokens:      128,
		OutputTokensStdev: 32,
		TokensPerChunk:    1,
		Seed:              0,
		Stamp:             true,
		ErrorCodes:        []int{429, 500, 503},
		StallDuration:     time.Second,
		KVCacheTokens:     262144,
		PrefixCache:       true,
		BlockSize:         16,
		StoredResponses:   10000,
		ToolCallRate:      0.5,
		ServerToolTime:    100 * time.Millisecond,

		DCGMUpdateInterval: time.Second,
	}
}

// ApproxTokenCount is the default prompt token counter: ceil(len(s)/4), the
// usual "four bytes per token" rule of thumb for English text. It is an
// approximation; plug a real tokenizer into Config.PromptTokenCounter for
// exact counts.
func ApproxTokenCount(s string) int {
	return (len(s) + 3) / 4
}

// validate checks every field and returns the first problem, naming the field
// and the accepted form.
func (c *Config) validate() error {
	if strings.TrimSpace(c.Model) == "" {
		return configErr("Model", "must be a non-empty model name")
	}
	if err := c.validateLoRA(); err != nil {
		return err
	}
	if _, ok := personalities[c.Personality]; !ok && c.Personality != "" {
		return configErr("Personality", "must be one of %s, got %q", strings.Join(PersonalityNames(), ", "), c.Personality)
	}
	if c.MaxModelLen < 1 {
		return configErr("MaxModelLen", "must be >= 1 token, got %d", c.MaxModelLen)
	}
	if c.Version == "" || strings.IndexFunc(c.Version, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
		return configErr("Version", "must be a non-empty string without control characters, got %q", c.Version)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"TTFT", c.TTFT}, {"TTFTStdev", c.TTFTStdev}, {"ITL", c.ITL}, {"ITLStdev", c.ITLStdev}} {
		if d.v < 0 {
			return configErr(d.name, "must be a duration >= 0, got %s", d.v)
		}
	}
	if c.ServerToolTime < 0 || c.ServerToolTime > time.Hour {
		return configErr("ServerToolTime", "must be a duration in 0..1h, got %s", c.ServerToolTime)
	}
	if c.OutputTokens < 1 {
		return configErr("OutputTokens", "must be >= 1, got %d", c.OutputTokens)
	}
	if c.OutputTokensStdev < 0 || math.IsNaN(c.OutputTokensStdev) || math.IsInf(c.OutputTokensStdev, 0) {
		return configErr("OutputTokensStdev", "must be a finite number >= 0, got %v", c.OutputTokensStdev)
	}
	if c.TokensPerChunk < 1 {
		return configErr("TokensPerChunk", "must be >= 1, got %d", c.TokensPerChunk)
	}
	for _, r := range []struct {
		name string
		v    float64
	}{{"ErrorRate", c.ErrorRate}, {"DisconnectRate", c.DisconnectRate}, {"StallRate", c.StallRate}, {"StreamErrorRate", c.StreamErrorRate}, {"MetricsErrorRate", c.MetricsErrorRate}, {"ToolCallRate", c.ToolCallRate}} {
		if !(r.v >= 0 && r.v <= 1) { // also rejects NaN
			return configErr(r.name, "must be a fraction in [0,1], got %v", r.v)
		}
	}
	if c.ErrorRate > 0 && len(c.ErrorCodes) == 0 {
		return configErr("ErrorCodes", "must list at least one HTTP status in 400..599 when ErrorRate > 0")
	}
	for _, code := range c.ErrorCodes {
		if code < 400 || code > 599 {
			return configErr("ErrorCodes", "must be HTTP statuses in 400..599, got %d", code)
		}
	}
	if c.StallDuration < 0 || (c.StallRate > 0 && c.StallDuration == 0) {
		return configErr("StallDuration", "must be a duration > 0 when StallRate > 0 (and never negative), got %s", c.StallDuration)
	}
	if c.ChatTemplateTokens < 0 || c.ChatTemplateTokens >= c.MaxModelLen {
		return configErr("ChatTemplateTokens", "must be in 0..MaxModelLen minus 1 (0..%d), got %d", c.MaxModelLen-1, c.ChatTemplateTokens)
	}
	if c.KVCacheTokens < 1 {
		return configErr("KVCacheTokens", "must be >= 1, got %d", c.KVCacheTokens)
	}
	if c.BlockSize < 1 || c.BlockSize > 1024 {
		return configErr("BlockSize", "must be in 1..1024 tokens, got %d", c.BlockSize)
	}
	if c.PrefixCacheTokens != 0 && (c.PrefixCacheTokens < c.BlockSize || c.PrefixCacheTokens > 1<<30) {
		return configErr("PrefixCacheTokens", "must be 0 (KVCacheTokens) or in BlockSize..1073741824 (%d..1073741824), got %d", c.BlockSize, c.PrefixCacheTokens)
	}
	if c.StoredResponses < 0 || c.StoredResponses > 1000000 {
		return configErr("StoredResponses", "must be in 0..1000000, got %d", c.StoredResponses)
	}
	if c.Capacity != nil {
		if err := c.Capacity.validate(); err != nil {
			return err
		}
	}
	if c.GPUs < 0 || c.GPUs > maxGPUs {
		return configErr("GPUs", "must be in 0..%d (0: from the capacity model, else 1), got %d", maxGPUs, c.GPUs)
	}
	if c.GPU != nil {
		if err := c.GPU.validate("GPU"); err != nil {
			return err
		}
	}
	if c.DCGMAddr != "" {
		if _, err := listenAddr(c.DCGMAddr); err != nil {
			return configErr("DCGMAddr", "%v", err)
		}
	}
	if c.DCGMUpdateInterval < time.Millisecond || c.DCGMUpdateInterval > time.Hour {
		return configErr("DCGMUpdateInterval", "must be a duration in 1ms..1h, got %s", c.DCGMUpdateInterval)
	}
	return nil
}

// ConfigError is a problem with one Config field: Field names it (a Config
// field such as "TTFT", or a dotted path into a nested struct such as
// "Capacity.MaxNumSeqs", "Capacity.GPU.IdleWatts" or "GPU.MaxWatts"), Msg
// says what is accepted.
type ConfigError struct {
	Field, Msg string
}

func (e *ConfigError) Error() string { return "mock config: " + e.Field + " " + e.Msg }

func configErr(field, format string, args ...any) error {
	return &ConfigError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// SimulatedGPUs returns the number of simulated GPUs in the DCGM
// exposition and the power model, and the spec of each, as New resolves
// them: GPUs, else Capacity.GPUs with a capacity model, else 1; GPU, else
// Capacity.GPU with a capacity model, else DefaultGPU().
func (c *Config) SimulatedGPUs() (int, GPUSpec) { return c.gpuSetup() }

// gpuSetup resolves GPUs and GPU.
func (c *Config) gpuSetup() (int, GPUSpec) {
	n, spec := c.GPUs, DefaultGPU()
	if c.Capacity != nil {
		spec = c.Capacity.GPU
		if n == 0 {
			n = c.Capacity.GPUs
		}
	}
	if n == 0 {
		n = 1
	}
	if c.GPU != nil {
		spec = *c.GPU
	}
	return n, spec
}
