package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/dataset"
	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/metadata"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/accum"
	"github.com/goodput-dev/goodput/scorecard"
	"github.com/goodput-dev/goodput/sweep"
	"github.com/goodput-dev/goodput/tokenize"
)

// benchOptions are the flags of `goodput benchmark`. Names follow GuideLLM's
// benchmark command (v0.4–v0.6) so existing Job command lines run with only
// the binary name changed.
type benchOptions struct {
	target, model, requestType, rateType, rate, data string
	maxSeconds                                       float64
	maxRequests, maxErrors                           int
	maxErrorRate                                     float64
	warmup, cooldown                                 string
	seed                                             int64
	outputPath, outputDir, outputs, runID            string
	force                                            bool
	sampleRequests                                   int
	maxConcurrency                                   int
	rampup                                           float64
	apiKey                                           string
	headers                                          []string
	extraBody, backendType, backendArgs              string
	noStream, noStreamUsage, noIgnoreEOS             bool
	maxTokensField                                   string
	caFile, rxTimestamps                             string
	insecure                                         bool
	connectTimeout, stallTimeout, requestTimeout     time.Duration
	labels                                           []string
	disableProgress, disableConsole                  bool
	logFormat                                        string
	progressInterval                                 time.Duration
	cpuProfile                                       string
	processor                                        string
	dataSamples                                      int
	dataShuffle                                      bool
	columnMapper, dataArgs, processorArgs            string
	timeScale                                        float64
	meta                                             metadataOptions
	sweep                                            sweepOptions
	tel                                              scorecardOptions
	shard                                            shardOptions
	getenv                                           func(string) string // nil: os.Getenv
}

func benchFlags(o *benchOptions, fs *pflag.FlagSet) {
	fs.StringVar(&o.target, "target", "", "server base URL, e.g. http://localhost:8000 (required)")
	fs.StringVar(&o.model, "model", "", "model name (default: the first id of GET /v1/models)")
	fs.StringVar(&o.requestType, "request-type", "chat_completions", "chat_completions or text_completions (alias --request-format: /v1/chat/completions or /v1/completions)")
	fs.StringVar(&o.requestType, "request-format", "chat_completions", "alias of --request-type")
	fs.StringVar(&o.rateType, "rate-type", "sweep", "synchronous, concurrent, throughput, constant (alias async), poisson, replay, sweep (GuideLLM's, its default) or knee (search for the SLO's knee) (alias --profile)")
	fs.StringVar(&o.rateType, "profile", "sweep", "alias of --rate-type")
	fs.StringVar(&o.rate, "rate", "", "comma list: streams for concurrent, req/s for constant/poisson, max concurrency for throughput, rounds for sweep (default 10), the first load for knee")
	fs.StringVar(&o.data, "data", "", "synthetic spec (prompt_tokens=256,output_tokens=128), a .jsonl/.json/.csv/.txt file, a ShareGPT file, a trace for --rate-type replay, or kind=...; required")
	fs.StringVar(&o.processor, "processor", "", "tokenizer: a tokenizer.json path, a directory holding one, a Hugging Face cache id, or o200k_base/cl100k_base (default: the model's, when found locally; never downloaded)")
	fs.StringVar(&o.processor, "tokenizer", "", "alias of --processor")
	fs.StringVar(&o.processorArgs, "processor-args", "", "GuideLLM's Hugging Face tokenizer arguments: not supported (goodput reads tokenizer.json itself)")
	fs.IntVar(&o.dataSamples, "data-samples", 0, "use at most this many requests from the data (0 or -1: all; a synthetic source then never ends)")
	fs.BoolVar(&o.dataShuffle, "data-shuffle", false, "shuffle the rows of a data file with --random-seed (alias --data-sampler shuffle)")
	fs.StringVar(&o.columnMapper, "data-column-mapper", "", `map data file columns, e.g. '{"text_column":"question","output_tokens_count_column":"max_len"}'`)
	fs.StringVar(&o.dataArgs, "data-args", "", "GuideLLM's Hugging Face dataset arguments: not supported (give a local file)")
	fs.Float64Var(&o.timeScale, "time-scale", 1, "replay: multiply the trace's time offsets (0.5 replays twice as fast)")
	fs.Float64Var(&o.maxSeconds, "max-seconds", 0, "stop each benchmark after this many seconds")
	fs.IntVar(&o.maxRequests, "max-requests", 0, "stop each benchmark after this many requests")
	fs.IntVar(&o.maxErrors, "max-errors", 0, "stop each benchmark after this many errored requests")
	fs.Float64Var(&o.maxErrorRate, "max-error-rate", 0, "stop when the errored share of the last 30 requests reaches this fraction (0 < x < 1)")
	fs.StringVar(&o.warmup, "warmup", "", "excluded from metrics: <1 a fraction of the limit, ≥1 seconds, 100r requests, 30s, 10% (GuideLLM's forms)")
	fs.StringVar(&o.warmup, "warmup-percent", "", "alias of --warmup")
	fs.StringVar(&o.cooldown, "cooldown", "", "excluded from metrics at the end; same forms as --warmup")
	fs.StringVar(&o.cooldown, "cooldown-percent", "", "alias of --cooldown")
	fs.Int64Var(&o.seed, "random-seed", 42, "seed for synthetic data and poisson schedules")
	fs.StringVar(&o.outputPath, "output-path", "", "report file (e.g. /results/run.json); other outputs go beside it. A directory is used as --output-dir")
	fs.StringVar(&o.outputDir, "output-dir", "results", "runs are written to <output-dir>/<run-id>/")
	fs.StringVar(&o.outputs, "outputs", "json,csv,jsonl,html,scorecard,console", "comma list of json (GuideLLM v2 report), csv, jsonl (every request), html (a self-contained report.html), scorecard (cost, energy, latency rows), aiperf (AIPerf's profile_export_aiperf.json and .csv per benchmark), console")
	fs.StringVar(&o.runID, "run-id", "", "run id (default: UTC timestamp plus a short config hash); an existing run id is refused without --force")
	fs.BoolVar(&o.force, "force", false, "overwrite an existing run directory or output file")
	fs.IntVar(&o.sampleRequests, "sample-requests", accum.DefaultSampleSize, "request records kept per status in the JSON report (all are in the JSON Lines file) (alias --output-sampling)")
	fs.IntVar(&o.sampleRequests, "output-sampling", accum.DefaultSampleSize, "alias of --sample-requests")
	fs.IntVar(&o.maxConcurrency, "max-concurrency", 0, fmt.Sprintf("in-flight cap for constant/poisson (default %d)", loadgen.DefaultMaxConcurrency))
	fs.Float64Var(&o.rampup, "rampup", 0, "seconds over which concurrent streams start / a constant rate ramps up")
	fs.StringVar(&o.apiKey, "api-key", "", "API key sent as Bearer (default $OPENAI_API_KEY); never logged")
	fs.StringArrayVar(&o.headers, "header", nil, "extra request header 'Name: value' (repeatable)")
	fs.StringVar(&o.extraBody, "extra-body", "", `JSON object merged into every request body, e.g. '{"temperature":0}'`)
	fs.StringVar(&o.backendType, "backend-type", "openai_http", "only openai_http is supported (GuideLLM compatibility)")
	fs.StringVar(&o.backendType, "backend", "openai_http", "alias of --backend-type")
	fs.StringVar(&o.backendArgs, "backend-args", "", `GuideLLM backend JSON: {"api_key","headers","extra_body","verify","timeout","max_tokens"}`)
	fs.StringVar(&o.backendArgs, "backend-kwargs", "", "alias of --backend-args")
	fs.BoolVar(&o.noStream, "no-stream", false, "send stream:false (no TTFT/ITL can be measured)")
	fs.BoolVar(&o.noStreamUsage, "no-stream-usage", false, "omit stream_options (for servers that reject include_usage/continuous_usage_stats)")
	fs.BoolVar(&o.noIgnoreEOS, "no-ignore-eos", false, "never send ignore_eos (output lengths then depend on the model)")
	fs.StringVar(&o.maxTokensField, "max-tokens-field", "", "max_tokens or max_completion_tokens (default: max_completion_tokens for chat, max_tokens for completions)")
	fs.StringVar(&o.rxTimestamps, "rx-timestamps", "kernel", "when a response byte arrived: kernel (the kernel's receive timestamp, so the client's own scheduling delays stay out of TTFT and ITL; Linux, HTTP/1.1, else the read time) or user (the time the read returned, as other load generators measure)")
	fs.StringVar(&o.caFile, "ca-file", "", "PEM file of extra CA certificates for https targets")
	fs.BoolVar(&o.insecure, "insecure", false, "skip TLS certificate verification")
	fs.DurationVar(&o.connectTimeout, "connect-timeout", 10*time.Second, "dial and TLS handshake timeout")
	fs.DurationVar(&o.stallTimeout, "stall-timeout", 120*time.Second, "fail a request when no chunk (SSE event) arrives for this long, keep-alive comments (: ping) not counting; non-streaming: no byte (0 disables)")
	fs.DurationVar(&o.requestTimeout, "request-timeout", 30*time.Minute, "fail a request that takes longer (0 disables)")
	fs.StringArrayVar(&o.labels, "label", nil, "free label k=v recorded in the report (repeatable)")
	fs.BoolVar(&o.disableProgress, "disable-progress", false, "no live progress display (alias --disable-console-interactive)")
	fs.BoolVar(&o.disableProgress, "disable-console-interactive", false, "alias of --disable-progress")
	fs.BoolVar(&o.disableConsole, "disable-console-outputs", false, "print no summary table (alias --disable-console)")
	fs.BoolVar(&o.disableConsole, "disable-console", false, "alias of --disable-console-outputs")
	fs.StringVar(&o.logFormat, "log-format", "console", "progress log lines when not on a terminal: console or json")
	fs.DurationVar(&o.progressInterval, "progress-interval", 5*time.Second, "interval of progress log lines")
	fs.StringVar(&o.cpuProfile, "cpu-profile", "", "write a Go CPU profile of goodput itself to this file (to inspect the client's own cost)")
	fs.Var(&samplerValue{&o.dataShuffle}, "data-sampler", "GuideLLM's data sampler: shuffle")
	metadataFlags(&o.meta, fs)
	addSweepFlags(fs, &o.sweep)
	scorecardFlags(&o.tel, fs)
	shardFlags(&o.shard, fs)
	for _, alias := range []string{"request-format", "profile", "warmup-percent", "cooldown-percent", "backend", "backend-kwargs", "disable-console-interactive", "disable-console", "tokenizer", "data-sampler", "output-sampling"} {
		_ = fs.MarkHidden(alias)
	}
}

// plan is a validated benchmark invocation.
type plan struct {
	client      loadgen.ClientConfig
	planner     sweep.Planner
	profile     report.Profile
	cons        loadgen.Constraints
	data        *dataset.Dataset // opened without a tokenizer, to validate it
	replay      bool
	tokExplicit *tokenize.Tokenizer // --processor, resolved
	metaLabels  []metadata.Label
	warm        report.TransientPhase
	cool        report.TransientPhase
	labels      map[string]string
	outputs     map[string]bool
	extraBody   map[string]any
	skipReady   bool // --backend-args validate_backend:false
	telemetry   scorecard.Config
	shard       *shardSpec       // --shard-index/--shard-count/--start-at
	shardPlan   *sweep.ShardPlan // set when the run is one shard of several
}

func runBenchmark(ctx context.Context, e *env, args []string) error {
	var o benchOptions
	fs := newFlagSet("benchmark", "benchmark --target URL --data SPEC [flags]", e.stdout)
	benchFlags(&o, fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q (see 'goodput benchmark --help')", fs.Arg(0))
	}
	if o.apiKey == "" {
		o.apiKey = e.getenv("OPENAI_API_KEY")
	}
	o.getenv = e.getenv
	p, err := o.validateAll(fs)
	if err != nil {
		return err
	}
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			return usagef("--cpu-profile: %v", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("--cpu-profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	return execute(ctx, e, &o, p)
}

// validateAll checks every flag, the SLO, telemetry and shard flags
// included, and builds the plan. fs tells which flags were given; it is
// nil for commands that translate other flags (goodput profile).
func (o *benchOptions) validateAll(fs *pflag.FlagSet) (*plan, error) {
	if err := o.sweep.validate(fs, o.rateType); err != nil {
		return nil, err
	}
	p, err := o.validate()
	if err != nil {
		return nil, err
	}
	if p.telemetry, err = o.tel.config(fs); err != nil {
		return nil, err
	}
	getenv := o.getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if fs != nil && fs.Changed("shard-index") && o.shard.index < 0 {
		return nil, usagef("--shard-index %d: want a shard index ≥ 0", o.shard.index)
	}
	if fs != nil && fs.Changed("shard-count") && o.shard.count < 1 {
		return nil, usagef("--shard-count %d: want a number of shards ≥ 1", o.shard.count)
	}
	if p.shard, err = o.shard.resolve(getenv, time.Now()); err != nil {
		return nil, err
	}
	if p.shard.sharded {
		if p.shardPlan, err = p.shard.plan(o, p); err != nil {
			return nil, err
		}
		if c := p.telemetry; len(c.DCGMURLs) > 0 || c.NVML || c.PrometheusURL != "" || c.OpenCostURL != "" || c.GPUCostPerHour > 0 || c.CostPerHour > 0 {
			return nil, usagef("energy and cost flags measure the whole deployment: give them to a single-pod run, not to one shard of %d", p.shard.shard.Count)
		}
		delete(p.outputs, "scorecard") // a shard's own tokens are only its share
	}
	return p, nil
}

// validate checks the benchmark's own flags and builds the plan. Errors are usage errors
// naming the flag and the accepted form.
func (o *benchOptions) validate() (*plan, error) {
	p := &plan{labels: map[string]string{}, outputs: map[string]bool{}}
	if o.target == "" {
		return nil, usagef("--target is required, e.g. --target http://localhost:8000")
	}
	if _, err := loadgen.NormalizeTarget(o.target); err != nil {
		return nil, usagef("--target: %v", err)
	}
	if o.backendType != "openai_http" {
		return nil, usagef("--backend-type %q: only openai_http is supported", o.backendType)
	}
	ep, err := parseRequestType(o.requestType)
	if err != nil {
		return nil, err
	}
	if o.data == "" {
		return nil, usagef("--data is required, e.g. --data prompt_tokens=256,output_tokens=128")
	}
	if o.processorArgs != "" {
		return nil, usagef("--processor-args: not supported: goodput reads tokenizer.json itself (give --processor PATH)")
	}
	if o.dataArgs != "" {
		return nil, usagef("--data-args: not supported: goodput reads local files only (give --data FILE)")
	}
	if o.timeScale <= 0 || math.IsNaN(o.timeScale) || math.IsInf(o.timeScale, 0) {
		return nil, usagef("--time-scale %v: want a positive factor, e.g. 0.5", o.timeScale)
	}
	p.replay = o.rateType == string(loadgen.Replay)
	if o.processor != "" {
		if p.tokExplicit, err = tokenize.Resolve(o.processor, tokenize.ResolveOptions{Getenv: o.getenv}); err != nil {
			return nil, usagef("%s", oneLineErr(err))
		}
	}
	switch {
	case o.dataSamples == -1: // GuideLLM's "all"
		o.dataSamples = 0
	case o.dataSamples < 0:
		return nil, usagef("--data-samples %d: want a count ≥ 1 (0 or -1: all)", o.dataSamples)
	}
	if p.data, err = dataset.Open(o.data, o.dataOptions(p.tokExplicit, p.replay)); err != nil {
		return nil, usagef("--data: %s", oneLineErr(err))
	}
	if o.maxSeconds < 0 || math.IsNaN(o.maxSeconds) || math.IsInf(o.maxSeconds, 0) {
		return nil, usagef("--max-seconds %v: want a positive number of seconds", o.maxSeconds)
	}
	if o.maxRequests < 0 || o.maxErrors < 0 {
		return nil, usagef("--max-requests and --max-errors must be positive counts")
	}
	if o.maxErrorRate < 0 || o.maxErrorRate >= 1 {
		return nil, usagef("--max-error-rate %v: want a fraction 0 < x < 1, e.g. 0.05", o.maxErrorRate)
	}
	if _, finite := p.data.Source.(interface{ Len() int }); o.maxSeconds == 0 && o.maxRequests == 0 && !finite {
		return nil, usagef("set --max-seconds or --max-requests (or --data-samples): a benchmark needs an end")
	}
	p.cons = loadgen.Constraints{
		MaxDuration: time.Duration(o.maxSeconds * float64(time.Second)), MaxRequests: o.maxRequests,
		MaxErrors: o.maxErrors, MaxErrorRate: o.maxErrorRate,
	}
	if p.warm, err = report.ParseTransientPhase(o.warmup); err != nil {
		return nil, usagef("--warmup: %v", err)
	}
	if p.cool, err = report.ParseTransientPhase(o.cooldown); err != nil {
		return nil, usagef("--cooldown: %v", err)
	}
	for _, ph := range []struct {
		flag, val string
		t         report.TransientPhase
	}{{"--warmup", o.warmup, p.warm}, {"--cooldown", o.cooldown, p.cool}} {
		if s, r := ph.t.Limits(o.maxRequests, o.maxSeconds); !ph.t.IsZero() && s == nil && r == nil {
			return nil, usagef("%s %s would not apply: a phase in requests needs --max-requests and one in seconds --max-seconds (GuideLLM's rule); give the limit, or the phase in the other unit", ph.flag, ph.val)
		}
	}
	if o.sampleRequests < 0 {
		return nil, usagef("--sample-requests %d: want a count ≥ 0", o.sampleRequests)
	}
	if o.maxConcurrency < 0 {
		return nil, usagef("--max-concurrency %d: want a positive count", o.maxConcurrency)
	}
	if o.rampup < 0 || math.IsNaN(o.rampup) {
		return nil, usagef("--rampup %v: want seconds ≥ 0", o.rampup)
	}
	for _, l := range o.labels {
		k, v, ok := strings.Cut(l, "=")
		if !ok || k == "" {
			return nil, usagef("--label %q: want key=value", l)
		}
		p.labels[k] = v
	}
	if p.metaLabels, err = o.meta.metadataLabels(o.labels); err != nil {
		return nil, err
	}
	for _, out := range strings.Split(o.outputs, ",") {
		out = strings.TrimSpace(out)
		switch out {
		case "json", "csv", "jsonl", "console", "scorecard", "html", "aiperf":
			p.outputs[out] = true
		case "":
		default:
			return nil, usagef("--outputs: unknown output %q (want a comma list of json, csv, jsonl, html, scorecard, aiperf, console)", out)
		}
	}
	if len(p.outputs) == 0 {
		return nil, usagef("--outputs %q: want a comma list of json, csv, jsonl, html, scorecard, aiperf, console", o.outputs)
	}
	if o.disableConsole {
		delete(p.outputs, "console")
	}
	if err := checkOutputPath(o.outputPath); err != nil {
		return nil, err
	}
	if o.rxTimestamps != "kernel" && o.rxTimestamps != "user" {
		return nil, usagef("--rx-timestamps %q: want kernel or user", o.rxTimestamps)
	}
	if o.logFormat != "console" && o.logFormat != "json" {
		return nil, usagef("--log-format %q: want console or json", o.logFormat)
	}
	if o.progressInterval <= 0 {
		return nil, usagef("--progress-interval %v: want a positive duration", o.progressInterval)
	}
	if o.runID != "" && !validRunID(o.runID) {
		return nil, usagef("--run-id %q: use letters, digits, '.', '_' and '-' only", o.runID)
	}
	p.client = loadgen.ClientConfig{
		Target: o.target, Endpoint: ep, Model: o.model, APIKey: o.apiKey, ExtraBody: o.extraBody,
		NoStream: o.noStream, NoStreamUsage: o.noStreamUsage, NoIgnoreEOS: o.noIgnoreEOS,
		MaxTokensField: o.maxTokensField, CAFile: o.caFile, Insecure: o.insecure,
		ConnectTimeout: o.connectTimeout, StallTimeout: negIfZero(o.stallTimeout), RequestTimeout: negIfZero(o.requestTimeout),
		UserTimestamps: o.rxTimestamps == "user",
	}
	if o.connectTimeout <= 0 {
		return nil, usagef("--connect-timeout %v: want a positive duration", o.connectTimeout)
	}
	if o.stallTimeout < 0 {
		return nil, usagef("--stall-timeout %v: want a duration ≥ 0 (0 disables)", o.stallTimeout)
	}
	if o.requestTimeout < 0 {
		return nil, usagef("--request-timeout %v: want a duration ≥ 0 (0 disables)", o.requestTimeout)
	}
	if o.maxTokensField != "" && o.maxTokensField != "max_tokens" && o.maxTokensField != "max_completion_tokens" {
		return nil, usagef("--max-tokens-field %q: want max_tokens or max_completion_tokens", o.maxTokensField)
	}
	if len(o.headers) > 0 {
		p.client.Headers = map[string]string{}
	}
	for _, h := range o.headers {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usagef("--header %q: want 'Name: value'", h)
		}
		p.client.Headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	if o.extraBody != "" {
		if err := json.Unmarshal([]byte(o.extraBody), &p.extraBody); err != nil {
			return nil, usagef(`--extra-body: want a JSON object, e.g. '{"temperature":0}'`)
		}
	}
	if err := applyBackendArgs(o.backendArgs, p); err != nil {
		return nil, err
	}
	if o.caFile != "" {
		if _, err := os.Stat(o.caFile); err != nil {
			return nil, usagef("--ca-file: %v", err)
		}
	}
	if err := o.planRates(p); err != nil {
		return nil, err
	}
	return p, nil
}

// planRates turns --rate-type and --rate into the list of strategies.
func (o *benchOptions) planRates(p *plan) error {
	rates, err := parseRates(o.rate)
	if err != nil {
		return err
	}
	rampup := time.Duration(o.rampup * float64(time.Second))
	kind := o.rateType
	if kind == "async" {
		kind = "constant"
	}
	if kind == "" {
		return usagef("--rate-type is required: synchronous, concurrent, throughput, constant, poisson, replay, sweep or knee")
	}
	if isSweepRateType(kind) {
		var err error
		p.planner, p.profile, err = o.sweep.planner(kind, rates, plannerBase{
			maxConcurrency: o.maxConcurrency, rampup: rampup, seed: uint64(o.seed), warmup: p.warm, cooldown: p.cool})
		return err
	}
	p.profile = report.Profile{Kind: kind, MaxConcurrency: o.maxConcurrency, RampupDuration: o.rampup, Warmup: p.warm, Cooldown: p.cool}
	var list sweep.List
	switch loadgen.Kind(kind) {
	case loadgen.Synchronous:
		if len(rates) > 0 {
			return usagef("--rate is not used with --rate-type synchronous")
		}
		list = append(list, loadgen.Strategy{Kind: loadgen.Synchronous})
	case loadgen.Concurrent:
		if len(rates) == 0 {
			return usagef("--rate-type concurrent needs --rate with the number of streams, e.g. --rate 4,8,16,32")
		}
		for _, r := range rates {
			if r < 1 || r != math.Trunc(r) {
				return usagef("--rate %v: concurrent streams must be whole numbers ≥ 1", r)
			}
			list = append(list, loadgen.Strategy{Kind: loadgen.Concurrent, Streams: int(r), Rampup: rampup})
			p.profile.Streams = append(p.profile.Streams, int(r))
		}
	case loadgen.Throughput:
		n := o.maxConcurrency
		if len(rates) > 1 {
			return usagef("--rate-type throughput takes one --rate (its max concurrency)")
		}
		if len(rates) == 1 {
			if rates[0] < 1 || rates[0] != math.Trunc(rates[0]) {
				return usagef("--rate %v: throughput max concurrency must be a whole number ≥ 1", rates[0])
			}
			n = int(rates[0])
		}
		if n == 0 {
			n = loadgen.DefaultMaxConcurrency
		}
		p.profile.MaxConcurrency = n
		list = append(list, loadgen.Strategy{Kind: loadgen.Throughput, Streams: n, Rampup: rampup})
	case loadgen.Constant, loadgen.Poisson:
		if len(rates) == 0 {
			return usagef("--rate-type %s needs --rate in requests per second, e.g. --rate 2,4,8", kind)
		}
		for _, r := range rates {
			if r <= 0 {
				return usagef("--rate %v: requests per second must be > 0", r)
			}
			s := loadgen.Strategy{Kind: loadgen.Kind(kind), Rate: r, MaxConcurrency: o.maxConcurrency, Seed: uint64(o.seed)}
			if kind == "constant" {
				s.Rampup = rampup
			}
			list = append(list, s)
		}
		p.profile.Rate = rates
	case loadgen.Replay:
		if len(rates) > 0 {
			return usagef("--rate is not used with --rate-type replay (the trace gives the times; see --time-scale)")
		}
		if len(p.data.Schedule) == 0 {
			return usagef("--rate-type replay needs a trace file in --data (timestamp, input_length, output_length)")
		}
		p.profile.TimeScale = o.timeScale
		list = append(list, loadgen.Strategy{Kind: loadgen.Replay, Schedule: p.data.Schedule, MaxConcurrency: o.maxConcurrency})
	default:
		return usagef("--rate-type %q: want synchronous, concurrent, throughput, constant (async), poisson, replay, sweep or knee", o.rateType)
	}
	p.planner = o.sweep.stopOn(list)
	return nil
}

func parseRequestType(s string) (loadgen.Endpoint, error) {
	switch s {
	case "chat_completions", "chat", "/v1/chat/completions":
		return loadgen.EndpointChat, nil
	case "text_completions", "completions", "/v1/completions":
		return loadgen.EndpointCompletions, nil
	}
	return "", usagef("--request-type %q: want chat_completions or text_completions", s)
}

func parseRates(s string) ([]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []float64
	for _, part := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, usagef("--rate %q: want a comma list of numbers, e.g. 4,8,16", s)
		}
		out = append(out, v)
	}
	return out, nil
}

// applyBackendArgs maps GuideLLM's --backend-args JSON onto the plan.
func applyBackendArgs(s string, p *plan) error {
	if s == "" {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return usagef(`--backend-args: want a JSON object, e.g. '{"extra_body":{"temperature":0}}'`)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := m[k]
		bad := func(form string) error { return usagef("--backend-args: key %q: want %s", k, form) }
		switch k {
		case "api_key":
			if json.Unmarshal(v, &p.client.APIKey) != nil {
				return bad("a string")
			}
		case "headers":
			var h map[string]string
			if json.Unmarshal(v, &h) != nil {
				return bad(`an object of strings, e.g. {"X-Team":"a"}`)
			}
			if p.client.Headers == nil {
				p.client.Headers = map[string]string{}
			}
			for hk, hv := range h {
				p.client.Headers[hk] = hv
			}
		case "extra_body", "body":
			if json.Unmarshal(v, &p.extraBody) != nil || p.extraBody == nil {
				return bad("a JSON object")
			}
			p.client.ExtraBody = string(v)
		case "verify":
			var verify bool
			if json.Unmarshal(v, &verify) != nil {
				return bad("true or false")
			}
			p.client.Insecure = p.client.Insecure || !verify
		case "timeout":
			var sec float64
			if json.Unmarshal(v, &sec) != nil || sec <= 0 {
				return bad("seconds > 0")
			}
			p.client.RequestTimeout = time.Duration(sec * float64(time.Second))
		case "timeout_connect":
			var sec float64
			if json.Unmarshal(v, &sec) != nil || sec <= 0 {
				return bad("seconds > 0")
			}
			p.client.ConnectTimeout = time.Duration(sec * float64(time.Second))
		case "http2", "follow_redirects", "validate_backend":
			var b bool
			if json.Unmarshal(v, &b) != nil {
				return bad("true or false")
			}
			switch k {
			case "http2":
				p.client.DisableHTTP2 = !b
			case "follow_redirects":
				p.client.FollowRedirects = b
			case "validate_backend":
				p.skipReady = !b
			}
		default:
			return usagef("--backend-args: unsupported key %q (supported: api_key, headers, extra_body, verify, timeout, timeout_connect, http2, follow_redirects, validate_backend)", k)
		}
	}
	return nil
}

func negIfZero(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

func validRunID(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return s != "" && s != "." && s != ".."
}

var errNoBenchmarks = errors.New("no benchmark ran")

// dataOptions are the dataset options of the flags, with tokenizer tok.
func (o *benchOptions) dataOptions(tok *tokenize.Tokenizer, replay bool) dataset.Options {
	return dataset.Options{
		Tokenizer: tok, Seed: uint64(o.seed), Samples: o.dataSamples, Shuffle: o.dataShuffle,
		ColumnMapper: o.columnMapper, Trace: replay, TimeScale: o.timeScale,
	}
}

// samplerValue is GuideLLM's --data-sampler: only "shuffle" exists.
type samplerValue struct{ shuffle *bool }

func (v *samplerValue) String() string { return "" }
func (v *samplerValue) Type() string   { return "string" }
func (v *samplerValue) Set(s string) error {
	if s != "shuffle" {
		return fmt.Errorf("want shuffle")
	}
	*v.shuffle = true
	return nil
}

// oneLineErr flattens an error to one line.
func oneLineErr(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }
