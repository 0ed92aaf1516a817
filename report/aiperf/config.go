package aiperf

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/reqtype"
	"github.com/goodput-dev/goodput/slo"
)

// Defaults of Options' caps.
const (
	// DefaultExactCap is the number of values of one per-request
	// metric kept exactly per benchmark (8 bytes each).
	DefaultExactCap = 1_000_000
	// DefaultChunkExactCap is the number of inter-chunk gaps kept
	// exactly per benchmark.
	DefaultChunkExactCap = 4_000_000
)

// Options configure an AIPerf export.
type Options struct {
	// GoodputVersion is written as aiperf_version and goodput_export.version.
	GoodputVersion string
	// SLOs are --goodput thresholds: with any, good_request_count and
	// goodput are computed per request, AIPerf's way.
	SLOs []slo.AIPerfThreshold
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
	TokenCounts TokenCounts
	// PerChunkUsage is AIPerf's --per-chunk-usage: inter_token_latency
	// (and output_token_throughput_per_user) divide the decode time by the
	// output length less the tokens the server's usage counted in the
	// first content chunk, instead of less one.
	PerChunkUsage bool
	// HTTPTrace adds AIPerf's HTTP trace metrics (http_req_connecting,
	// _connection_reused, _sending, _waiting, _receiving, _duration) from
	// the records' phase times
	// (AIPerf's --export-http-trace and --show-trace-timing).
	HTTPTrace bool
}

// TokenCounts chooses whose token counts make the input and output
// sequence lengths.
type TokenCounts uint8

// Token count choices.
const (
	// TokensDefault: input lengths from the client's count of the
	// prompt it built (AIPerf's count, no chat template) when known,
	// output lengths from the server's usage when sent (goodput's figures).
	TokensDefault TokenCounts = iota
	// TokensClient: both from the client's counts when known
	// (AIPerf's default, with its tokenizer).
	TokensClient
	// TokensServer: both from the server's usage when sent
	// (AIPerf's --use-server-token-count).
	TokensServer
)

func (o Options) caps() (int, int) {
	c, cc := o.ExactCap, o.ChunkExactCap
	if c <= 0 {
		c = DefaultExactCap
	}
	if cc <= 0 {
		cc = DefaultChunkExactCap
	}
	return c, cc
}

// Labels names each benchmark of rep the way AIPerf names sweep
// variations (and their artifact directories): concurrency_N for a
// concurrent benchmark (synchronous is concurrency_1), request_rate_R for
// a constant or poisson rate, throughput, replay; benchmark_I when the
// strategy is unknown. A repeated name gets _2, _3, … in benchmark order.
func Labels(rep *report.Report) []string {
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

func aiperfLabel(b *report.Benchmark, i int) string {
	s := b.Config.Strategy
	switch s.Type {
	case report.StrategyConcurrent:
		return "concurrency_" + strconv.Itoa(s.Streams)
	case report.StrategySynchronous:
		return "concurrency_1"
	case report.StrategyConstant, report.StrategyPoisson:
		return "request_rate_" + strconv.FormatFloat(s.Rate, 'g', -1, 64)
	case report.StrategyThroughput, report.StrategyReplay:
		return s.Type
	}
	return "benchmark_" + strconv.Itoa(i)
}

// aiperfVariation returns AIPerf's variation_values for a benchmark.
func aiperfVariation(b *report.Benchmark) json.RawMessage {
	s := b.Config.Strategy
	o := report.NewOrderedObject()
	switch s.Type {
	case report.StrategyConcurrent:
		o.Field("phases.profiling.concurrency", s.Streams)
	case report.StrategySynchronous:
		o.Field("phases.profiling.concurrency", 1)
	case report.StrategyConstant, report.StrategyPoisson:
		o.Field("phases.profiling.request_rate", report.Float(s.Rate))
	}
	raw, err := o.Done()
	if err != nil {
		return json.RawMessage("{}")
	}
	return raw
}

// isoTime formats Unix seconds as AIPerf writes start_time and end_time:
// ISO-8601 in UTC with microseconds and no offset.
func isoTime(sec *report.Float) string {
	if sec == nil || *sec <= 0 {
		return ""
	}
	us := int64(math.Round(float64(*sec) * 1e6))
	return time.UnixMicro(us).UTC().Format("2006-01-02T15:04:05.000000")
}

// aiperfHeader fills the parts of an export that come from the report:
// provenance, times, input_config, run_info and goodput's block.
func aiperfHeader(rep *report.Report, index int, opts Options, source string) (*Export, error) {
	if index < 0 || index >= len(rep.Benchmarks) {
		return nil, fmt.Errorf("benchmark %d: the report has %d benchmarks", index, len(rep.Benchmarks))
	}
	b := rep.Benchmarks[index]
	if b == nil {
		return nil, fmt.Errorf("benchmark %d is null", index)
	}
	x := &Export{
		SchemaVersion: SchemaVersion,
		AIPerfVersion: opts.GoodputVersion,
		BenchmarkID:   b.Config.ID,
		StartTime:     isoTime(b.StartTime),
		EndTime:       isoTime(b.EndTime),
	}
	if x.BenchmarkID == "" {
		x.BenchmarkID = "benchmark-" + strconv.Itoa(index)
	}
	if g := b.Extras; g != nil && g.StopReason == "interrupted" {
		x.WasCancelled = true
	}
	if rep.Run != nil && rep.Run.Interrupted && index == len(rep.Benchmarks)-1 {
		x.WasCancelled = true
	}
	labels := Labels(rep)
	ic, err := aiperfInputConfig(rep, b, opts)
	if err != nil {
		return nil, err
	}
	x.InputConfig = ic
	ri := &RunInfo{
		BenchmarkID: x.BenchmarkID, RunLabel: fmt.Sprintf("run_%04d", index+1),
		VariationLabel: "base", VariationIndex: index, VariationValues: json.RawMessage("{}"),
	}
	if len(rep.Benchmarks) > 1 {
		ri.VariationLabel = labels[index]
		ri.VariationValues = aiperfVariation(b)
		id := b.Config.RunID
		if rep.Run != nil && rep.Run.RunID != "" {
			id = rep.Run.RunID
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
	x.Goodput = &Provenance{
		Version: opts.GoodputVersion, Note: Note, Source: source, Exact: true, InexactReasons: []string{},
		BenchmarkIndex: index, Strategy: b.Config.Strategy.Label(), Label: labels[index],
	}
	if g := b.Extras; g != nil {
		x.Goodput.ByModel, x.Goodput.ByTarget = g.ByModel, g.ByTarget
		if g.Sessions != nil && g.Sessions.Sessions > 0 {
			x.Goodput.Sessions = g.Sessions
		}
	}
	return x, nil
}

// addSessionMetrics appends AIPerf's session metrics (session_count,
// session_turns, session_duration) from the report's session figures,
// when the benchmark ran sessions. They are the report's summaries in
// either source, so the export says they are approximate.
func addSessionMetrics(x *Export, b *report.Benchmark) {
	if b.Extras == nil || b.Extras.Sessions == nil || b.Extras.Sessions.Sessions == 0 {
		return
	}
	s := b.Extras.Sessions
	x.Metrics = append(x.Metrics, scalarMetric("session_count", float64(s.Completed)))
	if s.TurnsPerSession.Count > 0 {
		x.Metrics = append(x.Metrics, summaryMetric(&sessionTurnsDef, &s.TurnsPerSession, 1))
	}
	if s.DurationSeconds.Count > 0 {
		x.Metrics = append(x.Metrics, summaryMetric(&sessionDurationDef, &s.DurationSeconds, 1000))
	}
	x.Goodput.Exact = false
	x.Goodput.InexactReasons = append(x.Goodput.InexactReasons,
		"session_count (sessions whose every turn succeeded), session_turns and session_duration are the report's session figures (a session spanning the window's edges counts whole), not recomputed from the records")
}

// The parts of GuideLLM's scenario the input_config needs, read loosely
// (reports from other tools may lack any of them).
type scenarioBackend struct {
	Target        string            `json:"target"`
	Model         string            `json:"model"`
	RequestFormat string            `json:"request_format"`
	APIRoutes     map[string]string `json:"api_routes"`
	Stream        *bool             `json:"stream"`
	Timeout       *float64          `json:"timeout"`
	MaxTokens     *int              `json:"max_tokens"`
	Extras        *struct {
		Headers map[string]string `json:"headers"`
		Body    json.RawMessage   `json:"body"`
	} `json:"extras"`
}

// route is the path the requests went to: request_format, unless
// api_routes sends that format to a route of goodput's own (rerank, score
// and Anthropic Messages are written as GuideLLM's nearest format).
func (b scenarioBackend) route() string {
	rf := b.RequestFormat
	if rf == "" {
		rf = reqtype.PathChat
	}
	if r := b.APIRoutes[rf]; strings.HasPrefix(r, "/") {
		return r
	}
	return rf
}

type scenarioData struct {
	Kind              string   `json:"kind"`
	PromptTokens      *float64 `json:"prompt_tokens"`
	PromptTokensStdev *float64 `json:"prompt_tokens_stdev"`
	OutputTokens      *float64 `json:"output_tokens"`
	OutputTokensStdev *float64 `json:"output_tokens_stdev"`
}

func specSeed(rep *report.Report) (int64, bool) {
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

// poolingReport reports whether rep's requests went to a request type
// whose output is not tokens (embeddings, rerank, score): AIPerf gives no
// output-token metric for them.
func poolingReport(rep *report.Report) bool {
	var be scenarioBackend
	if rep.Config == nil || len(rep.Config.Spec.Backend) == 0 || json.Unmarshal(rep.Config.Spec.Backend, &be) != nil {
		return false
	}
	t, ok := reqtype.ByPath(be.route())
	return ok && t.Output != reqtype.OutputTokens
}

// aiperfInputConfig renders what the report knows about the run in the
// shape of AIPerf's input_config (models, endpoint, datasets, phases,
// artifacts, tokenizer); keys whose value is unknown are left out.
func aiperfInputConfig(rep *report.Report, b *report.Benchmark, opts Options) (json.RawMessage, error) {
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
	top := report.NewOrderedObject()
	if be.Model != "" {
		m := report.NewOrderedObject()
		m.Field("strategy", "round_robin")
		items := []map[string]string{{"name": be.Model}}
		if g := b.Extras; g != nil && len(g.ByModel) > 1 {
			items = items[:0] // several models: the breakdown names them all
			for _, f := range g.ByModel {
				items = append(items, map[string]string{"name": f.Name})
			}
		}
		m.Field("items", items)
		raw, err := m.Done()
		if err != nil {
			return nil, err
		}
		top.Field("models", json.RawMessage(raw))
	}
	if be.Target != "" {
		ep := report.NewOrderedObject()
		rf := be.route()
		urls := []string{strings.TrimRight(be.Target, "/") + rf}
		if g := b.Extras; g != nil && len(g.ByTarget) > 1 {
			urls = urls[:0]
			for _, f := range g.ByTarget {
				urls = append(urls, strings.TrimRight(f.Name, "/")+rf)
			}
		}
		ep.Field("urls", urls)
		ep.Field("url_strategy", "round_robin")
		if t, ok := reqtype.ByPath(rf); ok && t.AIPerf != "" {
			ep.Field("type", t.AIPerf)
		} else {
			ep.Field("type", rf)
		}
		if be.Timeout != nil {
			ep.Field("timeout", report.Float(*be.Timeout))
		}
		if be.Stream != nil {
			ep.Field("streaming", *be.Stream)
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
		ep.Field("headers", headers)
		ep.Field("extra", extra)
		ep.Field("use_server_token_count", opts.TokenCounts == TokensServer)
		raw, err := ep.Done()
		if err != nil {
			return nil, err
		}
		top.Field("endpoint", json.RawMessage(raw))
	}
	if len(data) > 0 && data[0].Kind == "synthetic_text" && data[0].PromptTokens != nil {
		d := data[0]
		prompts := report.NewOrderedObject()
		dist := func(mean, sd *float64) map[string]report.Float {
			m := map[string]report.Float{"mean": report.Float(*mean), "stddev": 0}
			if sd != nil {
				m["stddev"] = report.Float(*sd)
			}
			return m
		}
		prompts.Field("isl", dist(d.PromptTokens, d.PromptTokensStdev))
		if d.OutputTokens != nil {
			prompts.Field("osl", dist(d.OutputTokens, d.OutputTokensStdev))
		}
		praw, err := prompts.Done()
		if err != nil {
			return nil, err
		}
		ds := report.NewOrderedObject()
		ds.Field("name", "main")
		ds.Field("type", "synthetic")
		ds.Field("prompts", json.RawMessage(praw))
		raw, err := ds.Done()
		if err != nil {
			return nil, err
		}
		top.Field("datasets", []json.RawMessage{raw})
	}
	if phases, err := aiperfPhases(b); err != nil {
		return nil, err
	} else if len(phases) > 0 {
		top.Field("phases", phases)
	}
	if opts.ArtifactDir != "" {
		top.Field("artifacts", map[string]string{"dir": opts.ArtifactDir})
	}
	if tokenizer != "" {
		top.Field("tokenizer", map[string]string{"name": tokenizer})
	}
	return top.Done()
}

// aiperfWarmupPhase describes a warmup phase run before the benchmark
// (extras.warmup_phase) as AIPerf's warmup phase.
func aiperfWarmupPhase(w *report.WarmupPhase) (json.RawMessage, error) {
	o := report.NewOrderedObject()
	o.Field("name", "warmup")
	s := w.Strategy
	rate := s.Type == report.StrategyConstant || s.Type == report.StrategyPoisson
	if rate {
		o.Field("type", "request_rate")
	} else {
		o.Field("type", "concurrency")
	}
	o.Field("exclude_from_results", true)
	if w.MaxRequests > 0 {
		o.Field("requests", w.MaxRequests)
	}
	if w.MaxSessions > 0 {
		o.Field("sessions", w.MaxSessions)
	}
	if w.MaxSeconds > 0 {
		o.Field("duration", w.MaxSeconds)
	}
	if w.GraceS != nil {
		o.Field("grace_period", *w.GraceS)
	}
	switch {
	case rate:
		if s.MaxConcurrency > 0 {
			o.Field("concurrency", s.MaxConcurrency)
		}
		o.Field("request_rate", report.Float(s.Rate))
		pattern := s.Type
		if w.Arrival != nil && w.Arrival.Process == "gamma" {
			pattern = "gamma"
			o.Field("arrival_pattern", pattern)
			o.Field("arrival_smoothness", w.Arrival.Burstiness)
		} else {
			o.Field("arrival_pattern", pattern)
		}
	case s.Streams > 0:
		o.Field("concurrency", s.Streams)
	}
	phaseCaps(o, w.Arrival)
	return o.Done()
}

// phaseCaps writes a phase's prefill cap and the ramps of its caps
// (report.Arrival) as AIPerf's phase keys; nothing without them.
func phaseCaps(o *report.OrderedObject, a *report.Arrival) {
	if a == nil {
		return
	}
	if a.CapRamp != nil {
		o.Field("concurrency_ramp", a.CapRamp.DurationS)
	}
	if a.MaxPrefill > 0 {
		o.Field("prefill_concurrency", a.MaxPrefill)
	}
	if a.PrefillRamp != nil {
		o.Field("prefill_ramp", a.PrefillRamp.DurationS)
	}
}

// aiperfPhases describes the benchmark's load as AIPerf's phases: a warmup
// phase when a warmup in requests or seconds applied, then "profiling".
func aiperfPhases(b *report.Benchmark) ([]json.RawMessage, error) {
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
		case kind == report.ConstraintMaxRequests && c.Count != nil:
			maxReq = int(*c.Count)
		case kind == report.ConstraintMaxDuration && c.Seconds != nil:
			maxSec = *c.Seconds
		}
	}
	var out []json.RawMessage
	phaseType, conc, rate := "concurrency", 0, 0.0
	switch s.Type {
	case report.StrategyConcurrent:
		conc = s.Streams
	case report.StrategySynchronous:
		conc = 1
	case report.StrategyThroughput:
		conc = s.MaxConcurrency
	case report.StrategyConstant, report.StrategyPoisson:
		phaseType, rate, conc = "request_rate", s.Rate, s.MaxConcurrency
	default:
		phaseType = s.Type
	}
	users := 0
	if g := b.Extras; g != nil && g.Arrival != nil && g.Arrival.Process == report.StrategyUserCentric {
		phaseType, users, conc = report.StrategyUserCentric, g.Arrival.Users, 0 // AIPerf's phase type user_centric
		if s.MaxConcurrency > 0 && s.MaxConcurrency < users {
			conc = s.MaxConcurrency // --concurrency's cap on the users mid-session
		}
	}
	warmReq := 0
	if ws, wr := b.Config.Warmup.Limits(maxReq, maxSec); ws != nil || wr != nil {
		w := report.NewOrderedObject()
		w.Field("name", "warmup")
		w.Field("type", phaseType)
		w.Field("exclude_from_results", true)
		if wr != nil {
			warmReq = *wr
			w.Field("requests", *wr)
		}
		if ws != nil {
			w.Field("duration", report.Float(*ws))
		}
		raw, err := w.Done()
		if err != nil {
			return nil, err
		}
		out = append(out, raw)
	} else if b.Extras != nil && b.Extras.WarmupPhase != nil {
		raw, err := aiperfWarmupPhase(b.Extras.WarmupPhase)
		if err != nil {
			return nil, err
		}
		out = append(out, raw)
	}
	p := report.NewOrderedObject()
	p.Field("name", "profiling")
	p.Field("type", phaseType)
	p.Field("exclude_from_results", false)
	if maxReq > 0 {
		p.Field("requests", max(maxReq-warmReq, 0))
	}
	if maxSec > 0 {
		p.Field("duration", report.Float(maxSec))
	}
	if conc > 0 {
		p.Field("concurrency", conc)
	}
	if users > 0 {
		p.Field("users", users)
		p.Field("request_rate", report.Float(rate))
		rate = 0
	}
	if rate > 0 {
		p.Field("request_rate", report.Float(rate))
		pattern := "constant"
		if s.Type == report.StrategyPoisson {
			pattern = "poisson"
		}
		if g := b.Extras; g != nil && g.Arrival != nil && g.Arrival.Process == "gamma" {
			p.Field("arrival_pattern", "gamma")
			p.Field("arrival_smoothness", g.Arrival.Burstiness)
		} else {
			p.Field("arrival_pattern", pattern)
		}
	}
	if b.Extras != nil {
		phaseCaps(p, b.Extras.Arrival)
	}
	raw, err := p.Done()
	if err != nil {
		return nil, err
	}
	return append(out, raw), nil
}
