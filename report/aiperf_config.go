package report

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Defaults of AIPerfOptions' caps.
const (
	// DefaultAIPerfExactCap is the number of values of one per-request
	// metric kept exactly per benchmark (8 bytes each).
	DefaultAIPerfExactCap = 1_000_000
	// DefaultAIPerfChunkExactCap is the number of inter-chunk gaps kept
	// exactly per benchmark.
	DefaultAIPerfChunkExactCap = 4_000_000
)

// AIPerfOptions configure an AIPerf export.
type AIPerfOptions struct {
	// GoodputVersion is written as aiperf_version and goodput_export.version.
	GoodputVersion string
	// SLOs are --goodput thresholds: with any, good_request_count and
	// goodput are computed per request, AIPerf's way.
	SLOs []AIPerfSLO
	// ExactCap and ChunkExactCap bound memory: per benchmark, at most
	// ExactCap values of each per-request metric and ChunkExactCap
	// inter-chunk gaps are kept for exact statistics; beyond, the metric
	// continues in an HDR histogram (percentiles within 0.1%; count, sum,
	// mean, min, max and std stay exact) and goodput_export.exact is false. 0
	// means the default.
	ExactCap, ChunkExactCap int
	// CLICommand is run_info.cli_command (already redacted by the caller;
	// "" writes null).
	CLICommand string
	// ArtifactDir and Tokenizer fill input_config.artifacts.dir and
	// input_config.tokenizer.name when set.
	ArtifactDir string
	Tokenizer   string
	// TokenCounts chooses whose token counts the sequence lengths use.
	TokenCounts AIPerfTokenCounts
}

// AIPerfTokenCounts chooses whose token counts make the input and output
// sequence lengths.
type AIPerfTokenCounts uint8

// Token count choices.
const (
	// AIPerfTokensDefault: input lengths from the client's count of the
	// prompt it built (AIPerf's count, no chat template) when known,
	// output lengths from the server's usage when sent (goodput's figures).
	AIPerfTokensDefault AIPerfTokenCounts = iota
	// AIPerfTokensClient: both from the client's counts when known
	// (AIPerf's default, with its tokenizer).
	AIPerfTokensClient
	// AIPerfTokensServer: both from the server's usage when sent
	// (AIPerf's --use-server-token-count).
	AIPerfTokensServer
)

func (o AIPerfOptions) caps() (int, int) {
	c, cc := o.ExactCap, o.ChunkExactCap
	if c <= 0 {
		c = DefaultAIPerfExactCap
	}
	if cc <= 0 {
		cc = DefaultAIPerfChunkExactCap
	}
	return c, cc
}

// AIPerfLabels names each benchmark of rep the way AIPerf names sweep
// variations (and their artifact directories): concurrency_N for a
// concurrent benchmark (synchronous is concurrency_1), request_rate_R for
// a constant or poisson rate, throughput, replay; benchmark_I when the
// strategy is unknown. A repeated name gets _2, _3, … in benchmark order.
func AIPerfLabels(rep *Report) []string {
	out := make([]string, len(rep.Benchmarks))
	seen := map[string]int{}
	for i, b := range rep.Benchmarks {
		l := aiperfLabel(b, i)
		seen[l]++
		if n := seen[l]; n > 1 {
			l += "_" + strconv.Itoa(n)
		}
		out[i] = l
	}
	return out
}

func aiperfLabel(b *Benchmark, i int) string {
	s := b.Config.Strategy
	switch s.Type {
	case StrategyConcurrent:
		return "concurrency_" + strconv.Itoa(s.Streams)
	case StrategySynchronous:
		return "concurrency_1"
	case StrategyConstant, StrategyPoisson:
		return "request_rate_" + strconv.FormatFloat(s.Rate, 'g', -1, 64)
	case StrategyThroughput, StrategyReplay:
		return s.Type
	}
	return "benchmark_" + strconv.Itoa(i)
}

// aiperfVariation returns AIPerf's variation_values for a benchmark.
func aiperfVariation(b *Benchmark) json.RawMessage {
	s := b.Config.Strategy
	o := newObj()
	switch s.Type {
	case StrategyConcurrent:
		o.field("phases.profiling.concurrency", s.Streams)
	case StrategySynchronous:
		o.field("phases.profiling.concurrency", 1)
	case StrategyConstant, StrategyPoisson:
		o.field("phases.profiling.request_rate", Float(s.Rate))
	}
	raw, err := o.done()
	if err != nil {
		return json.RawMessage("{}")
	}
	return raw
}

// isoTime formats Unix seconds as AIPerf writes start_time and end_time:
// ISO-8601 in UTC with microseconds and no offset.
func isoTime(sec *Float) string {
	if sec == nil || *sec <= 0 {
		return ""
	}
	us := int64(math.Round(float64(*sec) * 1e6))
	return time.UnixMicro(us).UTC().Format("2006-01-02T15:04:05.000000")
}

// aiperfHeader fills the parts of an export that come from the report:
// provenance, times, input_config, run_info and goodput's block.
func aiperfHeader(rep *Report, index int, opts AIPerfOptions, source string) (*AIPerfExport, error) {
	if index < 0 || index >= len(rep.Benchmarks) {
		return nil, fmt.Errorf("benchmark %d: the report has %d benchmarks", index, len(rep.Benchmarks))
	}
	b := rep.Benchmarks[index]
	if b == nil {
		return nil, fmt.Errorf("benchmark %d is null", index)
	}
	x := &AIPerfExport{
		SchemaVersion: AIPerfSchemaVersion,
		AIPerfVersion: opts.GoodputVersion,
		BenchmarkID:   b.Config.ID,
		StartTime:     isoTime(b.StartTime),
		EndTime:       isoTime(b.EndTime),
	}
	if x.BenchmarkID == "" {
		x.BenchmarkID = "benchmark-" + strconv.Itoa(index)
	}
	if g := b.Goodput; g != nil && g.StopReason == "interrupted" {
		x.WasCancelled = true
	}
	if rep.Goodput != nil && rep.Goodput.Interrupted && index == len(rep.Benchmarks)-1 {
		x.WasCancelled = true
	}
	labels := AIPerfLabels(rep)
	ic, err := aiperfInputConfig(rep, b, opts)
	if err != nil {
		return nil, err
	}
	x.InputConfig = ic
	ri := &AIPerfRunInfo{
		BenchmarkID: x.BenchmarkID, RunLabel: fmt.Sprintf("run_%04d", index+1),
		VariationLabel: "base", VariationIndex: index, VariationValues: json.RawMessage("{}"),
	}
	if len(rep.Benchmarks) > 1 {
		ri.VariationLabel = labels[index]
		ri.VariationValues = aiperfVariation(b)
		id := b.Config.RunID
		if rep.Goodput != nil && rep.Goodput.RunID != "" {
			id = rep.Goodput.RunID
		}
		if id != "" {
			ri.SweepID = &id
		}
	}
	if seed, ok := specSeed(rep); ok {
		ri.RandomSeed = &seed
	}
	if opts.CLICommand != "" {
		c := opts.CLICommand
		ri.CLICommand = &c
	}
	x.RunInfo = ri
	x.Goodput = &AIPerfProvenance{
		Version: opts.GoodputVersion, Note: AIPerfNote, Source: source, Exact: true, InexactReasons: []string{},
		BenchmarkIndex: index, Strategy: strategyLabel(b), Label: labels[index],
	}
	return x, nil
}

// The parts of GuideLLM's scenario the input_config needs, read loosely
// (reports from other tools may lack any of them).
type scenarioBackend struct {
	Target        string   `json:"target"`
	Model         string   `json:"model"`
	RequestFormat string   `json:"request_format"`
	Stream        *bool    `json:"stream"`
	Timeout       *float64 `json:"timeout"`
	MaxTokens     *int     `json:"max_tokens"`
	Extras        *struct {
		Headers map[string]string `json:"headers"`
		Body    json.RawMessage   `json:"body"`
	} `json:"extras"`
}

type scenarioData struct {
	Kind              string   `json:"kind"`
	PromptTokens      *float64 `json:"prompt_tokens"`
	PromptTokensStdev *float64 `json:"prompt_tokens_stdev"`
	OutputTokens      *float64 `json:"output_tokens"`
	OutputTokensStdev *float64 `json:"output_tokens_stdev"`
}

func specSeed(rep *Report) (int64, bool) {
	if rep.Config == nil || len(rep.Config.Spec.Seed) == 0 {
		return 0, false
	}
	var s struct {
		Value *float64 `json:"value"`
	}
	if json.Unmarshal(rep.Config.Spec.Seed, &s) != nil || s.Value == nil {
		return 0, false
	}
	return int64(*s.Value), true
}

// aiperfInputConfig renders what the report knows about the run in the
// shape of AIPerf's input_config (models, endpoint, datasets, phases,
// artifacts, tokenizer); keys whose value is unknown are left out.
func aiperfInputConfig(rep *Report, b *Benchmark, opts AIPerfOptions) (json.RawMessage, error) {
	var be scenarioBackend
	var data []scenarioData
	tokenizer := opts.Tokenizer
	if rep.Config != nil {
		sp := &rep.Config.Spec
		if len(sp.Backend) > 0 {
			_ = json.Unmarshal(sp.Backend, &be) // a foreign shape leaves the fields empty
		}
		for _, d := range sp.Data {
			var sd scenarioData
			if json.Unmarshal(d, &sd) == nil {
				data = append(data, sd)
			}
		}
		if tokenizer == "" && len(sp.Tokenizer) > 0 {
			var t struct {
				Model *string `json:"model"`
			}
			if json.Unmarshal(sp.Tokenizer, &t) == nil && t.Model != nil {
				tokenizer = *t.Model
			}
		}
	}
	top := newObj()
	if be.Model != "" {
		m := newObj()
		m.field("strategy", "round_robin")
		m.field("items", []map[string]string{{"name": be.Model}})
		raw, err := m.done()
		if err != nil {
			return nil, err
		}
		top.field("models", json.RawMessage(raw))
	}
	if be.Target != "" {
		ep := newObj()
		rf := be.RequestFormat
		if rf == "" {
			rf = "/v1/chat/completions"
		}
		ep.field("urls", []string{strings.TrimRight(be.Target, "/") + rf})
		ep.field("url_strategy", "round_robin")
		switch rf {
		case "/v1/chat/completions":
			ep.field("type", "chat")
		case "/v1/completions":
			ep.field("type", "completions")
		default:
			ep.field("type", rf)
		}
		if be.Timeout != nil {
			ep.field("timeout", Float(*be.Timeout))
		}
		if be.Stream != nil {
			ep.field("streaming", *be.Stream)
		}
		headers := map[string]string{}
		extra := json.RawMessage("{}")
		if be.Extras != nil {
			for k := range be.Extras.Headers {
				headers[k] = "**********" // values are never written
			}
			if len(be.Extras.Body) > 0 && string(be.Extras.Body) != "null" {
				extra = be.Extras.Body
			}
		}
		ep.field("headers", headers)
		ep.field("extra", extra)
		ep.field("use_server_token_count", opts.TokenCounts == AIPerfTokensServer)
		raw, err := ep.done()
		if err != nil {
			return nil, err
		}
		top.field("endpoint", json.RawMessage(raw))
	}
	if len(data) > 0 && data[0].Kind == "synthetic_text" && data[0].PromptTokens != nil {
		d := data[0]
		prompts := newObj()
		dist := func(mean, sd *float64) map[string]Float {
			m := map[string]Float{"mean": Float(*mean), "stddev": 0}
			if sd != nil {
				m["stddev"] = Float(*sd)
			}
			return m
		}
		prompts.field("isl", dist(d.PromptTokens, d.PromptTokensStdev))
		if d.OutputTokens != nil {
			prompts.field("osl", dist(d.OutputTokens, d.OutputTokensStdev))
		}
		praw, err := prompts.done()
		if err != nil {
			return nil, err
		}
		ds := newObj()
		ds.field("name", "main")
		ds.field("type", "synthetic")
		ds.field("prompts", json.RawMessage(praw))
		raw, err := ds.done()
		if err != nil {
			return nil, err
		}
		top.field("datasets", []json.RawMessage{raw})
	}
	if phases, err := aiperfPhases(b); err != nil {
		return nil, err
	} else if len(phases) > 0 {
		top.field("phases", phases)
	}
	if opts.ArtifactDir != "" {
		top.field("artifacts", map[string]string{"dir": opts.ArtifactDir})
	}
	if tokenizer != "" {
		top.field("tokenizer", map[string]string{"name": tokenizer})
	}
	return top.done()
}

// aiperfPhases describes the benchmark's load as AIPerf's phases: a warmup
// phase when a warmup in requests or seconds applied, then "profiling".
func aiperfPhases(b *Benchmark) ([]json.RawMessage, error) {
	s := b.Config.Strategy
	if s.Type == "" {
		return nil, nil
	}
	var maxReq int
	var maxSec float64
	for kind, raw := range b.Config.Constraints {
		var c struct {
			Count   *float64 `json:"count"`
			Seconds *float64 `json:"seconds"`
		}
		if json.Unmarshal(raw, &c) != nil {
			continue
		}
		switch {
		case kind == ConstraintMaxRequests && c.Count != nil:
			maxReq = int(*c.Count)
		case kind == ConstraintMaxDuration && c.Seconds != nil:
			maxSec = *c.Seconds
		}
	}
	var out []json.RawMessage
	phaseType, conc, rate := "concurrency", 0, 0.0
	switch s.Type {
	case StrategyConcurrent:
		conc = s.Streams
	case StrategySynchronous:
		conc = 1
	case StrategyThroughput:
		conc = s.MaxConcurrency
	case StrategyConstant, StrategyPoisson:
		phaseType, rate, conc = "request_rate", s.Rate, s.MaxConcurrency
	default:
		phaseType = s.Type
	}
	warmReq := 0
	if ws, wr := b.Config.Warmup.Limits(maxReq, maxSec); ws != nil || wr != nil {
		w := newObj()
		w.field("name", "warmup")
		w.field("type", phaseType)
		w.field("exclude_from_results", true)
		if wr != nil {
			warmReq = *wr
			w.field("requests", *wr)
		}
		if ws != nil {
			w.field("duration", Float(*ws))
		}
		raw, err := w.done()
		if err != nil {
			return nil, err
		}
		out = append(out, raw)
	}
	p := newObj()
	p.field("name", "profiling")
	p.field("type", phaseType)
	p.field("exclude_from_results", false)
	if maxReq > 0 {
		p.field("requests", max(maxReq-warmReq, 0))
	}
	if maxSec > 0 {
		p.field("duration", Float(maxSec))
	}
	if conc > 0 {
		p.field("concurrency", conc)
	}
	if rate > 0 {
		p.field("request_rate", Float(rate))
		pattern := "constant"
		if s.Type == StrategyPoisson {
			pattern = "poisson"
		}
		p.field("arrival_pattern", pattern)
	}
	raw, err := p.done()
	if err != nil {
		return nil, err
	}
	return append(out, raw), nil
}
