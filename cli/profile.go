package cli

import (
	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/dataset"
	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/report/stats"
)

// `goodput profile` is AIPerf's `aiperf profile` command line mapped onto
// the benchmark engine, so that a Job line such as
//
//	aiperf profile --url http://svc:8000/v1 --model M --concurrency 4,8,16,32 \
//	  --input-tokens 1024 --output-tokens 256 --num-requests 200 --output /results/aiperf.json
//
// runs with only the binary name changed. It builds the run's
// configuration from the flags (one benchmark per --concurrency or
// --request-rate value), runs it, and writes goodput's report plus one
// AIPerf export (profile_export_aiperf.json and .csv) per benchmark,
// computed from the per-request records AIPerf's way. One table
// (aiperfFlags, profile_aiperf.go) says what each AIPerf option becomes or
// why it is refused; --config reads AIPerf's YAML config into the same
// options (profile_config.go).
//
// Where the files go:
//
//   - --artifact-dir DIR (default artifacts/<model>-openai-<endpoint>-<load>,
//     AIPerf's auto-name): DIR/profile_export_aiperf.{json,csv} for one
//     benchmark, DIR/<label>/profile_export_aiperf.{json,csv} for several,
//     <label> being AIPerf's variation name (concurrency_8,
//     request_rate_2.5); goodput's report is DIR/goodput.{json,csv,jsonl}.
//   - --output FILE.json: the JSON export is FILE.json itself and its CSV
//     FILE.csv beside it (one benchmark); with several benchmarks,
//     DIR/<label>/FILE.json and .csv where DIR is FILE's directory.
//     goodput's report is DIR/FILE.goodput.{json,csv,jsonl}.
//
// As with AIPerf, existing files are overwritten.

// profileOptions are the flags of `goodput profile` (AIPerf's names).
type profileOptions struct {
	control                   controlOptions
	wide                      bool     // --wide
	urls, models              []string // AIPerf's lists: --url A --url B, --model a,b
	urlStrategy               string
	modelSelection            string
	endpointType              string
	streaming                 bool
	concurrency, requestRate  string
	rateMode                  string
	smoothness                float64
	rateRamp, concRamp        float64
	prefill                   int     // --prefill-concurrency
	prefillRamp               float64 // --prefill-concurrency-ramp-duration
	prefillSet                bool    // --prefill-concurrency given (0 is then refused)
	prefillRampSet            bool    // its ramp given, likewise
	rateSeries                string
	userRate                  float64 // --user-centric-rate
	numUsers                  int     // --num-users
	userCentricSet            bool    // either of them given
	isl, islStddev            int
	osl, oslStddev            int
	requestCount, warmupCount int
	seqDist                   string // --sequence-distribution
	promptSalt                string // --prompt-salt
	duration                  float64
	gracePeriod               string  // --benchmark-grace-period: seconds or inf
	cancelRate, cancelDelay   float64 // --request-cancellation-rate (%), -delay (s)
	goodput                   []string
	tokenizer                 string
	artifactDir, output       string
	apiKey                    string
	headers, extraInputs      []string
	seed                      int64
	requestTimeout            float64
	legacyMaxTokens           bool
	useServerTokenCount       bool
	perChunkUsage             bool // --per-chunk-usage
	exportHTTPTrace           bool // --export-http-trace
	showTraceTiming           bool // --show-trace-timing
	ui                        string
	failures                  failureOptions
	customEndpoint, transport string
	// embeddings and rankings: inputs per request, AIPerf's rankings shape
	batchSize                    int
	passages, passagesStddev     int
	passageTokens, passageStddev int
	queryTokens, queryStddev     int
	// synthetic images and audio (AIPerf's Image Input and Audio Input)
	imageWidth, imageWidthStddev   float64
	imageHeight, imageHeightStddev float64
	imageBatch                     int
	imageFormat                    string
	audioLength, audioLengthStddev float64
	audioBatch, audioChannels      int
	audioFormat                    string
	audioRates, audioDepths        []string
	// conversations (AIPerf's Conversation Input)
	conversations              int
	turns, turnsStddev         int
	turnDelay, turnDelayStddev float64 // milliseconds
	turnDelayRatio             float64
	sessionHeader              string
	userContext                int
	fileSession                dataset.SessionSpec // the delay flags for an --input-file's conversations
	// repeated runs and time slices (AIPerf's Multi-Run and Output)
	profileRuns           int
	runCooldown, sweepGap float64
	confidence            float64
	sweepMode             string
	sliceDuration         float64
	// synthetic prompts: shared prefixes and distinct entries
	prefixPool, prefixLength int
	sharedSystemPrompt       int
	numEntries               int
	// synthetic video (AIPerf's --video-*): on when width and height are set
	videoWidth, videoHeight, videoFPS, videoBatch int
	videoDuration                                 float64
	// data files and traces
	inputFile, datasetType string
	fixedSchedule          bool
	noFixedSchedule        bool
	autoOffset             bool
	scheduleStart          int // --fixed-schedule-start-offset, ms
	scheduleEnd            int // --fixed-schedule-end-offset, ms (0: none)
	sampling               string
	// the warmup phase (AIPerf's Warmup options, profile_warmup.go)
	warmupDuration                 float64
	warmupSessions, warmupConc     int
	warmupRate                     float64
	warmupPattern, warmupGrace     string
	warmupConcRamp, warmupRateRamp float64
	warmupPrefill                  int     // --warmup-prefill-concurrency (0: --prefill-concurrency)
	warmupPrefillRamp              float64 // its ramp (0: --prefill-concurrency-ramp-duration)
	warmupSmoothness               float64 // a YAML warmup phase's own (0: --arrival-smoothness)
	warmupClosed                   bool    // a YAML warmup phase of type concurrency: no rate inherited
	// telemetry: AIPerf's lists of URLs ("" for the bare flag)
	serverMetrics, gpuTelemetry     []string
	noServerMetrics, noGPUTelemetry bool
	configFile                      string
}

// profileDefaultISL is AIPerf's default input sequence length.
const profileDefaultISL = 550

func profileFlags(po *profileOptions, fs *pflag.FlagSet) {
	fs.VarP(listValue{&po.urls}, "url", "u", "server URL (AIPerf's form: host:port, http://host:port or …/v1; default localhost:8000); several (--url A --url B, or A,B) spread the requests (see --url-strategy)")
	fs.StringVar(&po.urlStrategy, "url-strategy", loadgen.TargetRoundRobin, "with several --url servers: round_robin (request i goes to server i mod n; AIPerf's only strategy) or least_in_flight (goodput's: the server with the fewest requests in flight)")
	fs.VarP(listValue{&po.models}, "model", "m", "model name, or a comma list (or the flag repeated) of models each request picks one of (see --model-selection-strategy) (required; alias --model-names)")
	fs.Var(listValue{&po.models}, "model-names", "alias of --model")
	fs.StringVar(&po.modelSelection, "model-selection-strategy", loadgen.ModelRoundRobin, "with several models: round_robin (request i goes to model i mod n) or random (uniform, seeded by --random-seed); weighted with weights in --model a:0.6,b:0.4 (goodput's)")
	fs.StringVar(&po.endpointType, "endpoint-type", "chat", endpointTypeHelp())
	for _, n := range batchFlags {
		short := ""
		if n == "batch-size" {
			short = "b"
		}
		fs.IntVarP(&po.batchSize, n, short, 1, "texts per embeddings request, passages per rankings request unless --rankings-passages-mean (aliases -b, --prompt-batch-size, --batch-size-text)")
	}
	fs.IntVar(&po.passages, "rankings-passages-mean", 1, "passages per rankings request (benchmark's --batch-size)")
	fs.IntVar(&po.passagesStddev, "rankings-passages-stddev", 0, "0 only: every rankings request has --rankings-passages-mean passages")
	fs.IntVar(&po.passageTokens, "rankings-passages-prompt-token-mean", 550, "tokens of each rankings passage (synthetic prompt_tokens; the query has the same length)")
	fs.IntVar(&po.passageStddev, "rankings-passages-prompt-token-stddev", 0, "standard deviation of the passage and query lengths (prompt_tokens_stdev)")
	fs.IntVar(&po.queryTokens, "rankings-query-prompt-token-mean", 550, "tokens of each rankings query: the same as the passages' (goodput draws both from one set of synthetic prompts)")
	fs.IntVar(&po.queryStddev, "rankings-query-prompt-token-stddev", 0, "the same as --rankings-passages-prompt-token-stddev")
	fs.BoolVar(&po.streaming, "streaming", false, "stream responses (SSE); needed for TTFT, ITL and the other per-token metrics")
	fs.StringVar(&po.concurrency, "concurrency", "", "concurrent requests; a comma list (4,8,16,32) runs one benchmark each (default 1); with --request-rate the in-flight cap, with --user-centric-rate the most users mid-session")
	fs.StringVar(&po.requestRate, "request-rate", "", "requests per second, open loop; a comma list runs one benchmark each (--concurrency is then the in-flight cap)")
	fs.StringVar(&po.rateMode, "request-rate-mode", "poisson", "arrival pattern of --request-rate: poisson, constant or gamma (alias --arrival-pattern)")
	fs.StringVar(&po.rateMode, "arrival-pattern", "poisson", "alias of --request-rate-mode")
	fs.Float64Var(&po.smoothness, "arrival-smoothness", 1, "gamma shape of --arrival-pattern gamma: 1 poisson, < 1 burstier, > 1 smoother (alias --vllm-burstiness)")
	fs.Float64Var(&po.smoothness, "vllm-burstiness", 1, "alias of --arrival-smoothness")
	fs.Float64Var(&po.rateRamp, "request-rate-ramp-duration", 0, "seconds over which the request rate ramps linearly up to --request-rate, from AIPerf's start of rate × 0.1 s ÷ duration")
	fs.Float64Var(&po.concRamp, "concurrency-ramp-duration", 0, "seconds over which --concurrency streams start, one more every duration ÷ concurrency (closed loop); with a rate the in-flight cap rises from 1 to --concurrency, one slot every duration ÷ (concurrency-1)")
	fs.IntVar(&po.prefill, "prefill-concurrency", 0, "most requests waiting for their first token: a request takes a slot before it is sent and frees it at its first token (or its end without one); an open-loop request that waits is sent late (needs --streaming; at most --concurrency)")
	fs.Float64Var(&po.prefillRamp, "prefill-concurrency-ramp-duration", 0, "seconds over which --prefill-concurrency rises from 1, one slot every duration ÷ (prefill-concurrency-1)")
	fs.StringVar(&po.rateSeries, "request-rate-series", "", `JSON file of rate points, {"points":[{"time_s":0,"qps":5},{"time_s":60,"qps":10}]}: the rate moves linearly between them, then holds the last until --benchmark-duration (one benchmark; instead of --request-rate)`)
	fs.Float64Var(&po.userRate, "user-centric-rate", 0, "requests per second of --num-users users together: each user sends its turns num-users/rate seconds apart, the users staggered (AIPerf's user-centric rate, for KV-cache benchmarks)")
	fs.IntVar(&po.numUsers, "num-users", 0, "the users of --user-centric-rate")
	for _, n := range islFlags {
		fs.IntVar(&po.isl, n, profileDefaultISL, "input sequence length in tokens (mean; aliases --input-tokens, --input-tokens-mean, --synthetic-input-tokens-mean, --prompt-input-tokens-mean)")
	}
	for _, n := range islStddevFlags {
		fs.IntVar(&po.islStddev, n, 0, "standard deviation of the input length (aliases --input-tokens-stddev, --synthetic-input-tokens-stddev, --prompt-input-tokens-stddev)")
	}
	for _, n := range oslFlags {
		fs.IntVar(&po.osl, n, 0, "output sequence length in tokens, sent as the max tokens (default: the server decides; aliases --output-tokens, --output-tokens-mean, --prompt-output-tokens-mean)")
	}
	fs.StringVar(&po.seqDist, "sequence-distribution", "", `mixed ISL/OSL pairs instead of --isl/--osl: "ISL[|SD],OSL[|SD]:PROB;…" (probabilities sum to 100), "[(ISL,OSL):PROB,…]" or {"pairs":[{"isl":…,"osl":…,"prob":…}]} (alias --seq-dist)`)
	fs.StringVar(&po.seqDist, "seq-dist", "", "alias of --sequence-distribution")
	for _, n := range oslStddevFlags {
		fs.IntVar(&po.oslStddev, n, 0, "standard deviation of the output length (aliases --output-tokens-stddev, --prompt-output-tokens-stddev)")
	}
	fs.IntVar(&po.requestCount, "request-count", 0, "requests per benchmark, after its warmup phase (default without --benchmark-duration: max(10, 2×concurrency); alias --num-requests)")
	fs.IntVar(&po.requestCount, "num-requests", 0, "alias of --request-count")
	fs.Float64Var(&po.duration, "benchmark-duration", 0, "stop each benchmark after this many seconds")
	fs.Float64Var(&po.cancelRate, "request-cancellation-rate", 0, "percentage of the requests the client cancels (each picked with this probability, seeded by --random-seed); they are recorded incomplete, class cancelled")
	fs.Float64Var(&po.cancelDelay, "request-cancellation-delay", 0, "seconds after sending that a picked request is cancelled (default 0: at once)")
	fs.StringVar(&po.gracePeriod, "benchmark-grace-period", "", "seconds (or inf) the requests in flight at --benchmark-duration may take to finish, counted in the figures (benchmark's --drain; default 0: cancelled, censored in the report)")
	fs.StringArrayVar(&po.goodput, "goodput", nil, `per-request SLOs for goodput, e.g. "time_to_first_token:500 inter_token_latency:50" (display units: ms, tokens/sec/user)`)
	fs.StringVar(&po.tokenizer, "tokenizer", "", "tokenizer of the prompts and of the client-side token counts (AIPerf's ISL and OSL): builtin (o200k_base), a built-in encoding, a tokenizer.json path or a locally cached Hugging Face id, never downloaded (default: the model's when cached locally; the benchmark's --processor)")
	fs.StringVar(&po.artifactDir, "artifact-dir", "", "directory of the exports (default artifacts/<model>-openai-<endpoint>-<load>; alias --output-artifact-dir)")
	fs.StringVar(&po.artifactDir, "output-artifact-dir", "", "alias of --artifact-dir")
	fs.StringVar(&po.artifactDir, "output-dir", "", "alias of --artifact-dir")
	fs.StringVar(&po.output, "output", "", "path of the AIPerf JSON export, e.g. /results/aiperf.json; the other files go beside it")
	fs.StringVar(&po.apiKey, "api-key", "", "API key sent as Bearer (default $OPENAI_API_KEY); never logged or written")
	fs.StringArrayVarP(&po.headers, "header", "H", nil, `extra request header "Name:value" or a JSON object (repeatable)`)
	fs.StringArrayVar(&po.extraInputs, "extra-inputs", nil, `extra request body fields "key:value" (value read as JSON when it is, e.g. ignore_eos:true) or a JSON object (repeatable)`)
	fs.Int64Var(&po.seed, "random-seed", 42, "seed of the synthetic prompts and of poisson arrivals")
	fs.Float64Var(&po.requestTimeout, "request-timeout-seconds", 0, "fail a request that takes longer (default 1800)")
	controlFlags(&po.control, fs)
	fs.BoolVar(&po.legacyMaxTokens, "use-legacy-max-tokens", false, "send max_tokens instead of max_completion_tokens")
	fs.BoolVar(&po.useServerTokenCount, "use-server-token-count", false, "sequence lengths in the AIPerf export from the server's usage counts (default: the client's counts when known)")
	fs.BoolVar(&po.perChunkUsage, "per-chunk-usage", false, "inter_token_latency in the AIPerf export divides the decode time by the output tokens after the first content chunk, by the server's per-chunk usage (continuous_usage_stats, which goodput always asks for), instead of by OSL-1; needs --use-server-token-count, --endpoint-type chat and --streaming")
	fs.BoolVar(&po.exportHTTPTrace, "export-http-trace", false, "add AIPerf's HTTP trace metrics (http_req_connecting, _connection_reused, _sending, _waiting, _receiving, _duration) to the AIPerf export; each request's phase times are in goodput.jsonl")
	fs.BoolVar(&po.showTraceTiming, "show-trace-timing", false, "print AIPerf's HTTP Trace Timing table after the run (and add its metrics to the AIPerf export, as --export-http-trace)")
	fs.StringVar(&po.ui, "ui-type", "simple", "progress display: dashboard or simple (progress lines) or none (alias --ui)")
	fs.StringVar(&po.ui, "ui", "simple", "alias of --ui-type")
	failureFlags(&po.failures, fs)
	WideFlag(&po.wide, fs)
	fs.StringVar(&po.promptSalt, "prompt-salt", "none", "goodput's own: make synthetic and trace prompts unique to this run, keeping their lengths, so that a rerun with the same --random-seed is not served from the server's prompt cache: auto (a random salt), none, or any text")
	fs.StringVar(&po.customEndpoint, "custom-endpoint", "", "request path under --url instead of the endpoint type's, e.g. /v1/custom (alias --endpoint)")
	fs.StringVar(&po.customEndpoint, "endpoint", "", "alias of --custom-endpoint")
	fs.StringVar(&po.transport, "transport", "http", "http (the only transport; alias --transport-type)")
	fs.StringVar(&po.transport, "transport-type", "http", "alias of --transport")
	mediaFlags(po, fs)
	conversationFlags(po, fs)
	fs.IntVar(&po.profileRuns, "num-profile-runs", 1, "run every benchmark this many times and report each figure's spread across the runs (benchmark's --num-runs)")
	fs.Float64Var(&po.runCooldown, "profile-run-cooldown-seconds", 0, "with --num-profile-runs > 1: the least pause in seconds before each later benchmark (benchmark's --round-gap)")
	fs.Float64Var(&po.sweepGap, "parameter-sweep-cooldown-seconds", 0, "with a --concurrency or --request-rate list: the least pause in seconds before each later benchmark (benchmark's --round-gap)")
	fs.Float64Var(&po.confidence, "confidence-level", stats.DefaultConfidence, "confidence of every interval of the report, across repeated runs too (benchmark's --confidence)")
	fs.StringVar(&po.sweepMode, "parameter-sweep-mode", "repeated", "repeated only: with --num-profile-runs the whole --concurrency or --request-rate list runs once per run, in order")
	fs.Float64Var(&po.sliceDuration, "slice-duration", 0, "cut each benchmark into slices of this many seconds with their own throughput and latency percentiles (benchmark's --slice-duration)")
	for _, n := range prefixPoolFlags {
		fs.IntVar(&po.prefixPool, n, 0, "distinct shared prefixes of the synthetic prompts, sent as the system message; request i uses prefix i mod N (aliases --prompt-prefix-pool-size, --num-prefix-prompts)")
	}
	for _, n := range prefixLengthFlags {
		fs.IntVar(&po.prefixLength, n, 0, "tokens of each shared prefix (alias --prompt-prefix-length)")
	}
	fs.IntVar(&po.sharedSystemPrompt, "shared-system-prompt-length", 0, "tokens of one system prompt shared by every request")
	fs.IntVar(&po.numEntries, "num-dataset-entries", 0, "distinct synthetic prompts, reused in turn (default: a new one per request; alias --num-prompts)")
	fs.IntVar(&po.numEntries, "num-prompts", 0, "alias of --num-dataset-entries")
	fs.StringVar(&po.inputFile, "input-file", "", "prompts or a trace to send instead of synthetic prompts: a .jsonl/.json/.csv/.txt/.parquet/.arrow file (see --custom-dataset-type)")
	fs.StringVar(&po.datasetType, "custom-dataset-type", "", "format of --input-file: single_turn (a prompt file, the default) or mooncake_trace or burst_gpt_trace (a trace, replayed on its timestamps)")
	fs.BoolVar(&po.fixedSchedule, "fixed-schedule", false, "replay --input-file on its timestamps (the default for traces)")
	fs.BoolVar(&po.noFixedSchedule, "no-fixed-schedule", false, "send a trace's requests under --concurrency or --request-rate, its timestamps ignored")
	fs.BoolVar(&po.autoOffset, "fixed-schedule-auto-offset", false, "start a replay at the trace's first timestamp (goodput's replay always does)")
	fs.IntVar(&po.scheduleStart, "fixed-schedule-start-offset", 0, "replay only the trace's rows from this timestamp (ms), sent at their time after it")
	fs.IntVar(&po.scheduleEnd, "fixed-schedule-end-offset", 0, "replay only the trace's rows up to this timestamp (ms)")
	fs.StringVar(&po.sampling, "dataset-sampling-strategy", "sequential", "order of the --input-file rows: sequential or shuffle (with --random-seed)")
	warmupFlags(po, fs)
	fs.StringArrayVar(&po.serverMetrics, "server-metrics", nil, "scrape the server's /metrics during the run (required; default: when it serves them: "+serverMetricsEngines()+"), or the one URL given, e.g. node1:8081")
	fs.BoolVar(&po.noServerMetrics, "no-server-metrics", false, "scrape no server metrics")
	fs.StringArrayVar(&po.gpuTelemetry, "gpu-telemetry", nil, "GPU energy from dcgm-exporter URLs, e.g. node1:9400 (bare: localhost:9400 and :9401, optional) or pynvml (NVML builds)")
	fs.BoolVar(&po.noGPUTelemetry, "no-gpu-telemetry", false, "no GPU telemetry (the default)")
	fs.StringVarP(&po.configFile, "config", "f", "", "AIPerf's YAML config (schemaVersion 2.0): model, endpoint, dataset, phases, artifacts, random_seed and a concurrency or rate sweep; flags given here override it")
	for _, alias := range []string{"model-names", "arrival-pattern", "vllm-burstiness", "input-tokens", "input-tokens-mean", "synthetic-input-tokens-mean",
		"prompt-input-tokens-mean", "input-tokens-stddev", "synthetic-input-tokens-stddev", "prompt-input-tokens-stddev",
		"output-tokens", "output-tokens-mean", "prompt-output-tokens-mean", "synthetic-output-tokens-mean", "output-tokens-stddev",
		"prompt-output-tokens-stddev", "synthetic-output-tokens-stddev", "num-requests", "output-artifact-dir", "output-dir", "ui",
		"endpoint", "transport-type", "prompt-prefix-pool-size", "num-prefix-prompts", "prompt-prefix-length", "num-prompts",
		"num-warmup-requests", "prompt-batch-size", "batch-size-text", "batch-size-image", "batch-size-audio",
		"num-conversations", "num-sessions", "session-turns-mean", "session-turns-stddev", "session-turn-delay-mean",
		"session-turn-delay-stddev", "session-delay-ratio", "batch-size-video", "seq-dist"} {
		_ = fs.MarkHidden(alias)
	}
}
