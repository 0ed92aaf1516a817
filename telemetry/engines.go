package telemetry

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// Canonical engine names: the only place each is spelled (with its row in
// engineTable below).
const (
	EngineVLLM        = "vllm"
	EngineSGLang      = "sglang"
	EngineTGI         = "tgi"
	EngineTensorRTLLM = "tensorrt-llm"
	EngineTriton      = "triton"
	EngineLlamaCpp    = "llama.cpp"
	EngineOllama      = "ollama"
	EngineLMDeploy    = "lmdeploy"
	EngineGoodputMock = "goodput-mock"
)

// tritonLLMModel is the model whose Triton series are read: the TensorRT-LLM
// backend's model of the tensorrtllm_backend repository (an ensemble's
// other models count the same requests again).
const tritonLLMModel = "tensorrt_llm"

// Engine is one inference engine: how it names itself, its Prometheus
// series for each server figure, and the GETs that describe it. Adding an
// engine is adding a row to engineTable; the sampler, the Prometheus
// reader, the drain's queue reader and metadata loop over the table.
type Engine struct {
	// Name is the canonical name; Aliases are the other spellings servers
	// write (a /v1/models owned_by, a Server header product), lower case.
	Name    string
	Aliases []string
	// Display is how messages name it ("" for a row named by another's
	// Display); MetricsFlag is the server option that turns its /metrics on,
	// when off by default.
	Display, MetricsFlag string
	// Prefixes are the names of its /metrics families begin with.
	Prefixes []string
	// VersionEndpoint: its GET /version answers {"version": …} with the
	// engine's own version (for another engine it may be a gateway's).
	VersionEndpoint bool
	// Info are the GETs that describe the server, in the order tried.
	Info []InfoEndpoint

	// scalars are the series of each fixed server column (srvRunning …),
	// hists those of each histogram (histTTFT …), each in order of
	// preference. An engine's series come after those of the rows above it.
	scalars [srvFixedCols][]metricRef
	hists   [numHists][]metricRef
}

// InfoEndpoint is a GET an engine answers about itself, and how to read it.
// Parse returns an error for an answer that is not this engine's.
type InfoEndpoint struct {
	Path  string
	Parse func(body []byte) (ServerInfo, error)
}

// ServerInfo is what an info endpoint says. Each field keeps the JSON key it
// was read from, to name its source; an empty Value is unknown.
type ServerInfo struct {
	Version, Model, ModelRevision, Dtype, Quantization InfoField
	// Slots is how many sequences the server decodes at once (llama.cpp's
	// total_slots), as decimal text.
	Slots InfoField
}

// InfoField is one value of an info answer and its key.
type InfoField struct{ Key, Value string }

// engineTable is every engine goodput knows. Order matters: a figure is
// read from the first series present, taking the rows in this order.
var engineTable = []Engine{
	{
		Name: EngineVLLM, Display: "vLLM", Prefixes: []string{"vllm:"}, VersionEndpoint: true,
		scalars: [srvFixedCols][]metricRef{
			srvKV:            {ref("vllm:kv_cache_usage_perc"), ref("vllm:gpu_cache_usage_perc")},
			srvRunning:       {ref("vllm:num_requests_running")},
			srvWaiting:       {ref("vllm:num_requests_waiting")},
			srvPreempt:       {ref("vllm:num_preemptions_total")},
			srvPrompt:        {ref("vllm:prompt_tokens_total")},
			srvGen:           {ref("vllm:generation_tokens_total")},
			srvRequests:      {ref("vllm:request_success_total")},
			srvPrefixQueries: {ref("vllm:prefix_cache_queries_total"), ref("vllm:gpu_prefix_cache_queries_total")},
			srvPrefixHits:    {ref("vllm:prefix_cache_hits_total"), ref("vllm:gpu_prefix_cache_hits_total")},
			srvSpecAccepted:  {ref("vllm:spec_decode_num_accepted_tokens_total")},
			srvSpecDraft:     {ref("vllm:spec_decode_num_draft_tokens_total")},
		},
		hists: [numHists][]metricRef{
			histTTFT:       {ref("vllm:time_to_first_token_seconds")},
			histITL:        {ref("vllm:inter_token_latency_seconds"), ref("vllm:time_per_output_token_seconds")},
			histE2E:        {ref("vllm:e2e_request_latency_seconds")},
			histQueue:      {ref("vllm:request_queue_time_seconds")},
			histInference:  {ref("vllm:request_inference_time_seconds")},
			histPrefill:    {ref("vllm:request_prefill_time_seconds")},
			histDecode:     {ref("vllm:request_decode_time_seconds")},
			histIterTokens: {ref("vllm:iteration_tokens_total")},
		},
	},
	{
		// SGLang (--enable-metrics): its prefix cache hit rate is
		// cached_tokens over prompt_tokens.
		Name: EngineSGLang, Display: "SGLang", MetricsFlag: "--enable-metrics", Prefixes: []string{"sglang:"}, VersionEndpoint: true,
		Info: []InfoEndpoint{{"/get_server_info", parseSGLangInfo}},
		scalars: [srvFixedCols][]metricRef{
			srvKV:            {ref("sglang:token_usage")},
			srvRunning:       {ref("sglang:num_running_reqs")},
			srvWaiting:       {ref("sglang:num_queue_reqs")},
			srvPreempt:       {ref("sglang:num_retracted_requests_total")},
			srvPrompt:        {ref("sglang:prompt_tokens_total")},
			srvGen:           {ref("sglang:generation_tokens_total")},
			srvRequests:      {ref("sglang:num_requests_total")},
			srvPrefixQueries: {ref("sglang:prompt_tokens_total")},
			srvPrefixHits:    {ref("sglang:cached_tokens_total")},
		},
		hists: [numHists][]metricRef{
			histTTFT: {ref("sglang:time_to_first_token_seconds")},
			histITL:  {ref("sglang:inter_token_latency_seconds"), ref("sglang:time_per_output_token_seconds")},
			histE2E:  {ref("sglang:e2e_request_latency_seconds")},
		},
	},
	{
		// TGI's router: tokens from the sums of its token histograms, ITL
		// from the per-request mean time per token, no TTFT histogram.
		Name: EngineTGI, Display: "TGI", Aliases: []string{"text-generation-inference", "text_generation_inference"},
		Prefixes: []string{"tgi_"},
		Info:     []InfoEndpoint{{"/info", parseTGIInfo}},
		scalars: [srvFixedCols][]metricRef{
			srvRunning:  {ref("tgi_batch_current_size")},
			srvWaiting:  {ref("tgi_queue_size")},
			srvPrompt:   {refSum("tgi_request_input_length")},
			srvGen:      {refSum("tgi_request_generated_tokens")},
			srvRequests: {ref("tgi_request_success")},
		},
		hists: [numHists][]metricRef{
			histITL:       {ref("tgi_request_mean_time_per_token_duration")},
			histE2E:       {ref("tgi_request_duration")},
			histQueue:     {ref("tgi_request_queue_duration")},
			histInference: {ref("tgi_request_inference_duration")},
		},
	},
	{
		// Triton's TensorRT-LLM backend: queues and KV cache from the
		// nv_trt_llm_* gauges by their type label.
		Name: EngineTensorRTLLM, Display: "Triton/TensorRT-LLM", Aliases: []string{"tensorrt_llm", "trtllm"}, Prefixes: []string{"nv_trt_llm_", "nv_llm_"},
		scalars: [srvFixedCols][]metricRef{
			srvKV:      {refL("nv_trt_llm_kv_cache_block_metrics", "kv_cache_block_type", "fraction")},
			srvRunning: {refL("nv_trt_llm_request_metrics", "request_type", "scheduled")},
			srvWaiting: {refL("nv_trt_llm_request_metrics", "request_type", "waiting")},
			srvPrompt:  {refSum("nv_llm_input_token_len")},
			srvGen:     {refSum("nv_llm_output_token_len")},
		},
	},
	{
		// Triton itself: the series of the TensorRT-LLM backend's model
		// only (tritonLLMModel), the first-response histogram in ms.
		Name: EngineTriton, Prefixes: []string{"nv_"},
		scalars: [srvFixedCols][]metricRef{
			srvWaiting:  {refL("nv_inference_pending_request_count", "model", tritonLLMModel)},
			srvRequests: {refL("nv_inference_request_success", "model", tritonLLMModel)},
		},
		hists: [numHists][]metricRef{
			histTTFT: {{name: "nv_inference_first_response_histogram_ms", label: "model", value: tritonLLMModel, scale: 0.001}},
		},
	},
	{
		// llama.cpp's llama-server (--metrics). Its prompt tokens exclude
		// the cached ones; requests_deferred counts tasks (an 8-input
		// embeddings request is 8); tokens_predicted_total grows when a
		// request ends. Some builds have the KV cache ratio and tokens (and
		// forks the cached prompt tokens). Its busy slots per decode is an
		// average since the start: times the decodes it counts the busy
		// slot-steps, whose change over a window gives the window's mean.
		// n_tokens_max is the longest sequence a slot held since the start
		// (a maximum, although typed a counter); its seconds totals grow
		// when a prefill ends and when a request ends.
		Name: EngineLlamaCpp, Display: "llama.cpp", MetricsFlag: "--metrics", Aliases: []string{"llamacpp", "llama-cpp"},
		Prefixes: []string{"llamacpp:"},
		Info:     []InfoEndpoint{{"/props", parseLlamaCppProps}},
		scalars: [srvFixedCols][]metricRef{
			srvKV:            {someBuilds(ref("llamacpp:kv_cache_usage_ratio"))},
			srvRunning:       {ref("llamacpp:requests_processing")},
			srvWaiting:       {ref("llamacpp:requests_deferred")},
			srvPrompt:        {refPlus("llamacpp:prompt_tokens_total", "llamacpp:prompt_tokens_cached_total")},
			srvGen:           {ref("llamacpp:tokens_predicted_total")},
			srvPrefixQueries: {refPlus("llamacpp:prompt_tokens_cached_total", "llamacpp:prompt_tokens_total")},
			srvPrefixHits:    {ref("llamacpp:prompt_tokens_cached_total")},
			srvSpecAccepted:  {ref("llamacpp:spec_decode_num_accepted_tokens_total")},
			srvSpecDraft:     {ref("llamacpp:spec_decode_num_draft_tokens_total")},
			srvSpecDrafts:    {ref("llamacpp:spec_decode_num_drafts_total")},
			srvPromptTput:    {ref("llamacpp:prompt_tokens_seconds")},
			srvGenTput:       {ref("llamacpp:predicted_tokens_seconds")},
			srvSteps:         {ref("llamacpp:n_decode_total")},
			srvBusySlotSteps: {refTimes("llamacpp:n_busy_slots_per_decode", "llamacpp:n_decode_total")},
			srvPromptSeconds: {ref("llamacpp:prompt_seconds_total")},
			srvGenSeconds:    {ref("llamacpp:tokens_predicted_seconds_total")},
			srvKVTokens:      {someBuilds(ref("llamacpp:kv_cache_tokens"))},
			srvContextMax:    {ref("llamacpp:n_tokens_max")},
		},
	},
	{Name: EngineOllama, Info: []InfoEndpoint{{"/api/version", parseOllamaVersion}}},
	{Name: EngineLMDeploy},
	{
		// goodput's own mock serves vLLM's series.
		Name: EngineGoodputMock, Aliases: []string{"goodput"}, VersionEndpoint: true,
	},
}

// engineNamed returns the row of a canonical engine name.
func engineNamed(name string) (Engine, bool) {
	for _, e := range engineTable {
		if name != "" && e.Name == name {
			return e, true
		}
	}
	return Engine{}, false
}

// expects reports whether every build of the engine exposes one of refs
// (a figure it lacks, or has only in some builds, is no warning when
// absent).
func (e Engine) expects(refs []metricRef) bool {
	for _, r := range refs {
		if !r.mayLack {
			return true
		}
	}
	return false
}

// Engines returns the engine table, in order of preference.
func Engines() []Engine { return engineTable }

// LookupEngine returns the engine an alias names (case-insensitive), false
// when none.
func LookupEngine(alias string) (Engine, bool) {
	a := strings.ToLower(strings.TrimSpace(alias))
	for _, e := range engineTable {
		if a == e.Name {
			return e, true
		}
		for _, x := range e.Aliases {
			if a == x {
				return e, true
			}
		}
	}
	return Engine{}, false
}

// EngineOfMetric returns the engine whose prefix an exposed metric name
// has, and that prefix; ok is false when none has.
func EngineOfMetric(name string) (e Engine, prefix string, ok bool) {
	for _, e := range engineTable {
		for _, p := range e.Prefixes {
			if strings.HasPrefix(name, p) {
				return e, p, true
			}
		}
	}
	return Engine{}, "", false
}

// scalarRefs and histRefs are every engine's series of one figure, in
// table order.
func scalarRefs(col int) []metricRef {
	var out []metricRef
	for _, e := range engineTable {
		out = append(out, e.scalars[col]...)
	}
	return out
}

func histRefs(h int) []metricRef {
	var out []metricRef
	for _, e := range engineTable {
		out = append(out, e.hists[h]...)
	}
	return out
}

// MetricsEngines names the engines whose server metrics goodput reads,
// for messages ("vLLM, SGLang, TGI or Triton/TensorRT-LLM"), and hints at
// the options that turn them on ("SGLang --enable-metrics").
func MetricsEngines() (names, hints string) {
	var ns, hs []string
	for _, e := range engineTable {
		if e.Display != "" && len(e.Prefixes) > 0 {
			ns = append(ns, e.Display)
			if e.MetricsFlag != "" {
				hs = append(hs, e.Display+" "+e.MetricsFlag)
			}
		}
	}
	if len(ns) > 1 {
		ns = append(ns[:len(ns)-2], ns[len(ns)-2]+" or "+ns[len(ns)-1])
	}
	return strings.Join(ns, ", "), strings.Join(hs, ", ")
}

// CleanInfoValue keeps a short single-line printable value from a server
// ("" for anything else).
func CleanInfoValue(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 200 || strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
		return ""
	}
	return s
}

// infoObject reads a JSON object answer, key by key.
type infoObject map[string]json.RawMessage

func readInfoObject(body []byte) (infoObject, error) {
	b := strings.TrimSpace(string(body))
	if !strings.HasPrefix(b, "{") {
		return nil, errors.New("answer is not a JSON object")
	}
	var o infoObject
	if err := json.Unmarshal([]byte(b), &o); err != nil {
		return nil, errors.New("answer is not the expected JSON")
	}
	return o, nil
}

// str returns key's string value as a field ("" when absent, not a
// string, or not a clean value).
func (o infoObject) str(key string) InfoField {
	var s string
	if json.Unmarshal(o[key], &s) != nil {
		return InfoField{Key: key}
	}
	return InfoField{Key: key, Value: CleanInfoValue(s)}
}

// parseTGIInfo reads TGI's GET /info.
func parseTGIInfo(body []byte) (ServerInfo, error) {
	o, err := readInfoObject(body)
	if err != nil {
		return ServerInfo{}, err
	}
	in := ServerInfo{Version: o.str("version"), Model: o.str("model_id"), ModelRevision: o.str("model_sha"), Dtype: o.str("model_dtype")}
	if in.Model.Value == "" || in.Version.Value == "" {
		return ServerInfo{}, errors.New("answer is not TGI's /info (no model_id and version)")
	}
	return in, nil
}

// parseSGLangInfo reads SGLang's GET /get_server_info (its server
// arguments plus the version).
func parseSGLangInfo(body []byte) (ServerInfo, error) {
	o, err := readInfoObject(body)
	if err != nil {
		return ServerInfo{}, err
	}
	in := ServerInfo{Version: o.str("version"), Model: o.str("model_path"), ModelRevision: o.str("revision"),
		Dtype: o.str("dtype"), Quantization: o.str("quantization")}
	if in.Model.Value == "" {
		return ServerInfo{}, errors.New("answer is not SGLang's server info (no model_path)")
	}
	return in, nil
}

// parseLlamaCppProps reads llama-server's GET /props: its build
// ("b6123-abcdef0", also every chunk's system_fingerprint), its slots (the
// sequences it decodes at once) and the model file.
func parseLlamaCppProps(body []byte) (ServerInfo, error) {
	o, err := readInfoObject(body)
	if err != nil {
		return ServerInfo{}, err
	}
	var slots int
	if json.Unmarshal(o["total_slots"], &slots) != nil || slots <= 0 {
		return ServerInfo{}, errors.New("answer is not llama.cpp's /props (no total_slots)")
	}
	return ServerInfo{Version: o.str("build_info"), Model: o.str("model_path"),
		Slots: InfoField{Key: "total_slots", Value: strconv.Itoa(slots)}}, nil
}

// parseOllamaVersion reads Ollama's GET /api/version, {"version":"0.x.y"}.
func parseOllamaVersion(body []byte) (ServerInfo, error) {
	o, err := readInfoObject(body)
	if err != nil {
		return ServerInfo{}, err
	}
	in := ServerInfo{Version: o.str("version")}
	if in.Version.Value == "" || len(o) != 1 {
		return ServerInfo{}, errors.New(`answer is not Ollama's /api/version (not only a "version" string)`)
	}
	return in, nil
}
