package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/reqtype"
)

// The run configuration of a GuideLLM v0.2–v0.3 report (each benchmark's
// worker, request_loader and args.profile) as report v2's "config".

// legacyWorker is a v0.2–v0.3 benchmark's "worker".
type legacyWorker struct {
	BackendType   string `json:"backend_type"`
	BackendTarget string `json:"backend_target"`
	BackendModel  string `json:"backend_model"`
	BackendInfo   struct {
		MaxOutputTokens     *float64 `json:"max_output_tokens"`
		Timeout             *float64 `json:"timeout"`
		HTTP2               *bool    `json:"http2"`
		Authorization       bool     `json:"authorization"`
		TextCompletionsPath *string  `json:"text_completions_path"`
		ChatCompletionsPath *string  `json:"chat_completions_path"`
	} `json:"backend_info"`
}

// legacyLoader is a v0.2–v0.3 benchmark's "request_loader".
type legacyLoader struct {
	Data      json.RawMessage `json:"data"`
	DataArgs  json.RawMessage `json:"data_args"`
	Processor json.RawMessage `json:"processor"`
}

// legacyProfile is a v0.2–v0.3 benchmark's "args.profile".
type legacyProfile struct {
	Type           string          `json:"type_"`
	StrategyType   string          `json:"strategy_type"`
	RateType       string          `json:"rate_type"`
	Rate           json.RawMessage `json:"rate"`
	Streams        json.RawMessage `json:"streams"`
	MaxConcurrency *float64        `json:"max_concurrency"`
	SweepSize      *float64        `json:"sweep_size"`
	RandomSeed     *float64        `json:"random_seed"`
}

// legacyScenario builds report v2's "config" from the benchmarks' worker,
// request loader and profile (every benchmark of a run has the same
// worker and loader; the profile's counters grow along a sweep).
func legacyScenario(bs []*Benchmark) (*Scenario, error) {
	first := bs[0]
	for i, b := range bs[1:] {
		if !sameJSON(b.Config.Backend, first.Config.Backend) || !sameJSON(b.Config.Requests, first.Config.Requests) {
			return nil, fmt.Errorf("benchmarks[%d] ran with another \"worker\" or \"request_loader\" than benchmarks[0]: one report v2 \"config\" cannot describe both", i+1)
		}
	}
	var in SpecInput
	var w legacyWorker
	if err := decodeObject(first.Config.Backend, "worker", &w); err != nil {
		return nil, err
	}
	if w.BackendType != "openai_http" {
		return nil, fmt.Errorf("worker.backend_type is %q, want openai_http", w.BackendType)
	}
	if w.BackendTarget == "" {
		return nil, errors.New("worker.backend_target is missing")
	}
	requestType := ""
	for _, b := range bs {
		if b.legacy != nil && b.legacy.requestType != "" {
			requestType = b.legacy.requestType
			break
		}
	}
	if requestType == "" {
		requestType = "text_completions" // v0.2–v0.3's GenerationRequest default
	}
	info := w.BackendInfo
	var format string
	var route *string
	switch requestType {
	case "text_completions":
		format, route = reqtype.PathCompletions, info.TextCompletionsPath
	case "chat_completions":
		format, route = reqtype.PathChat, info.ChatCompletionsPath
	default:
		return nil, fmt.Errorf("request_type is %q, want text_completions or chat_completions", requestType)
	}
	if route != nil && *route != format {
		return nil, fmt.Errorf("worker.backend_info sends %s to %q, which report v2's request_format cannot say", requestType, *route)
	}
	// v0.2–v0.3 streamed every request and gave httpx one timeout, for
	// connecting and reading alike.
	in.Backend = Backend{Target: w.BackendTarget, Model: w.BackendModel, RequestFormat: format,
		APIKeySet: info.Authorization, Timeout: info.Timeout, HTTP2: info.HTTP2 == nil || *info.HTTP2, Stream: true}
	if t := info.Timeout; t != nil {
		if !(*t > 0) {
			return nil, fmt.Errorf("worker.backend_info.timeout is %v, want seconds > 0", *t)
		}
		in.Backend.TimeoutConnect = *t
	}
	if m := info.MaxOutputTokens; m != nil {
		if *m < 1 || *m != float64(int(*m)) {
			return nil, fmt.Errorf("worker.backend_info.max_output_tokens is %v, want a positive integer", *m)
		}
		in.Backend.MaxTokens = int(*m)
	}

	var ld legacyLoader
	if err := decodeObject(first.Config.Requests, "request_loader", &ld); err != nil {
		return nil, err
	}
	var proc string
	if len(ld.Processor) > 0 && JSONKind(ld.Processor) == "a string" {
		if err := json.Unmarshal(ld.Processor, &proc); err != nil {
			return nil, fmt.Errorf("request_loader.processor: %w", err)
		}
	}
	in.Tokenizer = proc
	if err := legacyData(ld, &in); err != nil {
		return nil, err
	}

	var p legacyProfile
	if err := decodeObject(first.Config.Profile, "args.profile", &p); err != nil {
		return nil, err
	}
	prof, err := p.toProfile()
	if err != nil {
		return nil, err
	}
	in.Profile = prof
	in.Seed = 42 // v0.2–v0.3's and v0.7's default
	if p.RandomSeed != nil {
		in.Seed = int64(*p.RandomSeed)
	}
	for _, k := range []string{ConstraintMaxDuration, ConstraintMaxRequests} {
		if raw, ok := first.Config.Constraints[k]; ok {
			var args struct {
				Seconds float64 `json:"seconds"`
				Count   int     `json:"count"`
			}
			if err := json.Unmarshal(raw, &args); err != nil {
				return nil, fmt.Errorf("constraint %s: %s", k, OneLine(err.Error()))
			}
			in.Constraints = append(in.Constraints, Constraint{Kind: k, Seconds: args.Seconds, Count: args.Count})
		}
	}
	spec, err := NewSpec(in)
	if err != nil {
		return nil, err
	}
	// v0.2–v0.3 keep every request record unless sampled: GuideLLM v0.7's
	// sample_size null (NewSpec writes goodput's count).
	samples := "null"
	if src := first.legacy; src != nil && len(src.requestSamples) > 0 && string(src.requestSamples) != "null" {
		n, err := strconv.Atoi(string(bytes.TrimSpace(src.requestSamples)))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("request_samples is %.40s, want a count or null", src.requestSamples)
		}
		samples = strconv.Itoa(n)
	}
	spec.Metrics = json.RawMessage(`{"kind":"generative","sample_size":` + samples + `,"prefer_response_metrics":true}`)
	return &Scenario{Metadata: ScenarioMetadata{Labels: map[string]string{}}, Spec: spec,
		Benchmarks: []json.RawMessage{json.RawMessage("null")}}, nil
}

// legacySyntheticKeys are the keys of v0.2–v0.3's synthetic data
// configuration; samples and source (the size and text of the prompt
// pool) have no GuideLLM v0.7 field and are left out.
var legacySyntheticKeys = map[string]bool{
	"prompt_tokens": true, "prompt_tokens_stdev": true, "prompt_tokens_min": true, "prompt_tokens_max": true,
	"output_tokens": true, "output_tokens_stdev": true, "output_tokens_min": true, "output_tokens_max": true,
	"prefix_tokens": true, "samples": true, "source": true,
}

// legacyFileKinds maps a data file's extension to GuideLLM v0.7's file
// data kind.
var legacyFileKinds = map[string]string{
	".txt": "text_file", ".text": "text_file", ".csv": "csv_file", ".json": "json_file", ".jsonl": "json_file",
	".parquet": "parquet_file", ".arrow": "arrow_file", ".hdf5": "hdf5_file", ".h5": "hdf5_file",
}

// legacyData turns v0.2–v0.3's request_loader.data string into GuideLLM
// v0.7's data source: a synthetic configuration ("k=v,…" or a JSON
// object) becomes synthetic_text, a path with a data file extension the
// matching file kind, anything else a Hugging Face dataset (what
// v0.2–v0.3 did with it).
func legacyData(ld legacyLoader, in *SpecInput) error {
	if JSONKind(ld.Data) != "a string" {
		return fmt.Errorf("request_loader.data is %s, want a string", JSONKind(ld.Data))
	}
	var data string
	if err := json.Unmarshal(ld.Data, &data); err != nil {
		return fmt.Errorf("request_loader.data: %w", err)
	}
	data = strings.TrimSpace(data)
	if data == "" {
		return errors.New("request_loader.data is empty")
	}
	if strings.HasPrefix(data, "{") || strings.Contains(data, "=") {
		st, err := ParseLegacySynthetic(data)
		if err != nil {
			return fmt.Errorf("request_loader.data: %w", err)
		}
		in.Data = []SyntheticText{st}
		return nil
	}
	kwargs := json.RawMessage("{}")
	if JSONKind(ld.DataArgs) == "an object" {
		kwargs = ld.DataArgs
	}
	ext := strings.ToLower(filepath.Ext(data))
	w := NewOrderedObject()
	if kind, ok := legacyFileKinds[ext]; ok {
		w.Field("kind", kind)
		w.Field("load_kwargs", kwargs)
		w.Field("path", data)
	} else if ext == ".yaml" || ext == ".yml" || ext == ".config" {
		return fmt.Errorf("request_loader.data is a synthetic data configuration file (%s) whose contents the report does not have", data)
	} else {
		w.Field("kind", "huggingface")
		w.Field("load_kwargs", kwargs)
		w.Field("source", data)
	}
	raw, err := w.Done()
	if err != nil {
		return err
	}
	in.RawData = []json.RawMessage{raw}
	return nil
}

// ParseLegacySynthetic parses GuideLLM v0.2–v0.3's synthetic data
// configuration, "prompt_tokens=256,output_tokens=128" or the same as a
// JSON object, into the synthetic_text source of GuideLLM v0.7.
// prompt_tokens is required; the other token counts (prompt/output
// stdev, min, max, output_tokens, prefix_tokens) are non-negative
// integers. samples and source are accepted and dropped (GuideLLM v0.7
// has no field for them); other keys are an error.
func ParseLegacySynthetic(s string) (SyntheticText, error) {
	vals := map[string]string{}
	if strings.HasPrefix(strings.TrimSpace(s), "{") {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(s), &obj); err != nil {
			return SyntheticText{}, fmt.Errorf("synthetic data %.60q: %s", s, OneLine(err.Error()))
		}
		for k, v := range obj {
			var str string
			if json.Unmarshal(v, &str) == nil {
				vals[k] = str
			} else {
				vals[k] = string(bytes.TrimSpace(v))
			}
		}
	} else {
		for _, part := range strings.Split(s, ",") {
			k, v, ok := strings.Cut(part, "=")
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			if !ok || k == "" {
				return SyntheticText{}, fmt.Errorf("synthetic data %.60q: %q is not key=value", s, part)
			}
			vals[k] = v
		}
	}
	var st SyntheticText
	dst := map[string]*int{
		"prompt_tokens": &st.PromptTokens, "prompt_tokens_stdev": &st.PromptTokensStdev,
		"prompt_tokens_min": &st.PromptTokensMin, "prompt_tokens_max": &st.PromptTokensMax,
		"output_tokens": &st.OutputTokens, "output_tokens_stdev": &st.OutputTokensStdev,
		"output_tokens_min": &st.OutputTokensMin, "output_tokens_max": &st.OutputTokensMax,
		"prefix_tokens": &st.PrefixTokens,
	}
	for k, v := range vals {
		if !legacySyntheticKeys[k] {
			return SyntheticText{}, fmt.Errorf("synthetic data %.60q: unknown key %q (want prompt_tokens, output_tokens, their _stdev/_min/_max, prefix_tokens, samples or source)", s, k)
		}
		p, ok := dst[k]
		if !ok {
			continue // samples, source
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return SyntheticText{}, fmt.Errorf("synthetic data %.60q: %s is %q, want a non-negative integer", s, k, v)
		}
		*p = n
	}
	if st.PromptTokens <= 0 {
		return SyntheticText{}, fmt.Errorf("synthetic data %.60q: prompt_tokens is required (a positive integer)", s)
	}
	return st, nil
}

// toProfile maps a v0.2–v0.3 profile onto GuideLLM v0.7's profile kinds.
func (p legacyProfile) toProfile() (Profile, error) {
	var out Profile
	if p.MaxConcurrency != nil {
		out.MaxConcurrency = int(*p.MaxConcurrency)
	}
	switch p.Type {
	case StrategySynchronous, StrategyThroughput:
		out.Kind = p.Type
	case StrategyConcurrent:
		out.Kind = p.Type
		streams, err := numberList(p.Streams, "args.profile.streams")
		if err != nil {
			return out, err
		}
		for _, s := range streams {
			if s < 1 || s != float64(int(s)) {
				return out, fmt.Errorf("args.profile.streams has %v, want positive integers", s)
			}
			out.Streams = append(out.Streams, int(s))
		}
	case "async":
		out.Kind = p.StrategyType
		if out.Kind != StrategyConstant && out.Kind != StrategyPoisson {
			return out, fmt.Errorf("args.profile.strategy_type is %q, want constant or poisson", p.StrategyType)
		}
		rates, err := numberList(p.Rate, "args.profile.rate")
		if err != nil {
			return out, err
		}
		out.Rate = rates
	case "sweep":
		out.Kind = p.Type
		out.StrategyType = p.StrategyType
		if out.StrategyType == "" {
			out.StrategyType = p.RateType
		}
		if p.SweepSize != nil {
			out.SweepSize = int(*p.SweepSize)
		}
	default:
		return out, fmt.Errorf("args.profile.type_ is %q, want synchronous, concurrent, throughput, async or sweep", p.Type)
	}
	// Validate as NewSpec will.
	if _, err := profileJSON(out); err != nil {
		return out, err
	}
	return out, nil
}

// numberList reads a number or a list of numbers.
func numberList(raw json.RawMessage, key string) ([]float64, error) {
	var one float64
	if err := json.Unmarshal(raw, &one); err == nil && JSONKind(raw) == "a number" {
		return []float64{one}, nil
	}
	var list []float64
	if err := json.Unmarshal(raw, &list); err != nil || len(list) == 0 {
		return nil, fmt.Errorf("%s is %s, want a number or a list of numbers", key, JSONKind(raw))
	}
	return list, nil
}
