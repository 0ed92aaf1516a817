package cli

import (
	"context"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/dataset"
	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/accum"
	"github.com/goodput-dev/goodput/report/stats"
	"github.com/goodput-dev/goodput/reqtype"
	"github.com/goodput-dev/goodput/run"
	"github.com/goodput-dev/goodput/slo"
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
	maxErrorRate, maxGlobalErrorRate                 float64
	globalErrorMin                                   int
	warmup, cooldown                                 string
	seed                                             int64
	outputPath, outputDir, outputs, runID            string
	force                                            bool
	sampleRequests                                   int
	confidence                                       float64       // --confidence
	drainEnd                                         time.Duration // --drain
	maxConcurrency                                   int
	maxPrefill                                       int // --max-prefill-concurrency
	users                                            int // --rate-type user_centric
	rampup                                           float64
	localAddrs                                       []string
	apiKey                                           string
	headers                                          []string
	sessionHeader                                    string // conversations: a header carrying each session's id
	extraBody, backendType, backendArgs              string
	contentExtras                                    string // --content-extras: GuideLLM's extras.content
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
	control                                          controlOptions
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
	fs.Float64Var(&o.maxGlobalErrorRate, "max-global-error-rate", 0, "stop when the errored share of all the benchmark's requests so far reaches this fraction (0 < x < 1), once --global-error-minimum were processed (GuideLLM's max_global_error_rate)")
	fs.IntVar(&o.globalErrorMin, "global-error-minimum", 0, "requests processed before --max-global-error-rate applies (default 30, GuideLLM's minimum)")
	fs.StringVar(&o.warmup, "warmup", "", "excluded from metrics: <1 a fraction of the limit, ≥1 seconds, 100r requests, 30s, 10% (GuideLLM's forms)")
	fs.StringVar(&o.warmup, "warmup-percent", "", "alias of --warmup")
	fs.StringVar(&o.cooldown, "cooldown", "", "excluded from metrics at the end; same forms as --warmup")
	fs.StringVar(&o.cooldown, "cooldown-percent", "", "alias of --cooldown")
	fs.Int64Var(&o.seed, "random-seed", 42, "seed for synthetic data and poisson schedules")
	fs.StringVar(&o.outputPath, "output-path", "", "report file (e.g. /results/run.json); other outputs go beside it. A directory is used as --output-dir")
	fs.StringVar(&o.outputDir, "output-dir", "results", "runs are written to <output-dir>/<run-id>/")
	fs.StringVar(&o.outputs, "outputs", run.DefaultOutputs, run.OutputsHelp())
	fs.StringVar(&o.runID, "run-id", "", "run id (default: UTC timestamp plus a short config hash); an existing run id is refused without --force")
	fs.BoolVar(&o.force, "force", false, "overwrite an existing run directory or output file")
	fs.IntVar(&o.sampleRequests, "sample-requests", accum.DefaultSampleSize, "request records kept per status in the JSON report (0: all; all are in the JSON Lines file) (alias --output-sampling)")
	fs.IntVar(&o.sampleRequests, "output-sampling", accum.DefaultSampleSize, "alias of --sample-requests")
	fs.DurationVar(&o.drainEnd, "drain", 0, "at --max-seconds, stop sending and let the requests in flight finish for up to this long (e.g. 30s) instead of cancelling them; their latencies then enter the figures (default 0: cancel them, and the report treats them as censored)")
	fs.Float64Var(&o.confidence, "confidence", stats.DefaultConfidence, "confidence of every interval the report gives (means, percentiles) and of the knee search's and the SLO's decisions, in (0, 1)")
	fs.IntVar(&o.maxConcurrency, "max-concurrency", 0, fmt.Sprintf("in-flight cap for constant/poisson (default %d); for user_centric, the most users mid-session", loadgen.DefaultMaxConcurrency))
	fs.IntVar(&o.maxPrefill, "max-prefill-concurrency", 0, "most requests waiting for their first token (AIPerf's --prefill-concurrency): a request takes a slot before it is sent and frees it at its first token, or its end without one; an open-loop request that waits is sent late (default: no cap)")
	fs.Float64Var(&o.rampup, "rampup", 0, "seconds over which concurrent streams start / a constant rate ramps up")
	fs.StringVar(&o.apiKey, "api-key", "", "API key sent as Bearer, or as x-api-key to messages (default $OPENAI_API_KEY; $ANTHROPIC_API_KEY first for messages); never logged")
	fs.StringArrayVar(&o.headers, "header", nil, "extra request header 'Name: value' (repeatable)")
	fs.StringVar(&o.sessionHeader, "session-header", "", "conversations: send each session's stable id in this header (e.g. x-session-id), for session-affinity routers")
	fs.StringVar(&o.extraBody, "extra-body", "", `JSON object merged into every request body, e.g. '{"temperature":0}'`)
	fs.StringVar(&o.contentExtras, "content-extras", "", `JSON object whose members every user text content part carries (GuideLLM's extras.content, for chat templates such as translategemma's), e.g. '{"source_lang_code":"en","target_lang_code":"es"}'; chat_completions and responses`)
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
	controlFlags(&o.control, fs)
	addQualityFlags(fs, &o.quality)
	addV06Flags(fs, &o.v06)
	failureFlags(&o.failures, fs)
	WideFlag(&o.wide, fs)
	v07Flags(o, fs)
	for _, alias := range []string{"request-format", "warmup-percent", "cooldown-percent", "backend-kwargs", "disable-console-interactive", "disable-console", "data-sampler", "output-sampling", "scenario"} {
		_ = fs.MarkHidden(alias)
	}
}

// draft is the run.Config a front end fills as it reads its flags, with
// the few things only the front end needs beside it: nothing is copied
// from one to the other.
type draft struct {
	run.Config
	replay      bool                // the data's own schedule is the load (AIPerf's fixed schedule)
	tokExplicit *tokenize.Tokenizer // --processor, resolved
	meta        metadataOptions
	shard       *shardSpec // --shard-index/--shard-count/--start-at
	// goodput profile: the benchmark's telemetry and shard defaults,
	// applied after the profile's own checks.
	telDefaults   scorecardOptions
	shardDefaults shardOptions
	// maxErrorRate, when not nil, is --fail-on-error-rate (checked after
	// the run, for the exit code).
	maxErrorRate *float64
}

// newDraft is an empty draft with its maps made.
func newDraft() *draft {
	d := &draft{}
	d.Metadata.ScenarioLabels, d.Outputs.Kinds = map[string]string{}, map[string]bool{}
	return d
}

// runConfig finishes the run's configuration: the shard and metadata
// settings the front end kept in its own form.
func (p *draft) runConfig() *run.Config {
	c := p.Config
	if p.shard != nil {
		c.Plan.Shard.Shard, c.Plan.Shard.StartAt, c.Plan.Shard.Notes = p.shard.shard, p.shard.startAt, p.shard.notes
	}
	c.Metadata.Strict, c.Metadata.ProbeTimeout = p.meta.strict, p.meta.probeTimeout
	return &c
}

// Benchmark runs `goodput benchmark` (and `goodput run`): GuideLLM's
// v0.6 flags, v0.7 options and --config scenarios into a run.Config, then
// the run.
func Benchmark(ctx context.Context, e *Env, args []string) error {
	var o benchOptions
	fs := NewFlagSet("benchmark", "benchmark --target URL --data SPEC [flags]", e.Stdout)
	benchFlags(&o, fs)
	args, foldNotes, err := foldData(args)
	if err != nil {
		return err
	}
	if err := ParseFlags(fs, v06Args(args)); err != nil {
		return err
	}
	if len(o.override) > 0 {
		return Usagef("--override: not supported: give the list in the option itself (--profile '{\"kind\":\"concurrent\",\"streams\":[1,2,4]}')")
	}
	if fs.NArg() > 0 {
		return Usagef("unexpected argument %q (see 'goodput benchmark --help')", fs.Arg(0))
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
		return printConfig(e.Stdout, fs, &o)
	}
	if t, ok := reqtype.ByName(o.requestType); o.apiKey == "" && ok && t.KeyEnv != "" {
		o.apiKey = e.Getenv(t.KeyEnv)
	}
	if o.apiKey == "" {
		o.apiKey = e.Getenv("OPENAI_API_KEY")
	}
	o.getenv = e.Getenv
	p, err := o.validateAll(fs)
	if err != nil {
		return err
	}
	p.Build, p.Notes = e.Build, append(foldNotes, p.Notes...)
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			return Usagef("--cpu-profile: %v", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("--cpu-profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	rep, err := run.Run(ctx, p.runConfig(), run.Env{Stdout: e.Stdout, Stderr: e.Stderr, Getenv: e.Getenv})
	return afterRun(e.Stderr, rep, err, p.maxErrorRate)
}

// validateAll checks every flag, the SLO, telemetry and shard flags
// included, and fills the draft. fs tells which flags were given.
func (o *benchOptions) validateAll(fs *pflag.FlagSet) (*draft, error) {
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
	if p.Telemetry, err = o.tel.config(fs); err != nil {
		return nil, err
	}
	if p.MetricsAddr, err = o.tel.liveMetricsAddr(); err != nil {
		return nil, err
	}
	getenv := o.getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if fs != nil && fs.Changed("shard-index") && o.shard.index < 0 {
		return nil, Usagef("--shard-index %d: want a shard index ≥ 0", o.shard.index)
	}
	if fs != nil && fs.Changed("shard-count") && o.shard.count < 1 {
		return nil, Usagef("--shard-count %d: want a number of shards ≥ 1", o.shard.count)
	}
	if p.shard, err = o.shard.resolve(getenv, time.Now()); err != nil {
		return nil, err
	}
	if p.Plan.Drain, err = o.drain.drain(o.shard.gap, fs != nil && fs.Changed("round-gap")); err != nil {
		return nil, err
	}
	if p.Plan.Control, err = o.control.control(fs); err != nil {
		return nil, err
	}
	if p.shard.sharded && p.Plan.Control != nil {
		return nil, errControlShard
	}
	if err = o.failures.apply(fs, p); err != nil {
		return nil, err
	}
	p.SLO, p.Plan.Search, p.Plan.TargetLoadTokS = o.sweep.spec(), o.sweep.search, o.sweep.targetLoadTokS
	if p.Metrics, err = o.quality.metrics(p.SLO); err != nil {
		return nil, err
	}
	if p.Plan.Constraints.OverSaturation, err = o.quality.overSaturation(p); err != nil {
		return nil, err
	}
	if err := o.quality.kneeDetection(o.rateType, p); err != nil {
		return nil, err
	}
	if p.Plan.TargetMOE, err = o.quality.targetMOEOf(p); err != nil {
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
func (p *draft) shardRun(rateType string) error {
	var err error
	if p.shard.sharded {
		if p.Plan.Shard.Plan, err = p.shard.plan(rateType, p); err != nil {
			return err
		}
		if c := p.Telemetry; len(c.DCGMURLs) > 0 || c.NVML || c.PrometheusURL != "" || c.OpenCostURL != "" || c.GPUCostPerHour > 0 || c.CostPerHour > 0 {
			return Usagef("energy and cost flags measure the whole deployment: give them to a single-pod run, not to one shard of %d", p.shard.shard.Count)
		}
		delete(p.Outputs.Kinds, "scorecard") // a shard's own tokens are only its share
	}
	return nil
}

// validate checks the benchmark's own flags and fills the draft. Errors are usage errors
// naming the flag and the accepted form.
func (o *benchOptions) validate() (*draft, error) {
	p := newDraft()
	if o.backendType == "vllm_python" {
		return nil, Usagef("--backend-type/--backend vllm_python: goodput drives servers over HTTP: start `vllm serve` and give --target URL (--backend openai_http)")
	}
	if o.target == "" {
		return nil, Usagef("--target is required, e.g. --target http://localhost:8000")
	}
	for _, t := range strings.Split(o.target, ",") {
		if _, err := loadgen.NormalizeTarget(strings.TrimSpace(t)); err != nil {
			return nil, Usagef("--target: %v", err)
		}
	}
	if o.backendType != "openai_http" {
		return nil, Usagef("--backend-type/--backend %q: only openai_http is supported (GuideLLM v0.7's form: --backend kind=openai_http,target=URL)", o.backendType)
	}
	ep, err := parseRequestType(o.requestType)
	if err != nil {
		return nil, err
	}
	for _, step := range []func(*draft) error{o.validateData, o.validateTokens, o.validateLimits, o.validateOutputs,
		func(p *draft) error { return o.validateClient(p, ep) }, o.planRates} {
		if err := step(p); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// validateTokens checks --chat-template-overhead and --token-mismatch-warn
// (after validateData: the overhead applies to synthetic data only).
func (o *benchOptions) validateTokens(p *draft) error {
	switch v := strings.TrimSpace(o.templateOverhead); v {
	case "", "0":
	case "auto":
		p.Tokens.OverheadAuto = true
	default:
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return Usagef("--chat-template-overhead %q: want auto or a number of tokens ≥ 0", o.templateOverhead)
		}
		p.Tokens.Overhead = n
	}
	if (p.Tokens.OverheadAuto || p.Tokens.Overhead > 0) && p.Data.Opened != nil && p.Data.Opened.Description.Kind != "synthetic_text" {
		return Usagef("--chat-template-overhead: applies to synthetic data (prompt_tokens=…), not to %s", p.Data.Opened.Description.Kind)
	}
	w, err := parseMismatchWarn(o.mismatchWarn)
	if err != nil {
		return err
	}
	p.Tokens.MismatchWarn = w
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
		return 0, Usagef("--token-mismatch-warn %q: want a percentage (1%%), a fraction from 0 to 1 (0.01) or off", s)
	}
	if f == 0 {
		return math.SmallestNonzeroFloat64, nil // any difference warns
	}
	return f * scale, nil
}

// validateData checks the data flags and opens the data with the explicit tokenizer.
func (o *benchOptions) validateData(p *draft) error {
	var err error
	if o.data == "" {
		return Usagef("--data is required, e.g. --data prompt_tokens=256,output_tokens=128")
	}
	if o.processorArgs != "" {
		return Usagef("--processor-args: not supported: goodput reads tokenizer.json itself (give --processor PATH)")
	}
	if o.dataArgs != "" {
		if o.data, err = dataWithArgs(o.data, o.dataArgs); err != nil {
			return err
		}
	}
	if o.timeScale <= 0 || math.IsNaN(o.timeScale) || math.IsInf(o.timeScale, 0) {
		return Usagef("--time-scale %v: want a positive factor, e.g. 0.5", o.timeScale)
	}
	p.replay = o.rateType == string(loadgen.Replay)
	if o.processor != "" {
		// "server" asks the first target's /tokenize endpoint.
		srv := &tokenize.ServerOptions{URL: strings.Split(o.target, ",")[0], APIKey: o.apiKey}
		if !strings.Contains(o.model, ",") {
			srv.Model = o.model
		}
		if p.tokExplicit, err = tokenize.Resolve(o.processor, tokenize.ResolveOptions{Getenv: o.getenv, Server: srv}); err != nil {
			return Usagef("%s", oneLineErr(err))
		}
	}
	switch {
	case o.dataSamples == -1: // GuideLLM's "all"
		o.dataSamples = 0
	case o.dataSamples < 0:
		return Usagef("--data-samples %d: want a count ≥ 1 (0 or -1: all)", o.dataSamples)
	}
	p.Data.Value, p.Data.Options, p.Data.Getenv = o.data, o.dataOptions(p.tokExplicit, p.replay), o.getenv
	if p.Data.Options.Salt, err = parsePromptSalt(o.promptSalt); err != nil {
		return err
	}
	if p.Data.Opened, err = dataset.Open(o.data, p.Data.Options); err != nil {
		return Usagef("--data: %s", oneLineErr(err))
	}
	if k := p.Data.Opened.Description.Kind; p.Data.Options.Salt != 0 && !dataset.Salted(k) {
		return Usagef("--prompt-salt: applies to synthetic data and traces, not to %s", k)
	}
	return nil
}

// parsePromptSalt reads --prompt-salt: none (0), auto (a random salt) or
// a text, hashed (FNV-1a) so that the same text gives the same prompts.
func parsePromptSalt(s string) (uint64, error) {
	v := strings.TrimSpace(s)
	if v == "" || strings.ContainsFunc(v, unicode.IsControl) {
		return 0, Usagef("--prompt-salt %q: want auto, none or a text on one line", s)
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
func (o *benchOptions) validateLimits(p *draft) error {
	var err error
	if o.maxSeconds < 0 || math.IsNaN(o.maxSeconds) || math.IsInf(o.maxSeconds, 0) {
		return Usagef("--max-seconds %v: want a positive number of seconds", o.maxSeconds)
	}
	if o.maxRequests < 0 || o.maxErrors < 0 {
		return Usagef("--max-requests and --max-errors must be positive counts")
	}
	if o.maxErrorRate < 0 || o.maxErrorRate >= 1 {
		return Usagef("--max-error-rate %v: want a fraction 0 < x < 1, e.g. 0.05", o.maxErrorRate)
	}
	if _, finite := p.Data.Opened.Source.(interface{ Len() int }); o.maxSeconds == 0 && o.maxRequests == 0 && !finite && o.arrival.rateSeries == "" {
		return Usagef("set --max-seconds or --max-requests (or --data-samples): a benchmark needs an end")
	}
	if o.errorRateWindow < 0 {
		return Usagef("--error-rate-window %d: want a number of requests ≥ 1 (0: 30)", o.errorRateWindow)
	}
	if o.maxGlobalErrorRate < 0 || o.maxGlobalErrorRate >= 1 || math.IsNaN(o.maxGlobalErrorRate) {
		return Usagef("--max-global-error-rate %v: want a fraction 0 < x < 1, e.g. 0.05", o.maxGlobalErrorRate)
	}
	if o.globalErrorMin < 0 {
		return Usagef("--global-error-minimum %d: want a number of requests ≥ 1 (0: 30)", o.globalErrorMin)
	}
	p.Plan.Constraints = loadgen.Constraints{
		MaxDuration: time.Duration(o.maxSeconds * float64(time.Second)), MaxRequests: o.maxRequests,
		MaxErrors: o.maxErrors, MaxErrorRate: o.maxErrorRate, ErrorRateWindow: o.errorRateWindow, Drain: o.drainEnd,
		MaxGlobalErrorRate: o.maxGlobalErrorRate, GlobalErrorMin: o.globalErrorMin,
	}
	if o.drainEnd < 0 || (o.drainEnd > 0 && o.maxSeconds == 0) {
		return Usagef("--drain %v: want a duration ≥ 0 with --max-seconds (how long requests in flight at the end may finish)", o.drainEnd)
	}
	if p.Plan.Warmup, err = report.ParseTransientPhase(o.warmup); err != nil {
		return Usagef("--warmup: %v", err)
	}
	if p.Plan.Cooldown, err = report.ParseTransientPhase(o.cooldown); err != nil {
		return Usagef("--cooldown: %v", err)
	}
	for _, ph := range []struct {
		flag, val string
		t         report.TransientPhase
	}{{"--warmup", o.warmup, p.Plan.Warmup}, {"--cooldown", o.cooldown, p.Plan.Cooldown}} {
		if s, r := ph.t.Limits(o.maxRequests, o.maxSeconds); !ph.t.IsZero() && s == nil && r == nil {
			return Usagef("%s %s would not apply: a phase in requests needs --max-requests and one in seconds --max-seconds (GuideLLM's rule); give the limit, or the phase in the other unit", ph.flag, ph.val)
		}
	}
	if o.sampleRequests < 0 {
		return Usagef("--sample-requests %d: want a count ≥ 0", o.sampleRequests)
	}
	if o.maxConcurrency < 0 {
		return Usagef("--max-concurrency %d: want a positive count", o.maxConcurrency)
	}
	if o.maxPrefill < 0 {
		return Usagef("--max-prefill-concurrency %d: want a positive count", o.maxPrefill)
	}
	if o.users < 0 || (o.users != 0 && o.rateType != string(loadgen.UserCentric)) {
		return Usagef("--users %d: the number of users of --rate-type user_centric, a whole number ≥ 1", o.users)
	}
	if o.rampup < 0 || math.IsNaN(o.rampup) {
		return Usagef("--rampup %v: want seconds ≥ 0", o.rampup)
	}
	return o.arrival.validate(o)
}

// validateOutputs checks the labels, the outputs and the display.
func (o *benchOptions) validateOutputs(p *draft) error {
	var err error
	for _, l := range o.labels {
		k, v, ok := strings.Cut(l, "=")
		if !ok || k == "" {
			return Usagef("--label %q: want key=value", l)
		}
		p.Metadata.ScenarioLabels[k] = v
	}
	if p.Metadata.Labels, err = o.meta.metadataLabels(o.labels); err != nil {
		return err
	}
	kinds, ok := o.outputKinds.of(o.outputs)
	if !ok {
		if kinds, err = run.ParseOutputs(o.outputs); err != nil {
			return err
		}
	}
	maps.Copy(p.Outputs.Kinds, kinds)
	if o.disableConsole {
		delete(p.Outputs.Kinds, "console")
	}
	if err := run.CheckOutputPath(o.outputPath); err != nil {
		return err
	}
	if o.rxTimestamps != "kernel" && o.rxTimestamps != "user" {
		return Usagef("--rx-timestamps %q: want kernel or user", o.rxTimestamps)
	}
	if o.logFormat != "console" && o.logFormat != "json" {
		return Usagef("--log-format %q: want console or json", o.logFormat)
	}
	if o.progressInterval <= 0 {
		return Usagef("--progress-interval %v: want a positive duration", o.progressInterval)
	}
	if o.runID != "" && !run.ValidRunID(o.runID) {
		return Usagef("--run-id %q: use letters, digits, '.', '_' and '-' only", o.runID)
	}
	p.Outputs = run.Outputs{Path: o.outputPath, Dir: o.outputDir, RunID: o.runID, Force: o.force, Files: o.outputFiles, Wide: o.wide, Kinds: p.Outputs.Kinds}
	if existing := existingFiles(o.namedOutputs); len(existing) > 0 && !o.force {
		// GuideLLM's dialect overwrites what its --output names.
		p.Outputs.Force = true
		p.Notes = append(p.Notes, fmt.Sprintf("overwriting %s, as GuideLLM overwrites the files its --output names (goodput's --output-path and --output-dir never overwrite a run)", strings.Join(existing, ", ")))
	}
	p.Progress = run.Progress{Disable: o.disableProgress, LogFormat: o.logFormat, Interval: o.progressInterval}
	p.Plan.Seed, p.Plan.SampleRequests, p.Metadata.Warmup, p.meta = o.seed, o.sampleRequests, o.warmup, o.meta
	if !(o.confidence > 0 && o.confidence < 1) {
		return Usagef("--confidence %v: want a confidence between 0 and 1, e.g. 0.95", o.confidence)
	}
	p.Plan.Confidence = o.confidence
	return nil
}
