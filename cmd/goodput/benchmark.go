package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"math/rand/v2"
	"net"
	"os"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/dataset"
	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/metadata"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/accum"
	"github.com/goodput-dev/goodput/report/stats"
	"github.com/goodput-dev/goodput/reqtype"
	"github.com/goodput-dev/goodput/run"
	"github.com/goodput-dev/goodput/scorecard"
	"github.com/goodput-dev/goodput/scorecard/measure"
	"github.com/goodput-dev/goodput/slo"
	"github.com/goodput-dev/goodput/sweep"
	"github.com/goodput-dev/goodput/telemetry"
	"github.com/goodput-dev/goodput/tokenize"
)

// benchOptions are the flags of `goodput benchmark`. Names follow GuideLLM's
// benchmark command (v0.4–v0.6) so existing Job command lines run with only
// the binary name changed.
type benchOptions struct {
	target, model, requestType, rateType, rate, data string
	requestPath                                      string
	batchSize                                        int
	modelSelection, targetSelection                  string
	maxSeconds                                       float64
	maxRequests, maxErrors                           int
	maxErrorRate                                     float64
	warmup, cooldown                                 string
	seed                                             int64
	outputPath, outputDir, outputs, runID            string
	force                                            bool
	sampleRequests                                   int
	confidence                                       float64       // --confidence
	drainEnd                                         time.Duration // --drain
	maxConcurrency                                   int
	users                                            int // --rate-type user_centric
	rampup                                           float64
	localAddrs                                       []string
	apiKey                                           string
	headers                                          []string
	sessionHeader                                    string // conversations: a header carrying each session's id
	extraBody, backendType, backendArgs              string
	noStream, noStreamUsage, noIgnoreEOS             bool
	maxTokensField                                   string
	caFile, rxTimestamps, httpClient                 string
	insecure                                         bool
	connectTimeout, stallTimeout, requestTimeout     time.Duration
	labels                                           []string
	disableProgress, disableConsole                  bool
	wide                                             bool // --wide
	logFormat                                        string
	progressInterval                                 time.Duration
	cpuProfile                                       string
	processor                                        string
	dataSamples                                      int
	dataShuffle                                      bool
	columnMapper, dataArgs, processorArgs            string
	timeScale                                        float64
	templateOverhead, mismatchWarn, promptSalt       string
	meta                                             metadataOptions
	sweep                                            sweepOptions
	arrival                                          arrivalOptions
	tel                                              scorecardOptions
	shard                                            shardOptions
	drain                                            drainOptions
	quality                                          qualityOptions
	failures                                         failureOptions
	getenv                                           func(string) string // nil: os.Getenv

	// GuideLLM v0.7's options and the configuration file (guidellm07.go,
	// config.go).
	errorRateWindow int
	outputFiles     map[string]string      // --output kind=K,path=P (K other than json)
	namedOutputs    []string               // every path --output kind=K,path=P named
	rates           typed[[]float64]       // --rate as the v0.7 options built it
	outputKinds     typed[map[string]bool] // --outputs as the v0.7 options built it
	v07             *v07State
	v06             v06Options // GuideLLM v0.6's flat flags of another form (guidellm06.go)
	configFile      string
	printConfig     bool
	override        []string
}

func benchFlags(o *benchOptions, fs *pflag.FlagSet) {
	fs.StringVar(&o.target, "target", "", "server base URL, e.g. http://localhost:8000, or a comma list of replicas requests are spread over (see --target-selection) (required)")
	fs.StringVar(&o.model, "model", "", "model name, or a comma list of models each request picks one of (weights optional: a:0.6,b:0.4; see --model-selection-strategy) (default: the first id of GET /v1/models)")
	fs.StringVar(&o.requestType, "request-type", "chat_completions", requestTypeHelp())
	fs.StringVar(&o.requestType, "request-format", "chat_completions", "alias of --request-type")
	fs.StringVar(&o.requestPath, "request-path", "", "send the requests to this path under --target, whose own path prefix is kept (default: the request type's, e.g. /v1/chat/completions; GuideLLM's api_routes)")
	fs.StringVar(&o.modelSelection, "model-selection-strategy", "", "with several --model values (a,b or weighted a:0.6,b:0.4): round_robin (the default), random or weighted (the default with weights) (AIPerf's --model-selection-strategy)")
	fs.StringVar(&o.targetSelection, "target-selection", "", "with several --target URLs: round_robin (the default) or least_in_flight (the replica with the fewest requests in flight)")
	fs.IntVar(&o.batchSize, "batch-size", 1, "inputs per embeddings request, or documents per rerank/score request (each taken from the data's prompts; a rerank's query is the prompt before them) (AIPerf's --batch-size)")
	fs.StringVar(&o.rateType, "rate-type", "sweep", "synchronous, concurrent, throughput, constant (alias async), poisson, replay, sweep (GuideLLM's, its default), knee (search for the SLO's knee) or user_centric (AIPerf's user-centric rate, with --users) (--profile NAME too; GuideLLM v0.7: --profile kind=…)")
	fs.StringVar(&o.rate, "rate", "", "comma list: streams for concurrent, req/s for constant/poisson/user_centric, max concurrency for throughput, rounds for sweep (default 10), the first load for knee")
	fs.IntVar(&o.users, "users", 0, "--rate-type user_centric: the number of users (AIPerf's --num-users); each sends its turns users/rate seconds apart, the users staggered 1/rate apart")
	fs.StringVar(&o.data, "data", "", "synthetic spec (prompt_tokens=256,output_tokens=128), a .jsonl/.json/.csv/.txt/.parquet/.arrow file, a local Hugging Face dataset directory, a ShareGPT file, a trace for --rate-type replay (BurstGPT, Azure, Mooncake), or kind=...; required")
	fs.StringVar(&o.processor, "processor", "", "tokenizer: a tokenizer.json path, a directory holding one, a .gguf model file, a Hugging Face cache id, o200k_base/cl100k_base, or server (the target's /tokenize) (default: the model's, when found locally; never downloaded)")
	fs.StringVar(&o.processorArgs, "processor-args", "", "GuideLLM's Hugging Face tokenizer arguments: not supported (goodput reads tokenizer.json itself)")
	fs.IntVar(&o.dataSamples, "data-samples", 0, "use at most this many requests from the data (0 or -1: all; a synthetic source then never ends)")
	fs.BoolVar(&o.dataShuffle, "data-shuffle", false, "shuffle the rows of a data file with --random-seed (alias --data-sampler shuffle)")
	fs.StringVar(&o.dataArgs, "data-args", "", `GuideLLM's dataset arguments for a local --data: {"split":"test","name":"default"} (a dataset directory's split and configuration; a file's only split is train)`)
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
	fs.StringVar(&o.outputs, "outputs", "json,csv,jsonl,html,scorecard,console", run.OutputsHelp())
	fs.StringVar(&o.runID, "run-id", "", "run id (default: UTC timestamp plus a short config hash); an existing run id is refused without --force")
	fs.BoolVar(&o.force, "force", false, "overwrite an existing run directory or output file")
	fs.IntVar(&o.sampleRequests, "sample-requests", accum.DefaultSampleSize, "request records kept per status in the JSON report (0: all; all are in the JSON Lines file) (alias --output-sampling)")
	fs.IntVar(&o.sampleRequests, "output-sampling", accum.DefaultSampleSize, "alias of --sample-requests")
	fs.DurationVar(&o.drainEnd, "drain", 0, "at --max-seconds, stop sending and let the requests in flight finish for up to this long (e.g. 30s) instead of cancelling them; their latencies then enter the figures (default 0: cancel them, and the report treats them as censored)")
	fs.Float64Var(&o.confidence, "confidence", stats.DefaultConfidence, "confidence of every interval the report gives (means, percentiles) and of the knee search's and the SLO's decisions, in (0, 1)")
	fs.IntVar(&o.maxConcurrency, "max-concurrency", 0, fmt.Sprintf("in-flight cap for constant/poisson (default %d)", loadgen.DefaultMaxConcurrency))
	fs.Float64Var(&o.rampup, "rampup", 0, "seconds over which concurrent streams start / a constant rate ramps up")
	fs.StringVar(&o.apiKey, "api-key", "", "API key sent as Bearer, or as x-api-key to messages (default $OPENAI_API_KEY; $ANTHROPIC_API_KEY first for messages); never logged")
	fs.StringArrayVar(&o.headers, "header", nil, "extra request header 'Name: value' (repeatable)")
	fs.StringVar(&o.sessionHeader, "session-header", "", "conversations: send each session's stable id in this header (e.g. x-session-id), for session-affinity routers")
	fs.StringVar(&o.extraBody, "extra-body", "", `JSON object merged into every request body, e.g. '{"temperature":0}'`)
	fs.StringVar(&o.backendType, "backend-type", "openai_http", "only openai_http is supported (GuideLLM compatibility)")
	fs.StringVar(&o.backendArgs, "backend-args", "", `GuideLLM backend JSON: {"api_key","headers","extra_body","verify","timeout","max_tokens"}`)
	fs.StringVar(&o.backendArgs, "backend-kwargs", "", "alias of --backend-args")
	fs.BoolVar(&o.noStream, "no-stream", false, "send stream:false (no TTFT/ITL can be measured)")
	fs.BoolVar(&o.noStreamUsage, "no-stream-usage", false, "omit stream_options (for servers that reject include_usage/continuous_usage_stats)")
	fs.BoolVar(&o.noIgnoreEOS, "no-ignore-eos", false, "never send ignore_eos (output lengths then depend on the model)")
	fs.StringVar(&o.maxTokensField, "max-tokens-field", "", "send the output limit only as max_tokens or only as max_completion_tokens (default: both for chat, which Ollama and OpenAI reasoning models each need one of; max_tokens for completions)")
	fs.StringSliceVar(&o.localAddrs, "local-addrs", nil, "source IP addresses new connections take in turn (comma-separated or repeated), e.g. 127.0.0.2,127.0.0.3: one source IP opens at most about 28,000 connections to one server address and port")
	fs.StringVar(&o.rxTimestamps, "rx-timestamps", "kernel", "when a response byte arrived: kernel (the kernel's receive timestamp, so the client's own scheduling delays stay out of TTFT and ITL; Linux, HTTP/1.1, else the read time) or user (the time the read returned, as other load generators measure)")
	fs.StringVar(&o.httpClient, "http-client", loadgen.HTTPClientAuto, "what sends the requests: goodput (goodput's own HTTP/1.1 client: no goroutine per connection, small buffers; plain HTTP and TLS), net/http (Go's: HTTP/2, proxies) or auto (goodput's for http:// targets and for https:// with HTTP/2 off, when no proxy is set; net/http otherwise)")
	fs.StringVar(&o.caFile, "ca-file", "", "PEM file of extra CA certificates for https targets")
	fs.BoolVar(&o.insecure, "insecure", false, "skip TLS certificate verification")
	fs.DurationVar(&o.connectTimeout, "connect-timeout", 10*time.Second, "dial and TLS handshake timeout")
	fs.DurationVar(&o.stallTimeout, "stall-timeout", 120*time.Second, "fail a request when no chunk (SSE event) arrives for this long, keep-alive comments (: ping) not counting; non-streaming: no byte (0 disables)")
	fs.DurationVar(&o.requestTimeout, "request-timeout", 30*time.Minute, "fail a request that takes longer (0 disables)")
	fs.StringArrayVarP(&o.labels, "label", "l", nil, "free label k=v recorded in the report (repeatable)")
	fs.BoolVar(&o.disableProgress, "disable-progress", false, "no live progress display (alias --disable-console-interactive)")
	fs.BoolVar(&o.disableProgress, "disable-console-interactive", false, "alias of --disable-progress")
	fs.BoolVar(&o.disableConsole, "disable-console-outputs", false, "print no summary table (alias --disable-console)")
	fs.BoolVar(&o.disableConsole, "disable-console", false, "alias of --disable-console-outputs")
	fs.StringVar(&o.logFormat, "log-format", "console", "progress log lines when not on a terminal: console or json")
	fs.DurationVar(&o.progressInterval, "progress-interval", 5*time.Second, "interval of progress log lines")
	fs.StringVar(&o.cpuProfile, "cpu-profile", "", "write a Go CPU profile of goodput itself to this file (to inspect the client's own cost)")
	fs.Var(&samplerValue{&o.dataShuffle}, "data-sampler", "GuideLLM's data sampler: shuffle")
	fs.StringVar(&o.templateOverhead, "chat-template-overhead", "", "prompt tokens the server adds to each request (a chat template, or a template's special tokens on text completions), taken off exact synthetic prompts so that prompt_tokens=N bills N: auto (measured with one probe request before the load) or a number of tokens; needs a tokenizer")
	fs.StringVar(&o.promptSalt, "prompt-salt", "none", "make synthetic and trace prompts unique to this run, keeping their token counts, so that a rerun with the same --random-seed is not served from the server's prompt cache: auto (a random salt, recorded in the run metadata's data line), none, or any text (the same text gives the same prompts)")
	fs.StringVar(&o.mismatchWarn, "token-mismatch-warn", "1%", "warn (stderr and the report) when the server's and the client's prompt or output token counts differ by more than this share of the server's tokens: a percentage (1%), a fraction (0.01) or off")
	metadataFlags(&o.meta, fs)
	addSweepFlags(fs, &o.sweep)
	addArrivalFlags(fs, &o.arrival)
	scorecardFlags(&o.tel, fs)
	shardFlags(&o.shard, fs)
	drainFlags(&o.drain, fs)
	addQualityFlags(fs, &o.quality)
	addV06Flags(fs, &o.v06)
	failureFlags(&o.failures, fs)
	wideFlag(&o.wide, fs)
	v07Flags(o, fs)
	for _, alias := range []string{"request-format", "warmup-percent", "cooldown-percent", "backend-kwargs", "disable-console-interactive", "disable-console", "data-sampler", "output-sampling", "scenario"} {
		_ = fs.MarkHidden(alias)
	}
}

// plan is a validated invocation of goodput benchmark or goodput profile:
// the run's typed configuration in the making (runConfig finishes it).
type plan struct {
	client      loadgen.ClientConfig
	planner     sweep.Planner
	profile     report.Profile
	search      *sweep.KneeSearch // a knee search, for the final profile
	cons        loadgen.Constraints
	data        *dataset.Dataset // opened with dataOpts, to validate it
	dataValue   string           // --data
	synthetic   *dataset.Spec    // goodput profile's synthetic prompts
	dataOpts    dataset.Options
	replay      bool
	tokExplicit *tokenize.Tokenizer // --processor, resolved
	metaLabels  []metadata.Label
	warm        report.TransientPhase
	cool        report.TransientPhase
	warmText    string // the warmup as given, for the run metadata
	labels      map[string]string
	outputs     map[string]bool
	extraBody   map[string]any
	skipReady   bool // --backend-args validate_backend:false
	telemetry   measure.Config
	metricsAddr string
	slo         slo.Spec
	seed        int64
	samples     int        // --sample-requests
	confidence  float64    // --confidence
	tokens      run.Tokens // --chat-template-overhead, --token-mismatch-warn
	targetLoad  float64    // --target-load-tok-s
	meta        metadataOptions
	files       run.Outputs // where the outputs go (Kinds and Key set by runConfig)
	progress    run.Progress
	getenv      func(string) string
	shard       *shardSpec // --shard-index/--shard-count/--start-at
	// goodput profile: the benchmark's telemetry and shard defaults,
	// applied after the profile's own checks.
	telDefaults   scorecardOptions
	shardDefaults shardOptions
	shardPlan     *sweep.ShardPlan // set when the run is one shard of several
	drain         *sweep.Drain     // the wait for an idle server before each round (unsharded runs)
	// maxErrorRate, when not nil, is --fail-on-error-rate.
	maxErrorRate *float64
	// allowAllErrors is --allow-all-errors.
	allowAllErrors bool
	metrics        run.Metrics      // --tbt-deadline, --ttft-deadline, --slice-duration, --percentiles, --knee-detection
	targetMOE      *sweep.TargetMOE // --target-moe
	// notes say how a peer's command line was read where that may
	// surprise (run.Config.Notes: warned once, kept in the report).
	notes []string
}

// runConfig is the run's configuration.
func (p *plan) runConfig() *run.Config {
	out := p.files
	out.Kinds = p.outputs
	return &run.Config{
		Client: p.client, SkipReady: p.skipReady, ExtraBody: p.extraBody,
		Data: run.Data{Value: p.dataValue, Synthetic: p.synthetic, Options: p.dataOpts, Opened: p.data, Getenv: p.getenv},
		Plan: run.Plan{
			Planner: p.planner, Profile: p.profile, Search: p.search, Constraints: p.cons, Warmup: p.warm, Cooldown: p.cool,
			Seed: p.seed, SampleRequests: p.samples, TargetLoadTokS: p.targetLoad, Drain: p.drain, TargetMOE: p.targetMOE, Confidence: p.confidence,
			Shard: run.Shard{Plan: p.shardPlan, Shard: p.shard.shard, StartAt: p.shard.startAt, Notes: p.shard.notes},
		},
		SLO: p.slo, Telemetry: p.telemetry, MetricsAddr: p.metricsAddr, Outputs: out, AllowAllErrors: p.allowAllErrors,
		Metadata: run.Metadata{Labels: p.metaLabels, ScenarioLabels: p.labels, Strict: p.meta.strict,
			ProbeTimeout: p.meta.probeTimeout, Warmup: p.warmText},
		Progress: p.progress,
		Build:    run.Build{Version: version, Commit: commit},
		Tokens:   p.tokens,
		Metrics:  p.metrics,
		Notes:    p.notes,
	}
}

func runBenchmark(ctx context.Context, e *env, args []string) error {
	var o benchOptions
	fs := newFlagSet("benchmark", "benchmark --target URL --data SPEC [flags]", e.stdout)
	benchFlags(&o, fs)
	args, err := foldData(args)
	if err != nil {
		return err
	}
	if err := parseFlags(fs, v06Args(args)); err != nil {
		return err
	}
	if len(o.override) > 0 {
		return usagef("--override: not supported: give the list in the option itself (--profile '{\"kind\":\"concurrent\",\"streams\":[1,2,4]}')")
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q (see 'goodput benchmark --help')", fs.Arg(0))
	}
	o.v07.cli = changedFlags(fs)
	if err := applyConfig(&o, fs); err != nil {
		return err
	}
	if err := applyV07(&o, fs, o.v07, o.configFile); err != nil {
		return err
	}
	o.data = normalizeData(o.data)
	if o.printConfig {
		return printConfig(e.stdout, fs, &o)
	}
	if t, ok := reqtype.ByName(o.requestType); o.apiKey == "" && ok && t.KeyEnv != "" {
		o.apiKey = e.getenv(t.KeyEnv)
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
	rep, err := run.Run(ctx, p.runConfig(), run.Env{Stdout: e.stdout, Stderr: e.stderr, Getenv: e.getenv})
	return afterRun(e.stderr, rep, err, p.maxErrorRate)
}

// validateAll checks every flag, the SLO, telemetry and shard flags
// included, and builds the plan. fs tells which flags were given.
func (o *benchOptions) validateAll(fs *pflag.FlagSet) (*plan, error) {
	if err := o.v06.apply(o); err != nil {
		return nil, err
	}
	if err := o.sweep.validate(fs, o.rateType); err != nil {
		return nil, err
	}
	if t, ok := reqtype.ByName(o.requestType); ok && o.sweep.parsed.Default {
		d := slo.DefaultFor(t, !o.noStream) // without tokens to time: the request latency
		o.sweep.parsed = &d
	}
	p, err := o.validate()
	if err != nil {
		return nil, err
	}
	if p.telemetry, err = o.tel.config(fs); err != nil {
		return nil, err
	}
	if p.metricsAddr, err = o.tel.liveMetricsAddr(); err != nil {
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
	if p.drain, err = o.drain.drain(o.shard.gap, fs != nil && fs.Changed("round-gap")); err != nil {
		return nil, err
	}
	if err = o.failures.apply(fs, p); err != nil {
		return nil, err
	}
	p.slo, p.search, p.targetLoad = o.sweep.spec(), o.sweep.search, o.sweep.targetLoadTokS
	if p.metrics, err = o.quality.metrics(p.slo); err != nil {
		return nil, err
	}
	if p.cons.OverSaturation, err = o.quality.overSaturation(p); err != nil {
		return nil, err
	}
	if err := o.quality.kneeDetection(o.rateType, p); err != nil {
		return nil, err
	}
	if p.targetMOE, err = o.quality.targetMOEOf(p); err != nil {
		return nil, err
	}
	if err := o.quality.repeat(p); err != nil {
		return nil, err
	}
	if err := p.shardRun(o.rateType); err != nil {
		return nil, err
	}
	return p, nil
}

// shardRun splits the plan into this shard's rounds when the run is one
// shard of several.
func (p *plan) shardRun(rateType string) error {
	var err error
	if p.shard.sharded {
		if p.shardPlan, err = p.shard.plan(rateType, p); err != nil {
			return err
		}
		if c := p.telemetry; len(c.DCGMURLs) > 0 || c.NVML || c.PrometheusURL != "" || c.OpenCostURL != "" || c.GPUCostPerHour > 0 || c.CostPerHour > 0 {
			return usagef("energy and cost flags measure the whole deployment: give them to a single-pod run, not to one shard of %d", p.shard.shard.Count)
		}
		delete(p.outputs, "scorecard") // a shard's own tokens are only its share
	}
	return nil
}

// validate checks the benchmark's own flags and builds the plan. Errors are usage errors
// naming the flag and the accepted form.
func (o *benchOptions) validate() (*plan, error) {
	p := &plan{labels: map[string]string{}, outputs: map[string]bool{}}
	if o.backendType == "vllm_python" {
		return nil, usagef("--backend-type/--backend vllm_python: goodput drives servers over HTTP: start `vllm serve` and give --target URL (--backend openai_http)")
	}
	if o.target == "" {
		return nil, usagef("--target is required, e.g. --target http://localhost:8000")
	}
	for _, t := range strings.Split(o.target, ",") {
		if _, err := loadgen.NormalizeTarget(strings.TrimSpace(t)); err != nil {
			return nil, usagef("--target: %v", err)
		}
	}
	if o.backendType != "openai_http" {
		return nil, usagef("--backend-type/--backend %q: only openai_http is supported (GuideLLM v0.7's form: --backend kind=openai_http,target=URL)", o.backendType)
	}
	ep, err := parseRequestType(o.requestType)
	if err != nil {
		return nil, err
	}
	for _, step := range []func(*plan) error{o.validateData, o.validateTokens, o.validateLimits, o.validateOutputs,
		func(p *plan) error { return o.validateClient(p, ep) }, o.planRates} {
		if err := step(p); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// validateTokens checks --chat-template-overhead and --token-mismatch-warn
// (after validateData: the overhead applies to synthetic data only).
func (o *benchOptions) validateTokens(p *plan) error {
	switch v := strings.TrimSpace(o.templateOverhead); v {
	case "", "0":
	case "auto":
		p.tokens.OverheadAuto = true
	default:
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return usagef("--chat-template-overhead %q: want auto or a number of tokens ≥ 0", o.templateOverhead)
		}
		p.tokens.Overhead = n
	}
	if (p.tokens.OverheadAuto || p.tokens.Overhead > 0) && p.data != nil && p.data.Description.Kind != "synthetic_text" {
		return usagef("--chat-template-overhead: applies to synthetic data (prompt_tokens=…), not to %s", p.data.Description.Kind)
	}
	w, err := parseMismatchWarn(o.mismatchWarn)
	if err != nil {
		return err
	}
	p.tokens.MismatchWarn = w
	return nil
}

// parseMismatchWarn reads --token-mismatch-warn: a percentage, a fraction
// or off (accum.Config.TokenMismatchWarn: negative never warns; 0 warns on
// any difference).
func parseMismatchWarn(s string) (float64, error) {
	v := strings.TrimSpace(s)
	if v == "off" {
		return -1, nil
	}
	scale := 1.0
	if strings.HasSuffix(v, "%") {
		v, scale = strings.TrimSpace(strings.TrimSuffix(v, "%")), 0.01
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || f < 0 || f*scale > 1 {
		return 0, usagef("--token-mismatch-warn %q: want a percentage (1%%), a fraction from 0 to 1 (0.01) or off", s)
	}
	if f == 0 {
		return math.SmallestNonzeroFloat64, nil // any difference warns
	}
	return f * scale, nil
}

// validateData checks the data flags and opens the data with the explicit tokenizer.
func (o *benchOptions) validateData(p *plan) error {
	var err error
	if o.data == "" {
		return usagef("--data is required, e.g. --data prompt_tokens=256,output_tokens=128")
	}
	if o.processorArgs != "" {
		return usagef("--processor-args: not supported: goodput reads tokenizer.json itself (give --processor PATH)")
	}
	if o.dataArgs != "" {
		if o.data, err = dataWithArgs(o.data, o.dataArgs); err != nil {
			return err
		}
	}
	if o.timeScale <= 0 || math.IsNaN(o.timeScale) || math.IsInf(o.timeScale, 0) {
		return usagef("--time-scale %v: want a positive factor, e.g. 0.5", o.timeScale)
	}
	p.replay = o.rateType == string(loadgen.Replay)
	if o.processor != "" {
		// "server" asks the first target's /tokenize endpoint.
		srv := &tokenize.ServerOptions{URL: strings.Split(o.target, ",")[0], APIKey: o.apiKey}
		if !strings.Contains(o.model, ",") {
			srv.Model = o.model
		}
		if p.tokExplicit, err = tokenize.Resolve(o.processor, tokenize.ResolveOptions{Getenv: o.getenv, Server: srv}); err != nil {
			return usagef("%s", oneLineErr(err))
		}
	}
	switch {
	case o.dataSamples == -1: // GuideLLM's "all"
		o.dataSamples = 0
	case o.dataSamples < 0:
		return usagef("--data-samples %d: want a count ≥ 1 (0 or -1: all)", o.dataSamples)
	}
	p.dataValue, p.dataOpts, p.getenv = o.data, o.dataOptions(p.tokExplicit, p.replay), o.getenv
	if p.dataOpts.Salt, err = parsePromptSalt(o.promptSalt); err != nil {
		return err
	}
	if p.data, err = dataset.Open(o.data, p.dataOpts); err != nil {
		return usagef("--data: %s", oneLineErr(err))
	}
	if k := p.data.Description.Kind; p.dataOpts.Salt != 0 && !dataset.Salted(k) {
		return usagef("--prompt-salt: applies to synthetic data and traces, not to %s", k)
	}
	return nil
}

// parsePromptSalt reads --prompt-salt: none (0), auto (a random salt) or
// a text, hashed (FNV-1a) so that the same text gives the same prompts.
func parsePromptSalt(s string) (uint64, error) {
	v := strings.TrimSpace(s)
	if v == "" || strings.ContainsFunc(v, unicode.IsControl) {
		return 0, usagef("--prompt-salt %q: want auto, none or a text on one line", s)
	}
	switch v {
	case "none":
		return 0, nil
	case "auto":
		return rand.Uint64() | 1, nil
	}
	h := fnv.New64a()
	h.Write([]byte(v))
	return max(h.Sum64(), 1), nil
}

// validateLimits checks the limits of each benchmark and its warmup and cooldown.
func (o *benchOptions) validateLimits(p *plan) error {
	var err error
	if o.maxSeconds < 0 || math.IsNaN(o.maxSeconds) || math.IsInf(o.maxSeconds, 0) {
		return usagef("--max-seconds %v: want a positive number of seconds", o.maxSeconds)
	}
	if o.maxRequests < 0 || o.maxErrors < 0 {
		return usagef("--max-requests and --max-errors must be positive counts")
	}
	if o.maxErrorRate < 0 || o.maxErrorRate >= 1 {
		return usagef("--max-error-rate %v: want a fraction 0 < x < 1, e.g. 0.05", o.maxErrorRate)
	}
	if _, finite := p.data.Source.(interface{ Len() int }); o.maxSeconds == 0 && o.maxRequests == 0 && !finite && o.arrival.rateSeries == "" {
		return usagef("set --max-seconds or --max-requests (or --data-samples): a benchmark needs an end")
	}
	if o.errorRateWindow < 0 {
		return usagef("--error-rate-window %d: want a number of requests ≥ 1 (0: 30)", o.errorRateWindow)
	}
	p.cons = loadgen.Constraints{
		MaxDuration: time.Duration(o.maxSeconds * float64(time.Second)), MaxRequests: o.maxRequests,
		MaxErrors: o.maxErrors, MaxErrorRate: o.maxErrorRate, ErrorRateWindow: o.errorRateWindow, Drain: o.drainEnd,
	}
	if o.drainEnd < 0 || (o.drainEnd > 0 && o.maxSeconds == 0) {
		return usagef("--drain %v: want a duration ≥ 0 with --max-seconds (how long requests in flight at the end may finish)", o.drainEnd)
	}
	if p.warm, err = report.ParseTransientPhase(o.warmup); err != nil {
		return usagef("--warmup: %v", err)
	}
	if p.cool, err = report.ParseTransientPhase(o.cooldown); err != nil {
		return usagef("--cooldown: %v", err)
	}
	for _, ph := range []struct {
		flag, val string
		t         report.TransientPhase
	}{{"--warmup", o.warmup, p.warm}, {"--cooldown", o.cooldown, p.cool}} {
		if s, r := ph.t.Limits(o.maxRequests, o.maxSeconds); !ph.t.IsZero() && s == nil && r == nil {
			return usagef("%s %s would not apply: a phase in requests needs --max-requests and one in seconds --max-seconds (GuideLLM's rule); give the limit, or the phase in the other unit", ph.flag, ph.val)
		}
	}
	if o.sampleRequests < 0 {
		return usagef("--sample-requests %d: want a count ≥ 0", o.sampleRequests)
	}
	if o.maxConcurrency < 0 {
		return usagef("--max-concurrency %d: want a positive count", o.maxConcurrency)
	}
	if o.users < 0 || (o.users != 0 && o.rateType != string(loadgen.UserCentric)) {
		return usagef("--users %d: the number of users of --rate-type user_centric, a whole number ≥ 1", o.users)
	}
	if o.rampup < 0 || math.IsNaN(o.rampup) {
		return usagef("--rampup %v: want seconds ≥ 0", o.rampup)
	}
	return o.arrival.validate(o)
}

// validateOutputs checks the labels, the outputs and the display.
func (o *benchOptions) validateOutputs(p *plan) error {
	var err error
	for _, l := range o.labels {
		k, v, ok := strings.Cut(l, "=")
		if !ok || k == "" {
			return usagef("--label %q: want key=value", l)
		}
		p.labels[k] = v
	}
	if p.metaLabels, err = o.meta.metadataLabels(o.labels); err != nil {
		return err
	}
	kinds, ok := o.outputKinds.of(o.outputs)
	if !ok {
		if kinds, err = run.ParseOutputs(o.outputs); err != nil {
			return err
		}
	}
	maps.Copy(p.outputs, kinds)
	if o.disableConsole {
		delete(p.outputs, "console")
	}
	if err := run.CheckOutputPath(o.outputPath); err != nil {
		return err
	}
	if o.rxTimestamps != "kernel" && o.rxTimestamps != "user" {
		return usagef("--rx-timestamps %q: want kernel or user", o.rxTimestamps)
	}
	if o.logFormat != "console" && o.logFormat != "json" {
		return usagef("--log-format %q: want console or json", o.logFormat)
	}
	if o.progressInterval <= 0 {
		return usagef("--progress-interval %v: want a positive duration", o.progressInterval)
	}
	if o.runID != "" && !run.ValidRunID(o.runID) {
		return usagef("--run-id %q: use letters, digits, '.', '_' and '-' only", o.runID)
	}
	p.files = run.Outputs{Path: o.outputPath, Dir: o.outputDir, RunID: o.runID, Force: o.force, Files: o.outputFiles, Wide: o.wide}
	if existing := existingFiles(o.namedOutputs); len(existing) > 0 && !o.force {
		// GuideLLM's dialect overwrites what its --output names.
		p.files.Force = true
		p.notes = append(p.notes, fmt.Sprintf("overwriting %s, as GuideLLM overwrites the files its --output names (goodput's --output-path and --output-dir never overwrite a run)", strings.Join(existing, ", ")))
	}
	p.progress = run.Progress{Disable: o.disableProgress, LogFormat: o.logFormat, Interval: o.progressInterval}
	p.seed, p.samples, p.warmText, p.meta = o.seed, o.sampleRequests, o.warmup, o.meta
	if !(o.confidence > 0 && o.confidence < 1) {
		return usagef("--confidence %v: want a confidence between 0 and 1, e.g. 0.95", o.confidence)
	}
	p.confidence = o.confidence
	return nil
}

// validateClient builds the client configuration.
func (o *benchOptions) validateClient(p *plan, ep loadgen.Endpoint) error {
	p.client = loadgen.ClientConfig{
		Target: o.target, Endpoint: ep, Path: o.requestPath, BatchSize: o.batchSize, Model: o.model, APIKey: o.apiKey, ExtraBody: o.extraBody,
		NoStream: o.noStream, NoStreamUsage: o.noStreamUsage, NoIgnoreEOS: o.noIgnoreEOS,
		MaxTokensField: o.maxTokensField, CAFile: o.caFile, Insecure: o.insecure,
		ConnectTimeout: o.connectTimeout, StallTimeout: negIfZero(o.stallTimeout), RequestTimeout: negIfZero(o.requestTimeout),
		UserTimestamps: o.rxTimestamps == "user", LocalAddrs: o.localAddrs, HTTPClient: o.httpClient,
	}
	switch o.httpClient {
	case loadgen.HTTPClientAuto, loadgen.HTTPClientGoodput, loadgen.HTTPClientNet:
	default:
		return usagef("--http-client %q: want auto, goodput or net/http", o.httpClient)
	}
	for _, a := range o.localAddrs {
		if net.ParseIP(strings.TrimSpace(a)) == nil {
			return usagef("--local-addrs %q: want IP addresses of this machine, comma-separated, e.g. 127.0.0.2,127.0.0.3", a)
		}
	}
	if o.connectTimeout <= 0 {
		return usagef("--connect-timeout %v: want a positive duration", o.connectTimeout)
	}
	if o.stallTimeout < 0 {
		return usagef("--stall-timeout %v: want a duration ≥ 0 (0 disables)", o.stallTimeout)
	}
	if o.requestTimeout < 0 {
		return usagef("--request-timeout %v: want a duration ≥ 0 (0 disables)", o.requestTimeout)
	}
	if o.maxTokensField != "" && o.maxTokensField != "max_tokens" && o.maxTokensField != "max_completion_tokens" {
		return usagef("--max-tokens-field %q: want max_tokens or max_completion_tokens", o.maxTokensField)
	}
	if rt, _ := ep.Type(); o.maxTokensField != "" && rt.MaxTokensFixed {
		return usagef("--max-tokens-field: only for chat_completions and text_completions (responses sends max_output_tokens, messages max_tokens)")
	}
	if o.requestPath != "" && (!strings.HasPrefix(o.requestPath, "/") || strings.ContainsAny(o.requestPath, "?# ")) {
		return usagef("--request-path %q: want a path like /v1/chat/completions", o.requestPath)
	}
	models, weights, err := loadgen.ParseModels(o.model)
	if err != nil {
		return usagef("--model: %v", err)
	}
	if len(models) > 1 || weights != nil || o.modelSelection != "" {
		if len(models) < 2 {
			return usagef("--model-selection-strategy and model weights need several --model values, like a:0.6,b:0.4")
		}
		p.client.Model, p.client.Models, p.client.ModelWeights = models[0], models, weights
		p.client.ModelSelection, p.client.ModelSeed = o.modelSelection, uint64(o.seed)
		switch o.modelSelection {
		case "", loadgen.ModelRoundRobin, loadgen.ModelRandom, loadgen.ModelWeighted:
		default:
			return usagef("--model-selection-strategy %q: want round_robin, random or weighted", o.modelSelection)
		}
		if (o.modelSelection == loadgen.ModelWeighted) != (weights != nil) && o.modelSelection != "" {
			return usagef("--model-selection-strategy %s: weights (a:0.6,b:0.4) go with weighted, and weighted needs them", o.modelSelection)
		}
	}
	if targets := strings.Split(o.target, ","); len(targets) > 1 {
		for i := range targets {
			targets[i] = strings.TrimSpace(targets[i])
		}
		p.client.Target, p.client.Targets = targets[0], targets
	}
	switch o.targetSelection {
	case "", loadgen.TargetRoundRobin, loadgen.TargetLeastInFlight:
		if o.targetSelection != "" && len(p.client.Targets) < 2 {
			return usagef("--target-selection %s: give several --target URLs, like http://a:8000,http://b:8000", o.targetSelection)
		}
		p.client.TargetSelection = o.targetSelection
	default:
		return usagef("--target-selection %q: want round_robin or least_in_flight", o.targetSelection)
	}
	if rt, _ := ep.Type(); o.batchSize < 1 || (o.batchSize > 1 && rt.Batch == "") {
		return usagef("--batch-size %d: want 1 or more, and more than 1 only for %s", o.batchSize,
			reqtype.Names(func(t *reqtype.Type) bool { return t.Batch != "" }, func(t *reqtype.Type) string { return t.Name }, "and"))
	}
	if rt, _ := ep.Type(); o.maxTokensField != "" && rt.Output != reqtype.OutputTokens {
		return usagef("--max-tokens-field: only for chat_completions and text_completions (%s has no output tokens)", o.requestType)
	}
	if len(o.headers) > 0 {
		p.client.Headers = map[string]string{}
	}
	if h := o.sessionHeader; h != "" && strings.Trim(h, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") != "" {
		return usagef("--session-header %q: want a header name such as x-session-id", h)
	}
	p.client.SessionHeader = o.sessionHeader
	for _, h := range o.headers {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return usagef("--header %q: want 'Name: value'", h)
		}
		p.client.Headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	if o.extraBody != "" {
		if err := json.Unmarshal([]byte(o.extraBody), &p.extraBody); err != nil {
			return usagef(`--extra-body: want a JSON object, e.g. '{"temperature":0}'`)
		}
	}
	if err := applyBackendArgs(o.backendArgs, p); err != nil {
		return err
	}
	if o.caFile != "" {
		if _, err := os.Stat(o.caFile); err != nil {
			return usagef("--ca-file: %v", err)
		}
	}
	return nil
}

// planRates turns --rate-type and --rate into the list of strategies.
func (o *benchOptions) planRates(p *plan) error {
	rates, ok := o.rates.of(o.rate)
	if !ok {
		var err error
		if rates, err = parseRates(o.rate); err != nil {
			return err
		}
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
			maxConcurrency: o.maxConcurrency, rampup: rampup, seed: uint64(o.seed), burstiness: o.arrival.gamma(), warmup: p.warm, cooldown: p.cool})
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
			list = append(list, o.arrival.apply(loadgen.Strategy{Kind: loadgen.Concurrent, Streams: int(r), Rampup: rampup}, rampup))
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
		list = append(list, o.arrival.apply(loadgen.Strategy{Kind: loadgen.Throughput, Streams: n, Rampup: rampup}, rampup))
	case loadgen.Constant, loadgen.Poisson:
		if len(o.arrival.series) > 0 {
			s := o.arrival.apply(loadgen.Strategy{Kind: loadgen.Kind(kind), Series: o.arrival.series, MaxConcurrency: o.maxConcurrency, Seed: uint64(o.seed)}, 0)
			list, p.profile.Rate = append(list, s), []float64{s.MeanRate()}
			break
		}
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
			list = append(list, o.arrival.apply(s, rampup))
		}
		p.profile.Rate = rates
	case loadgen.UserCentric:
		switch {
		case len(rates) == 0:
			return usagef("--rate-type user_centric needs --rate, the users' total requests per second, e.g. --rate 2 --users 16")
		case o.users < 1:
			return usagef("--rate-type user_centric needs --users N, the number of users (each sends its turns N/rate seconds apart)")
		case o.maxConcurrency != 0 || o.rampup != 0:
			return usagef("--rate-type user_centric: the users pace themselves; --max-concurrency and --rampup do not apply")
		}
		for _, r := range rates {
			if r <= 0 {
				return usagef("--rate %v: requests per second must be > 0", r)
			}
			list = append(list, loadgen.Strategy{Kind: loadgen.UserCentric, Rate: r, Streams: o.users})
		}
		// GuideLLM's nearest reading: constant at the rate, each user at
		// most one request in flight (the report's extras say the rest).
		p.profile.Kind, p.profile.Rate, p.profile.MaxConcurrency = report.StrategyConstant, rates, o.users
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
		return usagef("--rate-type %q: want synchronous, concurrent, throughput, constant (async), poisson, replay, sweep, knee or user_centric", o.rateType)
	}
	for _, s := range list {
		if err := s.Validate(); err != nil && len(s.Series) > 0 {
			return usagef("--rate-series: %v", err)
		} else if err != nil {
			return usagef("--rate-type %v", err)
		}
	}
	p.planner = o.sweep.stopOn(list)
	return nil
}

func parseRequestType(s string) (loadgen.Endpoint, error) {
	if t, ok := reqtype.ByName(s); ok {
		return loadgen.Endpoint(t.Path), nil
	}
	return "", usagef("--request-type %q: want %s", s, reqtype.Names(nil, func(t *reqtype.Type) string { return t.Name }, "or"))
}

// requestTypeHelp is --request-type's help: every request type's name,
// then their paths (--request-format's form).
func requestTypeHelp() string {
	return reqtype.Names(nil, func(t *reqtype.Type) string {
		if t.Help != "" {
			return t.Name + " (" + t.Help + ")"
		}
		return t.Name
	}, "or") + " (alias --request-format: " + reqtype.Names(nil, func(t *reqtype.Type) string { return t.Path }, "or") + ")"
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
	for _, k := range slices.Sorted(maps.Keys(m)) {
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
		case "extras":
			// GuideLLM v0.6's form of the request extras:
			// {"extras":{"body":{…},"headers":{…}}}.
			var ex map[string]json.RawMessage
			if json.Unmarshal(v, &ex) != nil {
				return bad(`{"body":{…},"headers":{…}}`)
			}
			for ek := range ex {
				if ek != "body" && ek != "headers" {
					return usagef("--backend-args: extras.%s: not supported: goodput takes extras.body (--extra-body) and extras.headers (--header)", ek)
				}
			}
			sub, _ := json.Marshal(ex)
			if err := applyBackendArgs(string(sub), p); err != nil {
				return err
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
		case "api_routes":
			// GuideLLM's paths by request type ("chat_completions":
			// "v1/chat/completions", ...): the entry of this run's type
			// sets the path unless --request-path did.
			var routes map[string]string
			if json.Unmarshal(v, &routes) != nil {
				return bad(`an object of paths, e.g. {"chat_completions":"v1/chat/completions"}`)
			}
			for name, path := range routes {
				if ep, err := parseRequestType(name); err == nil && ep == p.client.Endpoint && p.client.Path == "" {
					p.client.Path = "/" + strings.TrimPrefix(path, "/")
				}
			}
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
			return usagef("--backend-args: unsupported key %q (supported: api_key, headers, extra_body, extras, verify, timeout, timeout_connect, http2, follow_redirects, validate_backend, api_routes)", k)
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

// sweepOptions are the flags of the SLO, GuideLLM's sweep profile and the
// knee search (--rate-type sweep and knee) of goodput benchmark.
type sweepOptions struct {
	slo            string
	targetLoadTokS float64
	kneeAxis       string
	kneeTolerance  float64
	kneeMaxRounds  int
	kneeFactor     float64
	kneeMaxRate    float64
	sweepStrategy  string
	stoppingScope  string

	given  typed[slo.Spec]   // --slo as a front end built it
	parsed *slo.Spec         // set by validate
	search *sweep.KneeSearch // the knee search planner() built, for finalProfile
}

// kneeOnlyFlags are the flags only --rate-type knee uses.
var kneeOnlyFlags = [...]string{"knee-axis", "knee-tolerance", "knee-max-rounds", "knee-factor", "knee-max-rate"}

// addSweepFlags registers the flags.
func addSweepFlags(fs *pflag.FlagSet, o *sweepOptions) {
	fs.StringVar(&o.slo, "slo", "", "service-level objective every benchmark is judged against, e.g. ttft_p99=500ms,itl_p95=50ms,error_rate=0.5% (the default: interactive chat); keys ttft, itl, tpot, e2e with _p50…_p99.9, _mean, _max, or alone for a per-request threshold; error_rate, attainment")
	fs.Float64Var(&o.targetLoadTokS, "target-load-tok-s", 0, "output tokens/s to serve: the knee's report gives the replicas needed, ceil(target ÷ goodput at the knee)")
	fs.StringVar(&o.kneeAxis, "knee-axis", string(sweep.AxisConcurrency), "what --rate-type knee varies: concurrency (closed loop, the default) or rate (open loop, --sweep-strategy)")
	fs.Float64Var(&o.kneeTolerance, "knee-tolerance", sweep.DefaultKneeTolerance, "knee search: stop bisecting when the bracket is within this fraction of the passing load")
	fs.IntVar(&o.kneeMaxRounds, "knee-max-rounds", sweep.DefaultKneeMaxRounds, "knee search: at most this many rounds")
	fs.Float64Var(&o.kneeFactor, "knee-factor", sweep.DefaultKneeFactor, "knee search: the ramp multiplies the load by this factor")
	fs.Float64Var(&o.kneeMaxRate, "knee-max-rate", sweep.DefaultKneeMaxRate, "knee search on the rate axis: the highest request rate tried (req/s)")
	fs.StringVar(&o.sweepStrategy, "sweep-strategy", string(loadgen.Constant), "open-loop rounds of --rate-type sweep and of a rate knee search: constant or poisson")
	fs.StringVar(&o.stoppingScope, "stopping-scope", "current", "what a --max-errors or --max-error-rate stop ends: current (that benchmark) or all (the remaining rounds too; GuideLLM's stopping_scope)")
}

// validate checks the flags that apply to every run and parses the SLO
// (the default when --slo is not given). fs says which flags were set:
// the knee flags are refused with another rate type.
func (o *sweepOptions) validate(fs *pflag.FlagSet, rateType string) error {
	if s, ok := o.given.of(o.slo); ok {
		o.parsed = &s
	} else if strings.TrimSpace(o.slo) == "" {
		d := slo.Default()
		o.parsed = &d
	} else {
		s, err := slo.Parse(o.slo)
		if err != nil {
			return usagef("--slo: %v", err)
		}
		o.parsed = &s
	}
	if o.targetLoadTokS < 0 || math.IsNaN(o.targetLoadTokS) || math.IsInf(o.targetLoadTokS, 0) {
		return usagef("--target-load-tok-s %v: want output tokens per second > 0", o.targetLoadTokS)
	}
	if o.stoppingScope != "current" && o.stoppingScope != "all" {
		return usagef("--stopping-scope %q: want current or all", o.stoppingScope)
	}
	if o.sweepStrategy != string(loadgen.Constant) && o.sweepStrategy != string(loadgen.Poisson) {
		return usagef("--sweep-strategy %q: want constant or poisson", o.sweepStrategy)
	}
	if fs != nil && rateType != "knee" {
		for _, name := range kneeOnlyFlags {
			if fs.Changed(name) {
				return usagef("--%s is only used with --rate-type knee", name)
			}
		}
	}
	if fs != nil && fs.Changed("sweep-strategy") && rateType != "sweep" && !(rateType == "knee" && o.kneeAxis == string(sweep.AxisRate)) {
		return usagef("--sweep-strategy is only used with --rate-type sweep or --rate-type knee --knee-axis rate")
	}
	return nil
}

// spec is the SLO every round is judged against (validate parses it; the
// default before that).
func (o *sweepOptions) spec() slo.Spec {
	if o.parsed == nil {
		return slo.Default()
	}
	return *o.parsed
}

// plannerBase are the benchmark flags the sweep and knee planners share.
type plannerBase struct {
	maxConcurrency   int // --max-concurrency (0: the planner's default)
	rampup           time.Duration
	seed             uint64
	burstiness       float64 // gamma shape of poisson rounds (0: poisson)
	warmup, cooldown report.TransientPhase
}

// isSweepRateType reports whether planner handles a --rate-type.
func isSweepRateType(rateType string) bool { return rateType == "sweep" || rateType == "knee" }

// planner builds the planner and the report profile of --rate-type sweep
// (GuideLLM's sweep: --rate is the number of rounds, default 10) or knee
// (a knee search: --rate, optional, is the first load: streams or req/s).
// The planner applies --stopping-scope. Errors are usage errors naming the
// flag.
func (o *sweepOptions) planner(rateType string, rates []float64, base plannerBase) (sweep.Planner, report.Profile, error) {
	var p sweep.Planner
	var prof report.Profile
	switch rateType {
	case "sweep":
		g := sweep.GuideLLMSweep{Kind: loadgen.Kind(o.sweepStrategy), MaxConcurrency: base.maxConcurrency, Rampup: base.rampup, Seed: base.seed, Burstiness: base.burstiness}
		switch len(rates) {
		case 0:
		case 1:
			if rates[0] < 2 || rates[0] != math.Trunc(rates[0]) || rates[0] > 1000 {
				return nil, prof, usagef("--rate %v: with --rate-type sweep it is the number of rounds, a whole number from 2 to 1000 (default %d)", rates[0], sweep.DefaultSweepSize)
			}
			g.Size = int(rates[0])
		default:
			return nil, prof, usagef("--rate-type sweep takes one --rate: the number of rounds (default %d)", sweep.DefaultSweepSize)
		}
		if err := g.Validate(); err != nil {
			return nil, prof, usagef("--rate-type sweep: %v", err)
		}
		p, prof = g, g.Profile()
	case "knee":
		k, err := o.kneeSearch(rates, base)
		if err != nil {
			return nil, prof, err
		}
		o.search = &k
		p, prof = k, k.Profile(nil)
	default:
		return nil, prof, usagef("--rate-type %q is not a sweep: want sweep or knee", rateType)
	}
	prof.Warmup, prof.Cooldown = base.warmup, base.cooldown
	return o.stopOn(p), prof, nil
}

// stopOn applies --stopping-scope all to any planner (a rate or stream
// list too): a round ended by --max-errors or --max-error-rate skips the
// remaining rounds, GuideLLM's stopping_scope=all.
func (o *sweepOptions) stopOn(p sweep.Planner) sweep.Planner {
	if o.stoppingScope != "all" {
		return p
	}
	return sweep.StopOn(p, loadgen.StopMaxErrors, loadgen.StopMaxErrorRate)
}

// kneeSearch validates the knee flags.
func (o *sweepOptions) kneeSearch(rates []float64, base plannerBase) (sweep.KneeSearch, error) {
	k := sweep.KneeSearch{
		Axis: sweep.Axis(o.kneeAxis), Factor: o.kneeFactor, Tolerance: o.kneeTolerance, MaxRounds: o.kneeMaxRounds,
		MaxConcurrency: base.maxConcurrency, MaxRate: o.kneeMaxRate, Kind: loadgen.Kind(o.sweepStrategy),
		Seed: base.seed, Rampup: base.rampup, Burstiness: base.burstiness,
	}
	switch {
	case k.Axis != sweep.AxisConcurrency && k.Axis != sweep.AxisRate:
		return k, usagef("--knee-axis %q: want concurrency or rate", o.kneeAxis)
	case !(o.kneeTolerance > 0 && o.kneeTolerance < 1):
		return k, usagef("--knee-tolerance %v: want a fraction 0 < x < 1, e.g. 0.05", o.kneeTolerance)
	case o.kneeMaxRounds < 1:
		return k, usagef("--knee-max-rounds %d: want at least 1", o.kneeMaxRounds)
	case !(o.kneeFactor > 1) || math.IsInf(o.kneeFactor, 0):
		return k, usagef("--knee-factor %v: want a number > 1, e.g. 2", o.kneeFactor)
	case !(o.kneeMaxRate > 0) || math.IsInf(o.kneeMaxRate, 0):
		return k, usagef("--knee-max-rate %v: want req/s > 0", o.kneeMaxRate)
	}
	switch len(rates) {
	case 0:
	case 1:
		k.Start = rates[0]
		if k.Axis == sweep.AxisConcurrency && (k.Start < 1 || k.Start != math.Trunc(k.Start)) {
			return k, usagef("--rate %v: with --rate-type knee it is the first concurrency, a whole number ≥ 1 (default 1)", rates[0])
		}
		if k.Start <= 0 {
			return k, usagef("--rate %v: with --rate-type knee --knee-axis rate it is the first rate in req/s, > 0 (default 1)", rates[0])
		}
	default:
		return k, usagef("--rate-type knee takes at most one --rate: the first load (default 1)")
	}
	if err := k.Validate(); err != nil {
		return k, usagef("--rate-type knee: %v (see --rate, --max-concurrency and --knee-max-rate)", err)
	}
	return k, nil
}

// arrivalOptions are benchmark's arrival-shape flags, beyond GuideLLM's
// --rampup (linear, on constant rates and concurrent streams): the ramp's
// shape and start, gamma gaps on poisson (vLLM's --burstiness) and a
// piecewise rate series.
type arrivalOptions struct {
	rampupShape string
	rampupFrom  float64
	burstiness  float64
	rateSeries  string
	series      []loadgen.RateSegment // --rate-series, parsed by validate
}

func addArrivalFlags(fs *pflag.FlagSet, a *arrivalOptions) {
	fs.StringVar(&a.rampupShape, "rampup-shape", "", "linear (default) or exponential: how --rampup grows the rate or the streams; it also ramps a poisson rate, which GuideLLM's --rampup leaves alone")
	fs.Float64Var(&a.rampupFrom, "rampup-from", 0, "where --rampup starts: req/s for constant and poisson, streams for concurrent and throughput (default 0; an exponential rate ramp needs > 0)")
	fs.Float64Var(&a.burstiness, "burstiness", 1, "poisson (and sweep/knee with --sweep-strategy poisson): gamma shape of the gaps, vLLM's --burstiness: 1 poisson, < 1 burstier, > 1 smoother, same mean rate")
	fs.StringVar(&a.rateSeries, "rate-series", "", "constant or poisson: a piecewise rate instead of --rate, RATE:DURATION steps and FROM..TO:DURATION ramps, e.g. 2:30s,8:1m,8..2:30s; the benchmark ends with it")
}

// gamma is --burstiness as a strategy's Burstiness (0 when poisson).
func (a *arrivalOptions) gamma() float64 {
	if a.burstiness == 1 {
		return 0
	}
	return a.burstiness
}

// validate checks the arrival flags against the rate type and parses
// --rate-series.
func (a *arrivalOptions) validate(o *benchOptions) error {
	kind := o.rateType
	rate := kind == "constant" || kind == "async" || kind == "poisson"
	shaped := a.rampupShape != "" || a.rampupFrom != 0
	switch {
	case a.rampupShape != "" && a.rampupShape != string(loadgen.RampLinear) && a.rampupShape != string(loadgen.RampExponential):
		return usagef("--rampup-shape %q: want linear or exponential", a.rampupShape)
	case a.rampupFrom < 0 || math.IsNaN(a.rampupFrom) || math.IsInf(a.rampupFrom, 0):
		return usagef("--rampup-from %v: want a rate (req/s) or a number of streams ≥ 0", a.rampupFrom)
	case shaped && !(rate || kind == "concurrent" || kind == "throughput"):
		return usagef("--rampup-shape and --rampup-from apply to --rate-type concurrent, throughput, constant or poisson")
	case shaped && o.rampup == 0:
		return usagef("--rampup-shape and --rampup-from shape a ramp: give its length with --rampup SECONDS")
	case rate && a.rampupShape == string(loadgen.RampExponential) && a.rampupFrom == 0:
		return usagef("--rampup-shape exponential on a rate needs --rampup-from RATE > 0 (an exponential cannot start from 0)")
	case !(a.burstiness > 0) || math.IsInf(a.burstiness, 0):
		return usagef("--burstiness %v: want a gamma shape > 0 (1 poisson, < 1 burstier, > 1 smoother)", a.burstiness)
	case a.burstiness != 1 && kind != "poisson" && !(isSweepRateType(kind) && o.sweep.sweepStrategy == string(loadgen.Poisson)):
		return usagef("--burstiness shapes poisson gaps: use --rate-type poisson, or sweep or knee with --sweep-strategy poisson")
	}
	if a.rateSeries == "" {
		return nil
	}
	switch {
	case !rate:
		return usagef("--rate-series needs --rate-type constant or poisson")
	case o.rate != "":
		return usagef("--rate-series replaces --rate: give one of them")
	case o.rampup != 0:
		return usagef("--rate-series replaces --rampup: begin the series with a ramp, e.g. 0..8:30s,8:5m")
	}
	var err error
	if a.series, err = loadgen.ParseRateSeries(a.rateSeries); err != nil {
		return usagef("--rate-series: %v", err)
	}
	return nil
}

// apply sets the arrival flags on one of the plan's strategies: an
// explicit ramp shape or start turns the ramp on (poisson too), and
// --burstiness shapes poisson gaps.
func (a *arrivalOptions) apply(s loadgen.Strategy, rampup time.Duration) loadgen.Strategy {
	if a.rampupShape != "" || a.rampupFrom != 0 {
		s.Rampup, s.RampShape, s.RampFrom = rampup, loadgen.RampShape(a.rampupShape), a.rampupFrom
	}
	if s.Kind == loadgen.Poisson {
		s.Burstiness = a.gamma()
	}
	return s
}

// Multi-pod flags of goodput benchmark. An Indexed Job runs the same
// command line in n pods; Kubernetes gives each its index in
// $JOB_COMPLETION_INDEX, the manifest gives all of them the shard count
// ($GOODPUT_SHARD_COUNT: Kubernetes has no downward-API field for a Job's
// completions) and the shared start, and every pod generates its share of
// every round from that instant on. "goodput merge" combines the shard
// reports. The environment applies only to a run given a shard count:
// Kubernetes sets $JOB_COMPLETION_INDEX in the pod's init containers too
// (a warmup step is no shard).

// Environment variables read by the shard flags.
const (
	envShardIndex = "JOB_COMPLETION_INDEX" // set by Kubernetes in the pods of an Indexed Job
	envShardCount = "GOODPUT_SHARD_COUNT"  // set by the Job manifest to spec.completions
	envStartAt    = "GOODPUT_START_AT"     // optional: the shared start, instead of --start-at
)

// defaultRoundGap is the pause between the rounds of a sharded run.
const defaultRoundGap = 5 * time.Second

// maxStartAhead bounds how far in the future --start-at may be (a typo
// guard: a Job waiting days for its start is almost certainly a mistake).
const maxStartAhead = 24 * time.Hour

// shardOptions are the raw shard flags.
type shardOptions struct {
	index, count int
	startAt      string
	gap          time.Duration
}

// shardFlags registers --shard-index, --shard-count, --start-at and
// --round-gap.
func shardFlags(o *shardOptions, fs *pflag.FlagSet) {
	fs.IntVar(&o.index, "shard-index", -1, "this pod's shard, 0-based (default $"+envShardIndex+", set in an Indexed Job's pods, when a shard count is given)")
	fs.IntVar(&o.count, "shard-count", 0, "number of pods sharing the load: each runs its share of every round (default $"+envShardCount+")")
	fs.StringVar(&o.startAt, "start-at", "", "wall-clock instant every shard starts at: RFC 3339 (2026-06-16T12:00:00Z) or Unix seconds (default $"+envStartAt+" when a shard count is given)")
	fs.DurationVar(&o.gap, "round-gap", defaultRoundGap, "pause between rounds: in a sharded run round k starts at --start-at + k × (--max-seconds + gap); otherwise the least wait before each round for the server to drain (default 0 when not sharded)")
}

// shardSpec is the resolved shard setting of a benchmark.
type shardSpec struct {
	shard   sweep.Shard
	sharded bool  // a shard count was given: the report carries a shard identity
	startAt int64 // shared start (Unix ns), 0 for none
	gap     time.Duration
	// notes name the environment defaults that were set but not applied
	// (one line each, for the run's log): $JOB_COMPLETION_INDEX and
	// $GOODPUT_START_AT in a run that is not sharded.
	notes []string
}

// resolve applies the environment defaults and checks the shard flags.
// Errors are usage errors naming the flag.
//
// A run is sharded when it has a shard count: --shard-count, else
// $GOODPUT_SHARD_COUNT. Only then do $JOB_COMPLETION_INDEX (the default of
// --shard-index) and $GOODPUT_START_AT (the default of --start-at) apply.
// Kubernetes sets $JOB_COMPLETION_INDEX in every container of an Indexed
// Job's pods, init containers included, and a ConfigMap given with envFrom
// reaches them all: a warmup step in the same pod is no shard and must
// neither take the index nor wait for the shards' start. Those variables
// are then ignored, with a note. The flags are the user's explicit word:
// --shard-index without a shard count is an error, and --start-at alone
// makes a single run wait for that instant.
func (o *shardOptions) resolve(getenv func(string) string, now time.Time) (*shardSpec, error) {
	s := &shardSpec{gap: o.gap}
	if o.index < -1 {
		return nil, usagef("--shard-index %d: want a shard index ≥ 0", o.index)
	}
	if o.count < 0 {
		return nil, usagef("--shard-count %d: want a number of shards ≥ 1", o.count)
	}
	count, countFrom := o.count, "--shard-count"
	if count == 0 {
		if v := getenv(envShardCount); v != "" {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < 1 {
				return nil, usagef("$%s %q: want a number of shards ≥ 1", envShardCount, v)
			}
			count, countFrom = n, "$"+envShardCount
		}
	}
	s.sharded = count >= 1
	index, indexFrom := o.index, "--shard-index"
	if v := getenv(envShardIndex); index == -1 && v != "" {
		if !s.sharded {
			s.notes = append(s.notes, fmt.Sprintf("$%s=%q ignored: no shard count (--shard-count or $%s), so this run is not a shard", envShardIndex, v, envShardCount))
		} else {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < 0 {
				return nil, usagef("$%s %q: want a shard index ≥ 0", envShardIndex, v)
			}
			index, indexFrom = n, "$"+envShardIndex
		}
	}
	switch {
	case index >= 0 && !s.sharded:
		return nil, usagef("--shard-index %d needs the shard count: give --shard-count or set $%s (the Job's completions)", index, envShardCount)
	case count > 1 && index < 0:
		return nil, usagef("%s %d needs this pod's index: give --shard-index or run as an Indexed Job ($%s)", countFrom, count, envShardIndex)
	case s.sharded:
		if index >= count {
			return nil, usagef("shard index %d (from %s) is outside 0..%d for %s %d", index, indexFrom, count-1, countFrom, count)
		}
		s.shard = sweep.Shard{Index: max(index, 0), Count: count}
	}
	if o.gap < 0 {
		return nil, usagef("--round-gap %v: want a duration ≥ 0", o.gap)
	}
	at, from := o.startAt, "--start-at"
	if v := getenv(envStartAt); at == "" && v != "" {
		if s.sharded {
			at, from = v, "$"+envStartAt
		} else {
			s.notes = append(s.notes, fmt.Sprintf("$%s=%q ignored: no shard count (--shard-count or $%s), so this run does not wait for the shards' start (give --start-at to wait)", envStartAt, v, envShardCount))
		}
	}
	if at != "" {
		ns, err := parseStartAt(at)
		if err != nil {
			return nil, usagef("%s %q: %v", from, at, err)
		}
		switch d := time.Unix(0, ns).Sub(now); {
		case d < -sweep.MaxShardLateness:
			return nil, usagef("%s %s is %v in the past: the pods must be running before the shared start (choose a later instant)", from, at, (-d).Round(time.Second))
		case d > maxStartAhead:
			return nil, usagef("%s %s is %v ahead (more than %v): check the instant", from, at, d.Round(time.Second), maxStartAhead)
		}
		s.startAt = ns
	}
	if s.shard.Count > 1 && s.startAt == 0 {
		return nil, usagef("%s %d needs --start-at (or $%s): the shards must start together, e.g. --start-at %s", countFrom, count, envStartAt, now.Add(2*time.Minute).UTC().Truncate(time.Minute).Format(time.RFC3339))
	}
	return s, nil
}

// drainOptions are the flags of the wait for an idle server before each
// round (a sharded run keeps its timetable instead).
type drainOptions struct {
	maxDrain time.Duration
	keepBusy bool
}

// drainFlags registers --max-drain and --judge-busy-rounds.
func drainFlags(o *drainOptions, fs *pflag.FlagSet) {
	fs.DurationVar(&o.maxDrain, "max-drain", sweep.DefaultMaxDrain, "before each round wait at most this long for the server to finish what earlier rounds left (its running and waiting gauges from the server metrics, else the previous round's longest request); a round that starts on a busy server is marked and left out of sweep and knee verdicts")
	fs.BoolVar(&o.keepBusy, "judge-busy-rounds", false, "keep rounds that started on a busy server (--max-drain ran out) in sweep and knee verdicts")
}

// drain is the runner's wait before each round: gap (--round-gap) is its
// floor when the user gave it, else there is none.
func (o *drainOptions) drain(gap time.Duration, gapGiven bool) (*sweep.Drain, error) {
	if o.maxDrain <= 0 {
		return nil, usagef("--max-drain %v: want a duration > 0, e.g. 2m", o.maxDrain)
	}
	if !gapGiven {
		gap = 0
	}
	return &sweep.Drain{Gap: gap, Max: o.maxDrain, KeepBusy: o.keepBusy}, nil
}

// errorRate is a benchmark's errored share of the requests in its window
// (goodput's figure, else GuideLLM's totals); ok=false when unknown.
func errorRate(b *report.Benchmark) (rate float64, ok bool) {
	if g := b.Extras; g != nil {
		return float64(g.Errors.ErrorRate), true
	}
	if t := b.Metrics.RequestTotals; t != nil && t.Total > 0 {
		return float64(t.Errored) / float64(t.Total), true
	}
	return 0, false
}

// parseStartAt reads an instant as RFC 3339 (with optional fractional
// seconds) or as Unix seconds (an integer with up to 9 decimals), returning
// Unix nanoseconds.
func parseStartAt(s string) (int64, error) {
	s = strings.TrimSpace(s)
	bad := errors.New("want an RFC 3339 instant (2026-06-16T12:00:00Z) or Unix seconds (1781611200)")
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		if t.Unix() <= 0 || t.Year() >= 2200 {
			return 0, bad
		}
		return t.UnixNano(), nil
	}
	whole, frac, hasFrac := strings.Cut(s, ".")
	if whole == "" || len(whole) > 18 || (hasFrac && (frac == "" || len(frac) > 9)) || !digits(whole) || !digits(frac) {
		return 0, bad
	}
	sec, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || sec <= 0 {
		return 0, bad
	}
	switch {
	case sec >= 1e11:
		return 0, errors.New("looks like milliseconds: give Unix seconds (1781611200) or RFC 3339 (2026-06-16T12:00:00Z)")
	case sec >= 7e9: // beyond the year 2191: not an instant anyone means
		return 0, bad
	}
	ns := int64(0)
	if frac != "" {
		f, _ := strconv.ParseInt((frac + "000000000")[:9], 10, 64)
		ns = f
	}
	return sec*1e9 + ns, nil
}

func digits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// plan splits a validated benchmark plan into this shard's rounds. It
// refuses what cannot be sharded: synchronous load, adaptive planners and,
// for several rounds, a run without --max-seconds.
func (s *shardSpec) plan(rateType string, p *plan) (*sweep.ShardPlan, error) {
	list, ok := p.planner.(sweep.List)
	if !ok {
		return nil, usagef("--rate-type %s cannot be sharded: an adaptive planner needs every shard's results and the shards cannot coordinate without a server; use a fixed --rate list instead, e.g. --rate-type constant --rate 2,4,8", rateType)
	}
	if s.shard.Count > 1 {
		for _, st := range list {
			if st.Kind == loadgen.Synchronous {
				return nil, usagef("--rate-type synchronous cannot be sharded: it sends one request at a time (for N requests at a time across the shards use --rate-type concurrent --rate N)")
			}
		}
	}
	if len(list) > 1 && p.cons.MaxDuration <= 0 {
		return nil, usagef("--rate with %d values needs --max-seconds when sharded: round k starts at --start-at + k × (--max-seconds + --round-gap), so every round must be time-bound", len(list))
	}
	sp, err := sweep.NewShardPlan(sweep.ShardConfig{
		Shard: s.shard, Planner: list, Constraints: p.cons, Warmup: p.warm, Cooldown: p.cool,
		StartAt: s.startAt, Gap: s.gap, Seed: uint64(p.seed),
	})
	if err != nil {
		var flag string
		switch {
		case errors.Is(err, sweep.ErrSynchronousShards):
			flag = "--rate-type synchronous: "
		case errors.Is(err, sweep.ErrReplayShards), errors.Is(err, sweep.ErrAdaptiveShards):
			flag = "--rate-type " + rateType + ": "
		case strings.Contains(err.Error(), "max concurrency"):
			flag = "--max-concurrency: "
		case strings.HasPrefix(err.Error(), "warmup"):
			flag = "--"
		case strings.HasPrefix(err.Error(), "cooldown"):
			flag = "--"
		}
		return nil, usagef("%s%v", flag, err)
	}
	return sp, nil
}

// Telemetry and scorecard flags of goodput benchmark: where energy, cost
// and server metrics come from, measured in the same windows as the load
// (package scorecard/measure), and the scorecard file written beside the report.

// scorecardOptions are the raw telemetry flags.
type scorecardOptions struct {
	dcgmURLs           []string
	gpuSelector        string
	nvml               bool
	prometheus         string
	prometheusSelector string
	keplerNamespace    string
	keplerPod          string
	keplerContainer    string
	serverMetrics      []string
	opencost           string
	opencostNamespace  string
	opencostLabel      string
	opencostAggregate  string
	gpuCostPerHour     float64
	costPerHour        float64
	gpus               int
	currency           string
	pue                float64
	gridIntensity      float64
	optional           bool
	interval           time.Duration
	wait               time.Duration
	metricsAddr        string
}

// scorecardFlags registers the telemetry flags.
func scorecardFlags(o *scorecardOptions, fs *pflag.FlagSet) {
	fs.StringArrayVar(&o.dcgmURLs, "dcgm-url", nil, "dcgm-exporter /metrics URL scraped directly for GPU energy, e.g. http://gpu-node-07:9400/metrics (repeatable, one per node)")
	fs.StringVar(&o.gpuSelector, "gpu-selector", "", "GPUs of --dcgm-url/--nvml to count: hostname=H,gpu=N,uuid=U terms, e.g. hostname=gpu-node-07,gpu=0,gpu=1 (default all)")
	fs.BoolVar(&o.nvml, "nvml", false, "read the local GPUs' energy through NVML (binaries built with -tags nvml only)")
	fs.StringVar(&o.prometheus, "prometheus", "", "Prometheus server that scrapes dcgm-exporter (and Kepler), e.g. http://prometheus.monitoring:9090")
	fs.StringVar(&o.prometheusSelector, "prometheus-selector", "", `PromQL label matchers for the DCGM series, e.g. 'Hostname=~"gpu-node-.*"'`)
	fs.StringVar(&o.keplerNamespace, "kepler-namespace", "", "also read Kepler's energy of this namespace from --prometheus (cross-check)")
	fs.StringVar(&o.keplerPod, "kepler-pod", "", "also read Kepler's energy of this pod from --prometheus")
	fs.StringVar(&o.keplerContainer, "kepler-container", "", "also read Kepler's energy of this container from --prometheus")
	fs.StringArrayVar(&o.serverMetrics, "server-metrics", []string{string(measure.ServerMetricsAuto)}, `inference server /metrics (KV cache, queue, prefix cache, spec decode, server TTFT/ITL of vLLM, SGLang, TGI or Triton/TensorRT-LLM): auto (scrape <target>/metrics when it serves them), on (required), off, or URLs, one per replica (comma-separated or repeated; counters and histograms are summed), or every replica's series read from Prometheus: 'prometheus=http://prometheus:9090,selector={namespace="llm",app="vllm"}'`)
	fs.StringVar(&o.opencost, "opencost", "", "OpenCost API that prices each window, e.g. http://opencost.opencost:9003")
	fs.StringVar(&o.opencostNamespace, "opencost-namespace", "", "OpenCost: the namespace to price")
	fs.StringVar(&o.opencostLabel, "opencost-label", "", "OpenCost: price the allocations with this label, key=value (e.g. app=vllm)")
	fs.StringVar(&o.opencostAggregate, "opencost-aggregate", "", "OpenCost aggregation (default namespace, or label:<key> with --opencost-label)")
	fs.Float64Var(&o.gpuCostPerHour, "gpu-cost-per-hour", 0, "price of one GPU-hour, multiplied by --gpus (default: the GPUs the energy source selects)")
	fs.Float64Var(&o.costPerHour, "cost-per-hour", 0, "the whole deployment's price per hour (instead of --gpu-cost-per-hour)")
	fs.IntVar(&o.gpus, "gpus", 0, "GPUs priced by --gpu-cost-per-hour")
	fs.StringVar(&o.currency, "currency", scorecard.DefaultCurrency, "ISO 4217 code of the prices (goodput converts nothing)")
	fs.Float64Var(&o.pue, "pue", measure.DefaultPUE, "data-centre power usage effectiveness for the PUE-adjusted energy and carbon (default 1: GPU energy only)")
	fs.Float64Var(&o.gridIntensity, "grid-intensity", 0, "grid carbon intensity in gCO2/kWh for the carbon axis (e.g. 40 for France)")
	fs.BoolVar(&o.optional, "telemetry-optional", false, "run even when a telemetry source is unreachable; it is reported as missing")
	fs.DurationVar(&o.interval, "telemetry-interval", telemetry.DefaultInterval, "sampling interval of --dcgm-url, --nvml and the server metrics")
	fs.DurationVar(&o.wait, "telemetry-wait", measure.DefaultWait, "longest wait after each window end for a reading past it (dcgm-exporter refreshes every 30 s by default)")
	fs.StringVar(&o.metricsAddr, "metrics-addr", "", "serve the run's own Prometheus series at http://ADDR/metrics while it runs (requests, in flight, TTFT/ITL/e2e per round, target load, client CPU), e.g. :9090")
}

// liveMetricsAddr checks --metrics-addr: host:port, the host optional.
func (o *scorecardOptions) liveMetricsAddr() (string, error) {
	a := strings.TrimSpace(o.metricsAddr)
	if a == "" {
		return "", nil
	}
	if _, port, err := net.SplitHostPort(a); err != nil || port == "" {
		return "", usagef("--metrics-addr %q: want [host]:port, e.g. :9090 or 127.0.0.1:9090", o.metricsAddr)
	}
	return a, nil
}

// config turns the flags into the scorecard configuration. Errors are
// usage errors naming the flag and the accepted form.
func (o *scorecardOptions) config(fs *pflag.FlagSet) (measure.Config, error) {
	c := measure.Config{
		DCGMURLs: o.dcgmURLs, NVML: o.nvml, PrometheusURL: o.prometheus,
		OpenCostURL: o.opencost, GPUCostPerHour: o.gpuCostPerHour, CostPerHour: o.costPerHour, GPUs: o.gpus,
		Currency: o.currency, GridIntensity: o.gridIntensity, Optional: o.optional, Interval: o.interval, Wait: o.wait,
	}
	var err error
	if c.GPUSelector, err = telemetry.ParseGPUSelector(o.gpuSelector); err != nil {
		return c, usagef("--gpu-selector: %v", err)
	}
	if c.PrometheusSelector, err = telemetry.ParseMatchers(o.prometheusSelector); err != nil {
		return c, usagef("--prometheus-selector: %v", err)
	}
	if o.keplerNamespace != "" || o.keplerPod != "" || o.keplerContainer != "" {
		c.Kepler = &telemetry.KeplerSelector{Namespace: o.keplerNamespace, Pod: o.keplerPod, Container: o.keplerContainer}
	}
	for _, v := range o.serverMetrics {
		if !isServerMetricsProm(v) {
			continue
		}
		if len(o.serverMetrics) > 1 {
			return c, usagef("--server-metrics %q: the Prometheus form is given alone (not with URLs, auto, on or off)", v)
		}
		if c.ServerMetricsPrometheus, c.ServerMetricsSelector, err = parseServerMetricsProm(v); err != nil {
			return c, usagef("--server-metrics %q: %v", v, err)
		}
		c.ServerMetrics = measure.ServerMetricsOn
	}
	var sms []string
	for _, v := range o.serverMetrics {
		if isServerMetricsProm(v) {
			break
		}
		for _, x := range strings.Split(v, ",") {
			if x = strings.TrimSpace(x); x != "" {
				sms = append(sms, x)
			}
		}
	}
	switch sm := strings.Join(sms, ","); strings.ToLower(sm) {
	case "":
		if c.ServerMetrics == "" {
			c.ServerMetrics = measure.ServerMetricsAuto
		}
	case "auto":
		c.ServerMetrics = measure.ServerMetricsAuto
	case "on", "true":
		c.ServerMetrics = measure.ServerMetricsOn
	case "off", "false":
		c.ServerMetrics = measure.ServerMetricsOff
	default:
		for _, u := range sms {
			if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
				return c, usagef("--server-metrics %q: want auto, on, off, http(s) URLs (comma-separated or repeated, one per replica) or prometheus=URL,selector={label matchers}", u)
			}
		}
		c.ServerMetrics, c.ServerMetricsURL, c.ServerMetricsURLs = measure.ServerMetricsOn, sms[0], sms[1:]
	}
	if o.opencost == "" && (o.opencostNamespace != "" || o.opencostLabel != "" || o.opencostAggregate != "") {
		return c, usagef("--opencost-namespace, --opencost-label and --opencost-aggregate need --opencost URL")
	}
	q := telemetry.CostQuery{Aggregate: o.opencostAggregate}
	if o.opencostLabel != "" {
		k, v, ok := strings.Cut(o.opencostLabel, "=")
		if !ok || strings.TrimSpace(k) == "" || strings.TrimSpace(v) == "" {
			return c, usagef("--opencost-label %q: want key=value, e.g. app=vllm", o.opencostLabel)
		}
		if q.Aggregate == "" {
			q.Aggregate = "label:" + strings.TrimSpace(k)
		}
		q.Keys = []string{strings.TrimSpace(v)}
		q.Namespace = o.opencostNamespace
	} else if o.opencostNamespace != "" {
		if q.Aggregate == "" || q.Aggregate == "namespace" {
			q.Aggregate, q.Keys = "namespace", []string{o.opencostNamespace}
		} else {
			q.Namespace = o.opencostNamespace
		}
	}
	c.OpenCostQuery = q
	if o.interval <= 0 {
		return c, usagef("--telemetry-interval %v: want a duration of at least 10ms, e.g. 1s", o.interval)
	}
	if fs == nil || fs.Changed("pue") {
		c.PUE = o.pue
		if c.PUE == 0 {
			return c, usagef("--pue 0: want facility energy / IT energy, 1 ≤ PUE ≤ 10 (e.g. 1.4)")
		}
	}
	if err := c.Validate(); err != nil {
		return c, usagef("%v", err)
	}
	return c, nil
}

// serverMetricsPromForm is the accepted form of --server-metrics' Prometheus
// source, for error messages.
const serverMetricsPromForm = `want prometheus=URL,selector={label matchers}, e.g. prometheus=http://prometheus:9090,selector={namespace="llm",app="vllm"} (prometheus= may be left out with --prometheus URL)`

// isServerMetricsProm reports whether a --server-metrics value is the
// Prometheus form (prometheus=URL,selector={…}).
func isServerMetricsProm(v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	return strings.HasPrefix(v, "prometheus=") || strings.HasPrefix(v, "selector=")
}

// parseServerMetricsProm reads prometheus=URL,selector={matchers}: keys
// separated by commas, the selector's value running to its closing brace
// (its matchers hold commas) or, without braces, to the end.
func parseServerMetricsProm(v string) (string, telemetry.Matchers, error) {
	var promURL, sel string
	haveSel := false
	rest := strings.TrimSpace(v)
	for rest != "" {
		key, val, ok := strings.Cut(rest, "=")
		if !ok {
			return "", nil, fmt.Errorf("%q has no value; %s", key, serverMetricsPromForm)
		}
		key = strings.ToLower(strings.TrimSpace(key))
		val = strings.TrimLeft(val, " ")
		switch key {
		case "selector":
			end := len(val)
			if strings.HasPrefix(val, "{") {
				if end = closingBrace(val); end < 0 {
					return "", nil, fmt.Errorf("selector %q has no closing brace; %s", val, serverMetricsPromForm)
				}
				end++
			}
			sel, haveSel, rest = val[:end], true, val[end:]
		case "prometheus":
			u, r, _ := strings.Cut(val, ",")
			promURL, rest = strings.TrimSpace(u), ","+r
			if r == "" {
				rest = ""
			}
		default:
			return "", nil, fmt.Errorf("unknown key %q; %s", key, serverMetricsPromForm)
		}
		rest = strings.TrimSpace(rest)
		if rest != "" && rest[0] != ',' {
			return "", nil, fmt.Errorf("unexpected %q after %s=; %s", rest, key, serverMetricsPromForm)
		}
		rest = strings.TrimSpace(strings.TrimPrefix(rest, ","))
	}
	if !haveSel {
		return "", nil, fmt.Errorf("no selector: %s", serverMetricsPromForm)
	}
	ms, err := telemetry.ParseMatchers(sel)
	if err != nil {
		return "", nil, err
	}
	if len(ms) == 0 {
		return "", nil, fmt.Errorf("empty selector (it would sum every server Prometheus holds); %s", serverMetricsPromForm)
	}
	return promURL, ms, nil
}

// closingBrace returns the index of the brace closing s[0] == '{', skipping
// quoted strings, or -1.
func closingBrace(s string) int {
	inQuote := false
	for i := 1; i < len(s); i++ {
		switch {
		case inQuote && s[i] == '\\':
			i++
		case s[i] == '"':
			inQuote = !inQuote
		case !inQuote && s[i] == '}':
			return i
		}
	}
	return -1
}

// metadataOptions are the run-metadata flags of `goodput benchmark`
// (--label is the benchmark command's own flag).
type metadataOptions struct {
	labelsFile   string
	strict       bool
	probeTimeout time.Duration
}

// metadataFlags registers the run-metadata flags.
func metadataFlags(o *metadataOptions, fs *pflag.FlagSet) {
	fs.StringVar(&o.labelsFile, "labels-file", "", `Kubernetes downward-API labels file (lines key="value"); bench/engine, bench/model, bench/hardware, bench/precision, bench/isl, bench/osl, bench/run-id, bench/tokenizer, bench/concurrency fill the run metadata, other keys become labels`)
	fs.BoolVar(&o.strict, "strict-metadata", false, "fail (exit 2) before any load is sent when a run metadata field cannot be filled")
	fs.DurationVar(&o.probeTimeout, "metadata-timeout", metadata.DefaultProbeTimeout, "time limit of the server probes for run metadata (GET /version, /v1/models, /metrics, /info, /get_server_info, all at once)")
}

// metadataLabels validates the labels file and the --label flags and
// returns them as one list, the file first (a flag overrides the file
// for the same field). Errors are usage errors naming the flag or the
// file's line.
func (o *metadataOptions) metadataLabels(flagLabels []string) ([]metadata.Label, error) {
	if o.probeTimeout <= 0 {
		return nil, usagef("--metadata-timeout %v: want a positive duration, e.g. 3s", o.probeTimeout)
	}
	var out []metadata.Label
	if o.labelsFile != "" {
		l, err := metadata.ReadLabelsFile(o.labelsFile)
		if err != nil {
			return nil, usagef("%v", err)
		}
		out = append(out, l...)
	}
	for _, s := range flagLabels {
		l, err := metadata.ParseLabelFlag(s)
		if err != nil {
			return nil, usagef("%v", err)
		}
		out = append(out, l)
	}
	if err := metadata.ValidateLabels(out); err != nil {
		return nil, usagef("%v", err)
	}
	return out, nil
}

// qualityOptions are the report's optional measurements: Etalon's token
// deadlines (--tbt-deadline, --ttft-deadline), AIPerf's time slices
// (--slice-duration) and a percentile list (--percentiles).
type qualityOptions struct {
	tbtDeadline, ttftDeadline, sliceDuration, percentiles string
	overSat, knee, targetMOE                              string
	numRuns                                               int
	runVariation                                          float64
}

func addQualityFlags(fs *pflag.FlagSet, q *qualityOptions) {
	fs.StringVar(&q.tbtDeadline, "tbt-deadline", "", "Etalon's token deadline (e.g. 50ms, or seconds): each token is due this long after the one before plus the slack earlier tokens saved; reports each request's deadline misses and fluidity index and its longest stall (extras \"streaming\"; needed by the SLO keys fluidity and deadline_misses)")
	fs.StringVar(&q.ttftDeadline, "ttft-deadline", "", "Etalon's first-token deadline after dispatch with --tbt-deadline (default: the first token is not judged)")
	fs.StringVar(&q.sliceDuration, "slice-duration", "", "AIPerf's time slices: cut each benchmark's window into slices this long (e.g. 10s, or seconds) with their throughput and latency percentiles (extras \"timeslices\")")
	fs.StringVar(&q.overSat, "over-saturation", "", "GuideLLM's over_saturation constraint: stop a benchmark once the concurrency and the TTFT both rise significantly (a queue that grows): true for GuideLLM's defaults, or its keys, e.g. mode=monitor,min_seconds=10 (mode stop or monitor, min_seconds, max_window_seconds, moe_threshold, minimum_ttft, maximum_window_ratio, minimum_window_size, confidence, stopping_scope current|all)")
	fs.StringVar(&q.knee, "knee-detection", "", "GuideLLM's knee detection on --rate-type concurrent: fit where output tok/s stops rising with concurrency (two-segment regression), reported beside the SLO knee; true, or enabled=true[,adaptive=true,points_each_side=5,max_step=5] (adaptive: then run a grid of concurrencies around the knee and fit again)")
	fs.StringVar(&q.targetMOE, "target-moe", "", "GuideLLM's target_moe constraint: end each benchmark once a statistic is known to a relative margin of error, e.g. metric=time_to_first_token_ms,statistic=p95,moe=0.05 (keys metric time_to_first_token_ms|request_latency, statistic mean|p25…p999, moe, confidence, min_samples, check_interval, stopping_scope current|all)")
	fs.IntVar(&q.numRuns, "num-runs", 1, "run the whole plan this many times (AIPerf's --num-profile-runs) and report each figure's spread across the runs with a t interval (run extras \"trials\")")
	fs.Float64Var(&q.runVariation, "run-variation-threshold", sweep.DefaultRunVariation, "with --num-runs: flag a figure whose coefficient of variation across runs exceeds this fraction")
	fs.StringVar(&q.percentiles, "percentiles", "", "comma list of percentiles (0 < p < 100) of every latency metric for the console and the extras' \"percentiles\", e.g. 50,90,99,99.9; GuideLLM's fixed percentile fields stay")
}

// metrics validates the flags into the run's measurements; spec is the
// SLO, whose streaming keys need the streams measured.
func (q *qualityOptions) metrics(spec slo.Spec) (run.Metrics, error) {
	var m run.Metrics
	tbt, err := qualityDuration("--tbt-deadline", q.tbtDeadline)
	if err != nil {
		return m, err
	}
	ttft, err := qualityDuration("--ttft-deadline", q.ttftDeadline)
	if err != nil {
		return m, err
	}
	if ttft > 0 && tbt == 0 {
		return m, usagef("--ttft-deadline %s needs --tbt-deadline (the deadline of each later token)", q.ttftDeadline)
	}
	if spec.NeedsDeadlines() && tbt == 0 {
		return m, usagef("--slo %s: fluidity and deadline_misses need token deadlines: give --tbt-deadline, e.g. 50ms", spec)
	}
	if tbt > 0 || spec.Streaming() {
		m.Streaming = &accum.StreamingConfig{TTFTDeadlineNs: int64(ttft), TBTDeadlineNs: int64(tbt), FluidityFloor: spec.Thresholds().MinFluidity}
	}
	if m.SliceDuration, err = qualityDuration("--slice-duration", q.sliceDuration); err != nil {
		return m, err
	}
	if q.percentiles != "" {
		for _, f := range strings.Split(q.percentiles, ",") {
			p, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil || !(p > 0 && p < 100) {
				return m, usagef("--percentiles %s: %q is not a percentile: want numbers between 0 and 100 separated by commas, e.g. 50,90,99,99.9", q.percentiles, f)
			}
			i := 0
			for i < len(m.Percentiles) && m.Percentiles[i] < p {
				i++
			}
			if i == len(m.Percentiles) || m.Percentiles[i] != p { // kept sorted, once each
				m.Percentiles = append(m.Percentiles[:i], append([]float64{p}, m.Percentiles[i:]...)...)
			}
		}
	}
	return m, nil
}

// qualityDuration reads a positive duration flag: a Go duration or a
// number of seconds ("" is 0).
func qualityDuration(flag, v string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		f, ferr := strconv.ParseFloat(v, 64)
		if ferr != nil || math.IsNaN(f) || math.IsInf(f, 0) || f > 1e6 {
			return 0, usagef("%s %s: want a duration such as 50ms or 10s, or a number of seconds", flag, v)
		}
		d = time.Duration(f * 1e9)
	}
	if d <= 0 {
		return 0, usagef("%s %s: want a duration > 0", flag, v)
	}
	return d, nil
}

// overSaturation is --over-saturation, nil when not given; with
// stopping_scope=all a round it stops also ends the run.
func (q *qualityOptions) overSaturation(p *plan) (*loadgen.OverSaturation, error) {
	if q.overSat == "" || q.overSat == "false" {
		return nil, nil
	}
	value := q.overSat
	if strings.HasPrefix(strings.TrimSpace(value), "{") {
		// GuideLLM v0.6's JSON form.
		v, off, err := overSaturationJSON(value)
		if err != nil {
			return nil, usagef("--over-saturation %s: %v", q.overSat, err)
		}
		if off {
			return nil, nil
		}
		value = v
	}
	o, err := loadgen.ParseOverSaturation(value)
	if err != nil {
		return nil, usagef("--over-saturation %s: %v", q.overSat, err)
	}
	if o.ScopeAll {
		p.planner = sweep.StopOn(p.planner, loadgen.StopOverSaturation)
	}
	return &o, nil
}

// kneeDetection applies --knee-detection to the plan: the fit's settings
// for the report and, when adaptive, the planner that runs the grid.
func (q *qualityOptions) kneeDetection(rateType string, p *plan) error {
	kd, err := sweep.ParseKneeDetection(q.knee)
	if err != nil {
		return usagef("--knee-detection %s: %v", q.knee, err)
	}
	if kd == nil {
		return nil
	}
	if rateType != string(loadgen.Concurrent) {
		return usagef("--knee-detection needs --rate-type concurrent with at least 5 stream counts in --rate (GuideLLM's rule), got --rate-type %s", rateType)
	}
	p.metrics.KneeDetection = kd
	if kd.Adaptive {
		p.planner = &sweep.KneePlanner{Inner: p.planner, Detection: *kd}
	}
	return nil
}

// targetMOEOf is --target-moe, nil when not given; with stopping_scope=all
// a round it ends also ends the run.
func (q *qualityOptions) targetMOEOf(p *plan) (*sweep.TargetMOE, error) {
	if q.targetMOE == "" {
		return nil, nil
	}
	t, err := sweep.ParseTargetMOE(q.targetMOE)
	if err != nil {
		return nil, usagef("--target-moe %s: %v", q.targetMOE, err)
	}
	if t.ScopeAll {
		p.planner = sweep.StopOn(p.planner, sweep.StopTargetMOE)
	}
	return t, nil
}

// repeat applies --num-runs and --run-variation-threshold to the plan.
func (q *qualityOptions) repeat(p *plan) error {
	return repeatPlan(p, "--num-runs", q.numRuns, "--run-variation-threshold", q.runVariation)
}

// repeatPlan plays the plan runs times and sets the variation threshold
// (also for goodput profile's --num-profile-runs); the flags name the
// values in errors.
func repeatPlan(p *plan, runsFlag string, runs int, thresholdFlag string, threshold float64) error {
	if runs < 1 || runs > 100 {
		return usagef("%s %d: want a number of runs from 1 to 100", runsFlag, runs)
	}
	if !(threshold > 0) || math.IsInf(threshold, 0) {
		return usagef("%s %v: want a coefficient of variation > 0, e.g. 0.1", thresholdFlag, threshold)
	}
	if runs == 1 {
		return nil
	}
	if p.shard != nil && p.shard.sharded {
		return usagef("%s %d cannot be sharded: repeat the sharded run instead", runsFlag, runs)
	}
	p.metrics.NumRuns, p.metrics.RunVariation = runs, threshold
	p.planner = sweep.Repeat(p.planner, runs)
	return nil
}
