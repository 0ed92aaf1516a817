package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"github.com/goodput-dev/goodput/reqtype"
)

// Strategy types (GuideLLM's SchedulingStrategy type_), declared once
// here: the load engine's kinds (loadgen.Kind) are these names.
// StrategyReplay is written as GuideLLM's "trace".
const (
	StrategySynchronous = "synchronous"
	StrategyConcurrent  = "concurrent"
	StrategyThroughput  = "throughput"
	StrategyConstant    = "constant"
	StrategyPoisson     = "poisson"
	StrategyReplay      = "replay"
	// StrategyUserCentric is AIPerf's user-centric rate, goodput's own
	// kind: GuideLLM has none, so a report writes it as constant at its
	// rate and says the rest in Extras.Arrival.
	StrategyUserCentric = "user_centric"
)

// Strategy is the load pattern of one benchmark (GuideLLM's strategy
// object). Zero means "not set" for every numeric field (written as null
// where GuideLLM allows null).
type Strategy struct {
	Type           string  // synchronous, concurrent, throughput, constant, poisson, replay
	Rate           float64 // requests/s (constant, poisson)
	Streams        int     // concurrent streams (concurrent)
	MaxConcurrency int     // in-flight cap (0 = none)
	WorkerCount    int     // worker goroutines/processes (0 = not reported)
	RampupDuration float64 // seconds (concurrent, throughput, constant)
	RandomSeed     int64   // poisson
	TimeScale      float64 // replay (0 = 1.0)
}

func optIntJSON(v int) any {
	if v <= 0 {
		return nil
	}
	return v
}

// MarshalJSON writes exactly the keys GuideLLM's strategy model of that
// type has (only type_, worker_count and max_concurrency for a type it
// does not know, as read from another tool's report; see Validate).
func (s Strategy) MarshalJSON() ([]byte, error) {
	w := NewOrderedObject()
	typ := s.Type
	if typ == StrategyReplay {
		typ = "trace"
	}
	w.Field("type_", typ)
	w.Field("worker_count", optIntJSON(s.WorkerCount))
	w.Field("max_concurrency", optIntJSON(s.MaxConcurrency))
	switch typ {
	case StrategySynchronous:
	case StrategyConcurrent:
		w.Field("streams", s.Streams)
		w.Field("rampup_duration", Float(s.RampupDuration))
	case StrategyThroughput:
		w.Field("rampup_duration", Float(s.RampupDuration))
	case StrategyConstant:
		w.Field("rate", Float(s.Rate))
		w.Field("rampup_duration", Float(s.RampupDuration))
	case StrategyPoisson:
		w.Field("rate", Float(s.Rate))
		w.Field("random_seed", s.RandomSeed)
	case "trace":
		ts := s.TimeScale
		if ts == 0 {
			ts = 1
		}
		w.Field("time_scale", Float(ts))
	}
	return w.Done()
}

// Validate checks that the strategy is one GuideLLM's report accepts:
// a known type with the fields that type requires.
func (s Strategy) Validate() error {
	switch s.Type {
	case StrategySynchronous, StrategyThroughput:
	case StrategyConcurrent:
		if s.Streams <= 0 {
			return fmt.Errorf("strategy concurrent: streams must be > 0, got %d", s.Streams)
		}
	case StrategyConstant, StrategyPoisson:
		if !(s.Rate > 0) {
			return fmt.Errorf("strategy %s: rate must be > 0, got %v", s.Type, s.Rate)
		}
	case StrategyReplay:
		if s.TimeScale < 0 {
			return fmt.Errorf("strategy replay: time scale must be > 0, got %v", s.TimeScale)
		}
	default:
		return fmt.Errorf("strategy: unknown type %q (want synchronous, concurrent, throughput, constant, poisson or replay)", s.Type)
	}
	if s.MaxConcurrency < 0 || s.WorkerCount < 0 || s.RampupDuration < 0 {
		return fmt.Errorf("strategy %s: max concurrency, worker count and rampup must be >= 0", s.Type)
	}
	return nil
}

// UnmarshalJSON reads a GuideLLM strategy object of any version.
func (s *Strategy) UnmarshalJSON(b []byte) error {
	var raw struct {
		Type           string   `json:"type_"`
		Rate           *float64 `json:"rate"`
		Streams        *float64 `json:"streams"`
		MaxConcurrency *float64 `json:"max_concurrency"`
		WorkerCount    *float64 `json:"worker_count"`
		RampupDuration *float64 `json:"rampup_duration"`
		RandomSeed     *float64 `json:"random_seed"`
		TimeScale      *float64 `json:"time_scale"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*s = Strategy{Type: raw.Type}
	if s.Type == "trace" {
		s.Type = StrategyReplay
	}
	get := func(p *float64) float64 {
		if p == nil {
			return 0
		}
		return *p
	}
	s.Rate = get(raw.Rate)
	s.Streams = int(get(raw.Streams))
	s.MaxConcurrency = int(get(raw.MaxConcurrency))
	s.WorkerCount = int(get(raw.WorkerCount))
	s.RampupDuration = get(raw.RampupDuration)
	s.RandomSeed = int64(get(raw.RandomSeed))
	s.TimeScale = get(raw.TimeScale)
	return nil
}

// Constraint kinds (GuideLLM's --constraint kinds goodput uses).
const (
	ConstraintMaxDuration        = "max_duration"
	ConstraintMaxRequests        = "max_requests"
	ConstraintMaxErrors          = "max_errors"
	ConstraintMaxErrorRate       = "max_error_rate"
	ConstraintMaxGlobalErrorRate = "max_global_error_rate"
)

// Constraint is a stop condition of a benchmark in GuideLLM's terms.
type Constraint struct {
	Kind          string  // one of the Constraint* kinds
	Seconds       float64 // max_duration
	Count         int     // max_requests, max_errors
	Rate          float64 // max_error_rate, max_global_error_rate (0 < rate < 1)
	Window        int     // max_error_rate sliding window (requests, default 30)
	Minimum       int     // max_global_error_rate minimum processed (0 = null)
	StoppingScope string  // "current" (default) or "all"
}

// MarshalJSON writes GuideLLM's constraint args object for the kind.
func (c Constraint) MarshalJSON() ([]byte, error) {
	w := NewOrderedObject()
	w.Field("kind", c.Kind)
	scope := c.StoppingScope
	if scope == "" {
		scope = "current"
	}
	if scope != "current" && scope != "all" {
		return nil, fmt.Errorf("constraint %s: stopping_scope must be current or all, got %q", c.Kind, scope)
	}
	w.Field("stopping_scope", scope)
	switch c.Kind {
	case ConstraintMaxDuration:
		if !(c.Seconds > 0) {
			return nil, fmt.Errorf("constraint max_duration: seconds must be > 0, got %v", c.Seconds)
		}
		w.Field("seconds", numJSON(c.Seconds))
	case ConstraintMaxRequests, ConstraintMaxErrors:
		if c.Count <= 0 {
			return nil, fmt.Errorf("constraint %s: count must be > 0, got %d", c.Kind, c.Count)
		}
		w.Field("count", c.Count)
	case ConstraintMaxErrorRate, ConstraintMaxGlobalErrorRate:
		if !(c.Rate > 0 && c.Rate < 1) {
			return nil, fmt.Errorf("constraint %s: rate must be in (0, 1), got %v", c.Kind, c.Rate)
		}
		w.Field("rate", Float(c.Rate))
		if c.Kind == ConstraintMaxErrorRate {
			win := c.Window
			if win <= 0 {
				win = 30
			}
			w.Field("window", win)
		} else {
			w.Field("minimum", optIntJSON(c.Minimum))
		}
	default:
		return nil, fmt.Errorf("constraint: unknown kind %q (want max_duration, max_requests, max_errors, max_error_rate or max_global_error_rate)", c.Kind)
	}
	return w.Done()
}

// numJSON writes integral values as JSON integers and others as floats
// (GuideLLM's int | float fields keep what they were given).
func numJSON(v float64) any {
	if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
		return int64(v)
	}
	return Float(v)
}

// OrderedObject builds a JSON object with keys in insertion order (the
// AIPerf export writes its configuration with it).
type OrderedObject struct {
	buf bytes.Buffer
	err error
	n   int
}

// NewOrderedObject starts an empty object.
func NewOrderedObject() *OrderedObject {
	o := &OrderedObject{}
	o.buf.WriteByte('{')
	return o
}

// Field appends key k with value v, marshalled compactly.
func (o *OrderedObject) Field(k string, v any) {
	if o.err != nil {
		return
	}
	b, err := MarshalCompact(v)
	if err != nil {
		o.err = fmt.Errorf("%s: %w", k, err)
		return
	}
	if o.n > 0 {
		o.buf.WriteByte(',')
	}
	o.n++
	kb, _ := MarshalCompact(k)
	o.buf.Write(kb)
	o.buf.WriteByte(':')
	o.buf.Write(b)
}

// Done closes the object and returns it, or the first marshalling error.
func (o *OrderedObject) Done() ([]byte, error) {
	if o.err != nil {
		return nil, o.err
	}
	o.buf.WriteByte('}')
	return o.buf.Bytes(), nil
}

// Scenario is GuideLLM's BenchmarkScenario (the report's "config"): what
// was run, in GuideLLM's own kinds, so that GuideLLM can load the report
// and re-run the scenario. GuideLLM rejects unknown keys anywhere in it.
type Scenario struct {
	Metadata   ScenarioMetadata  `json:"metadata"`
	Spec       Spec              `json:"spec"`
	Benchmarks []json.RawMessage `json:"benchmarks"`
}

// ScenarioMetadata is GuideLLM's BenchmarkMetadata (free labels).
type ScenarioMetadata struct {
	Labels map[string]string `json:"labels"`
}

// Spec is GuideLLM's BenchmarkArgs. Each member is the JSON of one
// GuideLLM registry object; build them with NewSpec or keep them verbatim
// from a GuideLLM report.
type Spec struct {
	Backend           json.RawMessage   `json:"backend"`
	Profile           json.RawMessage   `json:"profile"`
	Constraints       []json.RawMessage `json:"constraints"`
	Tokenizer         json.RawMessage   `json:"tokenizer"`
	Data              []json.RawMessage `json:"data"`
	DataColumnMapper  json.RawMessage   `json:"data_column_mapper"`
	DataPreprocessors []json.RawMessage `json:"data_preprocessors"`
	DataFinalizer     json.RawMessage   `json:"data_finalizer"`
	DataLoader        json.RawMessage   `json:"data_loader"`
	Seed              json.RawMessage   `json:"seed"`
	Outputs           []json.RawMessage `json:"outputs"`
	Metrics           json.RawMessage   `json:"metrics"`
}

// Backend describes the target server as GuideLLM's openai_http backend.
// APIKeySet only says whether a key was used: the key itself is never
// written (GuideLLM's api_key is written as "**********").
type Backend struct {
	Target         string
	Model          string
	RequestFormat  string   // the route's request type: a reqtype.Type's path (default reqtype.PathChat)
	APIKeySet      bool     // written as "**********"
	Timeout        *float64 // read timeout, seconds (nil = none)
	TimeoutConnect float64  // seconds (0 = 5)
	HTTP2          bool
	Stream         bool
	MaxTokens      int            // 0 = null
	ExtraBody      map[string]any // merged into every request body
	ExtraHeaders   []string       // names only: values are written as "**********"
	ContentExtras  map[string]any // extras.content: on every user text content part
}

// Profile describes the load profile as a GuideLLM profile object.
type Profile struct {
	Kind           string // synchronous, concurrent, throughput, constant, poisson, sweep, replay
	Rate           []float64
	Streams        []int
	MaxConcurrency int    // 0 = null
	SweepSize      int    // sweep (0 = 10)
	StrategyType   string // sweep: constant (default) or poisson
	TimeScale      float64
	RampupDuration float64
	Warmup         TransientPhase
	Cooldown       TransientPhase
}

// SyntheticText is GuideLLM's synthetic_text data source. Zero optional
// fields are written as null.
type SyntheticText struct {
	PromptTokens      int
	PromptTokensStdev int
	PromptTokensMin   int
	PromptTokensMax   int
	OutputTokens      int
	OutputTokensStdev int
	OutputTokensMin   int
	OutputTokensMax   int
	PrefixTokens      int // shared prefix tokens per bucket (0 = none)
	PrefixCount       int // distinct prefixes (0 = 1 when PrefixTokens > 0)
	Turns             int // 0 = 1
}

// SpecInput is everything NewSpec needs.
type SpecInput struct {
	Backend     Backend
	Profile     Profile
	Constraints []Constraint
	Tokenizer   string // tokenizer model name ("" = null: the backend model)
	Data        []SyntheticText
	// RawData are extra data objects in GuideLLM's JSON (for example
	// {"kind":"json_file","path":…}), written after Data.
	RawData    []json.RawMessage
	Seed       int64
	SampleSize int // request records per status in the report (negative: all, written null)
	Outputs    []Output
	Labels     map[string]string
}

// Output is one GuideLLM output object.
type Output struct {
	Kind string // json, csv, console, yaml, html
	Path string // "" for console
}

// NewScenario builds the report's "config" from in.
func NewScenario(in SpecInput) (*Scenario, error) {
	spec, err := NewSpec(in)
	if err != nil {
		return nil, err
	}
	labels := in.Labels
	if labels == nil {
		labels = map[string]string{}
	}
	return &Scenario{Metadata: ScenarioMetadata{Labels: labels}, Spec: spec, Benchmarks: []json.RawMessage{json.RawMessage("null")}}, nil
}

// NewSpec builds GuideLLM's BenchmarkArgs from in, writing every field
// GuideLLM's own dump writes and nothing else.
func NewSpec(in SpecInput) (Spec, error) {
	var s Spec
	var err error
	if s.Backend, err = backendJSON(in.Backend); err != nil {
		return s, err
	}
	if s.Profile, err = profileJSON(in.Profile); err != nil {
		return s, err
	}
	s.Constraints = []json.RawMessage{}
	for _, c := range in.Constraints {
		b, err := c.MarshalJSON()
		if err != nil {
			return s, err
		}
		s.Constraints = append(s.Constraints, b)
	}
	tok := NewOrderedObject()
	tok.Field("kind", "huggingface_auto")
	tok.Field("model", optString(in.Tokenizer))
	tok.Field("load_kwargs", map[string]any{})
	if s.Tokenizer, err = tok.Done(); err != nil {
		return s, err
	}
	if len(in.Data) == 0 && len(in.RawData) == 0 {
		return s, fmt.Errorf("spec: at least one data source is required")
	}
	for _, d := range in.Data {
		b, err := syntheticJSON(d)
		if err != nil {
			return s, err
		}
		s.Data = append(s.Data, b)
	}
	for i, d := range in.RawData {
		if !json.Valid(d) {
			return s, fmt.Errorf("spec: raw data %d is not valid JSON", i)
		}
		s.Data = append(s.Data, d)
	}
	s.DataColumnMapper = json.RawMessage(`{"kind":"generative_column_mapper","column_mappings":null}`)
	s.DataPreprocessors = []json.RawMessage{json.RawMessage(`{"kind":"encode_media","audio_kwargs":{},"image_kwargs":{},"video_kwargs":{}}`)}
	s.DataFinalizer = json.RawMessage(`{"kind":"generative","tool_call_mode":"client"}`)
	s.DataLoader = json.RawMessage(`{"kind":"pytorch","samples":-1,"shuffle":false,"num_workers":1}`)
	seed := NewOrderedObject()
	seed.Field("kind", "static")
	seed.Field("value", in.Seed)
	if s.Seed, err = seed.Done(); err != nil {
		return s, err
	}
	s.Outputs = []json.RawMessage{}
	for _, o := range in.Outputs {
		w := NewOrderedObject()
		switch o.Kind {
		case "console":
			w.Field("kind", o.Kind)
		case "json", "csv", "yaml", "html":
			w.Field("kind", o.Kind)
			w.Field("path", o.Path)
		default:
			return s, fmt.Errorf("spec: unknown output kind %q (want json, csv, yaml, html or console)", o.Kind)
		}
		b, err := w.Done()
		if err != nil {
			return s, err
		}
		s.Outputs = append(s.Outputs, b)
	}
	m := NewOrderedObject()
	m.Field("kind", "generative")
	if in.SampleSize < 0 {
		m.Field("sample_size", nil)
	} else {
		m.Field("sample_size", in.SampleSize)
	}
	m.Field("prefer_response_metrics", true)
	if s.Metrics, err = m.Done(); err != nil {
		return s, err
	}
	return s, nil
}

func optString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func backendJSON(b Backend) (json.RawMessage, error) {
	if b.Target == "" {
		return nil, fmt.Errorf("spec: backend target is required")
	}
	rf := b.RequestFormat
	if rf == "" {
		rf = reqtype.PathChat
	}
	// GuideLLM's request_format is a closed list: goodput's own formats
	// are written as GuideLLM's nearest one (reqtype's GuideLLM: the
	// pooling route for vLLM's and TEI's rerank and score, chat for
	// Anthropic Messages, the same streamed generation), with the real
	// route in api_routes, so that GuideLLM loads the report and nothing is
	// hidden.
	routes := map[string]string{}
	if t, ok := reqtype.ByPath(rf); ok && t.RouteFormat() != rf {
		routes[t.RouteFormat()], rf = rf, t.RouteFormat()
	} else if !ok {
		return nil, fmt.Errorf("spec: request format %q is not one of GuideLLM's (%s, %s, …) or one of goodput's (%s)", rf, reqtype.PathChat, reqtype.PathCompletions,
			reqtype.Names(func(t *reqtype.Type) bool { return t.GuideLLM != "" }, func(t *reqtype.Type) string { return t.Path }, ""))
	}
	w := NewOrderedObject()
	w.Field("kind", "openai_http")
	w.Field("target", b.Target)
	w.Field("model", b.Model)
	w.Field("request_format", rf)
	if b.APIKeySet {
		w.Field("api_key", "**********")
	} else {
		w.Field("api_key", nil)
	}
	w.Field("api_routes", routes)
	if b.Timeout != nil {
		w.Field("timeout", Float(*b.Timeout))
	} else {
		w.Field("timeout", nil)
	}
	tc := b.TimeoutConnect
	if tc == 0 {
		tc = 5
	}
	w.Field("timeout_connect", Float(tc))
	w.Field("http2", b.HTTP2)
	w.Field("follow_redirects", true)
	w.Field("verify", false)
	w.Field("validate_backend", true)
	w.Field("stream", b.Stream)
	if len(b.ExtraBody) > 0 || len(b.ExtraHeaders) > 0 || len(b.ContentExtras) > 0 {
		x := NewOrderedObject()
		x.Field("method", nil)
		x.Field("stream", nil)
		if len(b.ExtraHeaders) > 0 {
			h := map[string]string{}
			for _, name := range b.ExtraHeaders {
				h[name] = "**********"
			}
			x.Field("headers", h)
		} else {
			x.Field("headers", nil)
		}
		x.Field("params", nil)
		if len(b.ExtraBody) > 0 {
			x.Field("body", b.ExtraBody)
		} else {
			x.Field("body", nil)
		}
		x.Field("files", nil)
		if len(b.ContentExtras) > 0 {
			x.Field("content", b.ContentExtras)
		} else {
			x.Field("content", nil)
		}
		eb, err := x.Done()
		if err != nil {
			return nil, err
		}
		w.Field("extras", json.RawMessage(eb))
	} else {
		w.Field("extras", nil)
	}
	w.Field("max_tokens", optIntJSON(b.MaxTokens))
	w.Field("server_history", false)
	w.Field("tool_call_missing_behavior", "error_stop")
	w.Field("multiturn_reasoning", false)
	return w.Done()
}

func profileJSON(p Profile) (json.RawMessage, error) {
	w := NewOrderedObject()
	w.Field("kind", p.Kind)
	if p.RampupDuration < 0 {
		return nil, fmt.Errorf("profile: rampup_duration must be >= 0")
	}
	w.Field("rampup_duration", Float(p.RampupDuration))
	w.Field("warmup", p.Warmup)
	w.Field("cooldown", p.Cooldown)
	switch p.Kind {
	case StrategySynchronous:
	case StrategyConcurrent:
		if len(p.Streams) == 0 {
			return nil, fmt.Errorf("profile concurrent: streams are required")
		}
		for _, s := range p.Streams {
			if s <= 0 {
				return nil, fmt.Errorf("profile concurrent: streams must be > 0, got %d", s)
			}
		}
		if len(p.Streams) == 1 {
			w.Field("streams", p.Streams[0])
		} else {
			w.Field("streams", p.Streams)
		}
	case StrategyThroughput:
		w.Field("max_concurrency", optIntJSON(p.MaxConcurrency))
	case StrategyConstant, StrategyPoisson:
		if len(p.Rate) == 0 {
			return nil, fmt.Errorf("profile %s: rate is required", p.Kind)
		}
		rates := make([]Float, len(p.Rate))
		for i, r := range p.Rate {
			if !(r > 0) {
				return nil, fmt.Errorf("profile %s: rate must be > 0, got %v", p.Kind, r)
			}
			rates[i] = Float(r)
		}
		w.Field("rate", rates)
		w.Field("max_concurrency", optIntJSON(p.MaxConcurrency))
	case "sweep":
		size := p.SweepSize
		if size == 0 {
			size = 10
		}
		if size < 2 {
			return nil, fmt.Errorf("profile sweep: sweep_size must be >= 2, got %d", size)
		}
		st := p.StrategyType
		if st == "" {
			st = StrategyConstant
		}
		if st != StrategyConstant && st != StrategyPoisson {
			return nil, fmt.Errorf("profile sweep: strategy_type must be constant or poisson, got %q", st)
		}
		w.Field("sweep_size", size)
		w.Field("strategy_type", st)
		w.Field("max_concurrency", optIntJSON(p.MaxConcurrency))
	case StrategyReplay:
		ts := p.TimeScale
		if ts == 0 {
			ts = 1
		}
		if !(ts > 0) {
			return nil, fmt.Errorf("profile replay: time_scale must be > 0")
		}
		w.Field("time_scale", Float(ts))
	default:
		return nil, fmt.Errorf("profile: unknown kind %q (want synchronous, concurrent, throughput, constant, poisson, sweep or replay)", p.Kind)
	}
	return w.Done()
}

func syntheticJSON(d SyntheticText) (json.RawMessage, error) {
	if d.PromptTokens <= 0 {
		return nil, fmt.Errorf("synthetic_text: prompt_tokens must be > 0, got %d", d.PromptTokens)
	}
	for _, v := range []int{d.PromptTokensStdev, d.PromptTokensMin, d.PromptTokensMax, d.OutputTokens, d.OutputTokensStdev, d.OutputTokensMin, d.OutputTokensMax, d.PrefixTokens, d.PrefixCount} {
		if v < 0 {
			return nil, fmt.Errorf("synthetic_text: token counts must be >= 0")
		}
	}
	w := NewOrderedObject()
	w.Field("kind", "synthetic_text")
	w.Field("load_kwargs", map[string]any{})
	w.Field("prompt_tokens", d.PromptTokens)
	w.Field("prompt_tokens_stdev", optIntJSON(d.PromptTokensStdev))
	w.Field("prompt_tokens_min", optIntJSON(d.PromptTokensMin))
	w.Field("prompt_tokens_max", optIntJSON(d.PromptTokensMax))
	w.Field("output_tokens", optIntJSON(d.OutputTokens))
	w.Field("output_tokens_stdev", optIntJSON(d.OutputTokensStdev))
	w.Field("output_tokens_min", optIntJSON(d.OutputTokensMin))
	w.Field("output_tokens_max", optIntJSON(d.OutputTokensMax))
	for _, k := range []string{"delay", "delay_stdev", "delay_min", "delay_max"} {
		w.Field(k, nil)
	}
	turns := d.Turns
	if turns <= 0 {
		turns = 1
	}
	w.Field("turns", turns)
	w.Field("tool_call_turns", []int{})
	w.Field("tools", nil)
	for _, k := range []string{"tool_response_tokens", "tool_response_tokens_stdev", "tool_response_tokens_min", "tool_response_tokens_max"} {
		w.Field(k, nil)
	}
	w.Field("server_tool_call_turns", []int{})
	if d.PrefixTokens > 0 {
		count := d.PrefixCount
		if count <= 0 {
			count = 1
		}
		w.Field("prefix_buckets", []map[string]int{{"bucket_weight": 100, "prefix_count": count, "prefix_tokens": d.PrefixTokens}})
	} else {
		w.Field("prefix_buckets", nil)
	}
	return w.Done()
}

// ConstraintsMap is BenchmarkConfig.constraints: GuideLLM's
// {kind: args} dictionary.
func ConstraintsMap(cs []Constraint) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	for _, c := range cs {
		b, err := c.MarshalJSON()
		if err != nil {
			return nil, err
		}
		out[c.Kind] = b
	}
	return out, nil
}

// Label names the strategy with its rate or streams, as the console
// prints it: "constant 10.00/s", "concurrent 8", "throughput".
func (s Strategy) Label() string {
	switch s.Type {
	case StrategyConstant, StrategyPoisson:
		return fmt.Sprintf("%s %.2f/s", s.Type, s.Rate)
	case StrategyConcurrent:
		return fmt.Sprintf("concurrent %d", s.Streams)
	case StrategyThroughput:
		if s.MaxConcurrency > 0 {
			return fmt.Sprintf("throughput max %d", s.MaxConcurrency)
		}
		return "throughput"
	case StrategyReplay:
		ts := s.TimeScale
		if ts == 0 {
			ts = 1
		}
		return fmt.Sprintf("replay x%.2f", ts)
	case "":
		return "-"
	}
	return s.Type
}
