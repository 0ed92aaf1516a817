package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/dataset"
	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/aiperf"
	"github.com/goodput-dev/goodput/report/stats"
	"github.com/goodput-dev/goodput/reqtype"
	"github.com/goodput-dev/goodput/run"
	"github.com/goodput-dev/goodput/slo"
	"github.com/goodput-dev/goodput/sweep"
	"github.com/goodput-dev/goodput/tokenize"
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
	rateSeries                string
	userRate                  float64 // --user-centric-rate
	numUsers                  int     // --num-users
	userCentricSet            bool    // either of them given
	isl, islStddev            int
	osl, oslStddev            int
	requestCount, warmupCount int
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
	warmupDuration         float64
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
	fs.StringVar(&po.concurrency, "concurrency", "", "concurrent requests; a comma list (4,8,16,32) runs one benchmark each (default 1)")
	fs.StringVar(&po.requestRate, "request-rate", "", "requests per second, open loop; a comma list runs one benchmark each (--concurrency is then the in-flight cap)")
	fs.StringVar(&po.rateMode, "request-rate-mode", "poisson", "arrival pattern of --request-rate: poisson, constant or gamma (alias --arrival-pattern)")
	fs.StringVar(&po.rateMode, "arrival-pattern", "poisson", "alias of --request-rate-mode")
	fs.Float64Var(&po.smoothness, "arrival-smoothness", 1, "gamma shape of --arrival-pattern gamma: 1 poisson, < 1 burstier, > 1 smoother (alias --vllm-burstiness)")
	fs.Float64Var(&po.smoothness, "vllm-burstiness", 1, "alias of --arrival-smoothness")
	fs.Float64Var(&po.rateRamp, "request-rate-ramp-duration", 0, "seconds over which the request rate ramps linearly up to --request-rate, from AIPerf's start of rate × 0.1 s ÷ duration")
	fs.Float64Var(&po.concRamp, "concurrency-ramp-duration", 0, "seconds over which --concurrency streams start, one more every duration ÷ concurrency (closed loop)")
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
	for _, n := range oslStddevFlags {
		fs.IntVar(&po.oslStddev, n, 0, "standard deviation of the output length (aliases --output-tokens-stddev, --prompt-output-tokens-stddev)")
	}
	fs.IntVar(&po.requestCount, "request-count", 0, "requests per benchmark, warmup excluded (default without --benchmark-duration: max(10, 2×concurrency); alias --num-requests)")
	fs.IntVar(&po.requestCount, "num-requests", 0, "alias of --request-count")
	fs.IntVar(&po.warmupCount, "warmup-request-count", 0, "requests sent first and left out of the metrics, per benchmark (needs a request count)")
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
	fs.BoolVar(&po.legacyMaxTokens, "use-legacy-max-tokens", false, "send max_tokens instead of max_completion_tokens")
	fs.BoolVar(&po.useServerTokenCount, "use-server-token-count", false, "sequence lengths in the AIPerf export from the server's usage counts (default: the client's counts when known)")
	fs.StringVar(&po.ui, "ui-type", "simple", "progress display: dashboard or simple (progress lines) or none (alias --ui)")
	fs.StringVar(&po.ui, "ui", "simple", "alias of --ui-type")
	failureFlags(&po.failures, fs)
	wideFlag(&po.wide, fs)
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
	fs.Float64Var(&po.warmupDuration, "warmup-duration", 0, "seconds at the start of each benchmark left out of the metrics (added to --benchmark-duration)")
	fs.StringArrayVar(&po.serverMetrics, "server-metrics", nil, "scrape the server's /metrics during the run (required; default: when it serves vLLM or SGLang metrics), or the one URL given, e.g. node1:8081")
	fs.BoolVar(&po.noServerMetrics, "no-server-metrics", false, "scrape no server metrics")
	fs.StringArrayVar(&po.gpuTelemetry, "gpu-telemetry", nil, "GPU energy from dcgm-exporter URLs, e.g. node1:9400 (bare: localhost:9400 and :9401, optional) or pynvml (NVML builds)")
	fs.BoolVar(&po.noGPUTelemetry, "no-gpu-telemetry", false, "no GPU telemetry (the default)")
	fs.IntVar(&po.warmupCount, "num-warmup-requests", 0, "alias of --warmup-request-count")
	fs.StringVarP(&po.configFile, "config", "f", "", "AIPerf's YAML config (schemaVersion 2.0): model, endpoint, dataset, phases, artifacts, random_seed and a concurrency or rate sweep; flags given here override it")
	for _, alias := range []string{"model-names", "arrival-pattern", "vllm-burstiness", "input-tokens", "input-tokens-mean", "synthetic-input-tokens-mean",
		"prompt-input-tokens-mean", "input-tokens-stddev", "synthetic-input-tokens-stddev", "prompt-input-tokens-stddev",
		"output-tokens", "output-tokens-mean", "prompt-output-tokens-mean", "synthetic-output-tokens-mean", "output-tokens-stddev",
		"prompt-output-tokens-stddev", "synthetic-output-tokens-stddev", "num-requests", "output-artifact-dir", "output-dir", "ui",
		"endpoint", "transport-type", "prompt-prefix-pool-size", "num-prefix-prompts", "prompt-prefix-length", "num-prompts",
		"num-warmup-requests", "prompt-batch-size", "batch-size-text", "batch-size-image", "batch-size-audio",
		"num-conversations", "num-sessions", "session-turns-mean", "session-turns-stddev", "session-turn-delay-mean",
		"session-turn-delay-stddev", "session-delay-ratio", "batch-size-video"} {
		_ = fs.MarkHidden(alias)
	}
}

// conversationFlags registers AIPerf's conversation flags (synthetic
// sessions: turns=N and the think time between turns).
func conversationFlags(po *profileOptions, fs *pflag.FlagSet) {
	for _, n := range conversationNumFlags {
		fs.IntVar(&po.conversations, n, 0, "conversations per benchmark, each sent once (the synthetic data's sessions; aliases --num-conversations, --num-sessions)")
	}
	for _, n := range turnFlags {
		fs.IntVar(&po.turns, n, 1, "turns of each synthetic conversation, the history sent with each turn (synthetic turns=N; alias --session-turns-mean)")
	}
	for _, n := range turnStddevFlags {
		fs.IntVar(&po.turnsStddev, n, 0, "0 only: goodput's synthetic conversations all have --conversation-turn-mean turns")
	}
	for _, n := range turnDelayFlags {
		fs.Float64Var(&po.turnDelay, n, 0, "think time in milliseconds before each later turn (synthetic delay, in seconds; for --input-file, the turns without a delay of their own)")
	}
	for _, n := range turnDelayStddevFlags {
		fs.Float64Var(&po.turnDelayStddev, n, 0, "standard deviation of the think time in milliseconds (synthetic delay_stdev)")
	}
	for _, n := range turnDelayRatioFlags {
		fs.Float64Var(&po.turnDelayRatio, n, 1, "multiplies the think time of --conversation-turn-delay-mean and -stddev (0: no think time)")
	}
	fs.StringVar(&po.sessionHeader, "session-header", "", "send each conversation's stable id in this header (e.g. x-session-id), for session-affinity routers (benchmark's --session-header)")
	fs.IntVar(&po.userContext, "user-context-prompt-length", 0, "tokens of a context prompt per dataset entry, sent as its system message (synthetic prefix_count=--num-dataset-entries, prefix_tokens=N)")
}

var (
	conversationNumFlags = []string{"conversation-num", "num-conversations", "num-sessions"}
	turnFlags            = []string{"conversation-turn-mean", "session-turns-mean"}
	turnStddevFlags      = []string{"conversation-turn-stddev", "session-turns-stddev"}
	turnDelayFlags       = []string{"conversation-turn-delay-mean", "session-turn-delay-mean"}
	turnDelayStddevFlags = []string{"conversation-turn-delay-stddev", "session-turn-delay-stddev"}
	turnDelayRatioFlags  = []string{"conversation-turn-delay-ratio", "session-delay-ratio"}
)

// conversations reads AIPerf's conversation flags: synthetic sessions
// into spec (nil for an --input-file, whose records are the
// conversations: then only the think time of turns without a delay of
// their own applies, in po.fileSession).
func (po *profileOptions) conversation(fs *pflag.FlagSet, spec *dataset.Spec) error {
	given := func(names []string) bool { return fs != nil && changedAlias(fs, names) != "" }
	delayGiven := given(turnDelayFlags) || given(turnDelayStddevFlags) || given(turnDelayRatioFlags)
	switch {
	case po.conversations < 0:
		return usagef("--%s %d: want a number of conversations ≥ 1", usedAlias(fs, conversationNumFlags), po.conversations)
	case po.turns < 1 || po.turns > 1024:
		return usagef("--%s %d: want 1 to 1024 turns", usedAlias(fs, turnFlags), po.turns)
	case po.turnsStddev != 0:
		return usagef("--%s %d: not supported: goodput's synthetic conversations all have --conversation-turn-mean turns (give 0)", usedAlias(fs, turnStddevFlags), po.turnsStddev)
	}
	for _, d := range []struct {
		flags []string
		v     float64
	}{{turnDelayFlags, po.turnDelay}, {turnDelayStddevFlags, po.turnDelayStddev}, {turnDelayRatioFlags, po.turnDelayRatio}} {
		if d.v < 0 || math.IsNaN(d.v) || math.IsInf(d.v, 0) || d.v*max(1, po.turnDelayRatio) > 86_400_000 {
			return usagef("--%s %v: want a number ≥ 0 (think times in milliseconds, at most a day)", usedAlias(fs, d.flags), d.v)
		}
	}
	delay := dataset.DelayDist{Mean: po.turnDelay * po.turnDelayRatio / 1000, Stdev: po.turnDelayStddev * po.turnDelayRatio / 1000}
	if spec == nil {
		switch {
		case po.conversations > 0 || po.turns > 1 || po.userContext > 0:
			n := usedAlias(fs, conversationNumFlags)
			if po.turns > 1 {
				n = usedAlias(fs, turnFlags)
			} else if po.userContext > 0 {
				n = "user-context-prompt-length"
			}
			return usagef("--%s: shapes synthetic conversations; an --input-file's records are its conversations", n)
		case delayGiven && slices.Contains(aiperfTraceTypes, po.datasetType):
			return usagef("--conversation-turn-delay-mean: a trace's turns are due at its timestamps")
		case delayGiven && po.turnDelayRatio != 1:
			return usagef("--conversation-turn-delay-ratio %v: not supported with --input-file: goodput does not scale the file's own delays", po.turnDelayRatio)
		}
		po.fileSession.Delay = delay
		return nil
	}
	if delayGiven && po.turns < 2 && delay.Set() {
		return usagef("--%s: think time is between turns: give --conversation-turn-mean ≥ 2", usedAlias(fs, turnDelayFlags))
	}
	if po.turns > 1 {
		spec.Session.Turns, spec.Session.Delay = po.turns, delay
	}
	if po.userContext != 0 {
		switch {
		case po.userContext < 0:
			return usagef("--user-context-prompt-length %d: want a token count ≥ 1", po.userContext)
		case po.numEntries == 0:
			return usagef("--user-context-prompt-length needs --num-dataset-entries (one context prompt per entry, as in AIPerf)")
		case spec.PrefixCount > 0:
			return usagef("--user-context-prompt-length and --shared-system-prompt-length/--prefix-prompt-length: give one (goodput sends one system prefix per request)")
		}
		spec.PrefixCount, spec.PrefixTokens = po.numEntries, po.userContext
	}
	return nil
}

// mediaFlags registers AIPerf's synthetic image, audio and video flags
// (the synthetic data's image_*, audio_* and video_* keys).
func mediaFlags(po *profileOptions, fs *pflag.FlagSet) {
	fs.Float64Var(&po.imageWidth, "image-width-mean", 0, "width in pixels of the synthetic images sent with each request (with --image-height-mean; synthetic image_width)")
	fs.Float64Var(&po.imageWidthStddev, "image-width-stddev", 0, "0 only: goodput's synthetic images all have one size")
	fs.Float64Var(&po.imageHeight, "image-height-mean", 0, "height in pixels of the synthetic images (synthetic image_height)")
	fs.Float64Var(&po.imageHeightStddev, "image-height-stddev", 0, "0 only: goodput's synthetic images all have one size")
	for _, n := range []string{"image-batch-size", "batch-size-image"} {
		fs.IntVar(&po.imageBatch, n, 1, "images per request when --image-width-mean and --image-height-mean are given; 0: none (synthetic image_count; alias --batch-size-image)")
	}
	fs.StringVar(&po.imageFormat, "image-format", "png", "png or jpeg (synthetic image_format)")
	for _, n := range []string{"audio-batch-size", "batch-size-audio"} {
		fs.IntVar(&po.audioBatch, n, 1, "audio clips per request when --audio-length-mean is given; 0: none (synthetic audio_count; alias --batch-size-audio)")
	}
	fs.Float64Var(&po.audioLength, "audio-length-mean", 0, "seconds of each synthetic audio clip, a whole number (synthetic audio_seconds)")
	fs.Float64Var(&po.audioLengthStddev, "audio-length-stddev", 0, "0 only: goodput's synthetic clips all have one length")
	fs.StringVar(&po.audioFormat, "audio-format", "wav", "wav only (16-bit PCM)")
	fs.Var(listValue{&po.audioDepths}, "audio-depths", "16 only: goodput's clips are 16-bit PCM")
	fs.Var(listValue{&po.audioRates}, "audio-sample-rates", "the clips' sample rate in kHz, one value (default 16; synthetic audio_sample_rate)")
	fs.IntVar(&po.audioChannels, "audio-num-channels", 1, "1 only: goodput's clips are mono")
	fs.IntVar(&po.videoWidth, "video-width", 0, "synthetic video in every request (with --video-height): frame width in pixels; a Motion-JPEG AVI sent as a video_url part (chat)")
	fs.IntVar(&po.videoHeight, "video-height", 0, "synthetic video frame height in pixels (with --video-width)")
	fs.IntVar(&po.videoFPS, "video-fps", 4, "synthetic video frames per second")
	fs.Float64Var(&po.videoDuration, "video-duration", 5, "synthetic video length in seconds")
	for _, n := range videoBatchFlags {
		fs.IntVar(&po.videoBatch, n, 1, "synthetic videos per request (alias --batch-size-video)")
	}
}

// mediaFlagNames are the flags mediaFlags registers, for messages.
var mediaFlagNames = []string{"image-width-mean", "image-width-stddev", "image-height-mean", "image-height-stddev", "image-batch-size", "batch-size-image",
	"image-format", "audio-batch-size", "batch-size-audio", "audio-length-mean", "audio-length-stddev", "audio-format", "audio-depths", "audio-sample-rates", "audio-num-channels"}

// media reads AIPerf's image and audio flags into the synthetic spec.
// AIPerf draws sizes and lengths from a normal distribution; goodput's
// synthetic media have one size and length, so a nonzero stddev is
// refused, as are the encodings goodput does not write (mp3, other bit
// depths, stereo, several sample rates).
func (po *profileOptions) media(fs *pflag.FlagSet, spec *dataset.Spec) error {
	changed := func(n string) bool { return fs != nil && fs.Changed(n) }
	whole := func(flag string, v float64, limit int) (int, error) {
		if v < 0 || v != math.Trunc(v) || v > float64(limit) {
			return 0, usagef("--%s %v: want a whole number from 0 to %d", flag, v, limit)
		}
		return int(v), nil
	}
	for _, sd := range []struct {
		flag, why string
		v         float64
	}{{"image-width-stddev", "images all have one size", po.imageWidthStddev}, {"image-height-stddev", "images all have one size", po.imageHeightStddev},
		{"audio-length-stddev", "clips all have one length", po.audioLengthStddev}} {
		if sd.v != 0 {
			return usagef("--%s %v: not supported: goodput's synthetic %s (give 0)", sd.flag, sd.v, sd.why)
		}
	}
	w, err := whole("image-width-mean", po.imageWidth, 8192)
	if err != nil {
		return err
	}
	h, err := whole("image-height-mean", po.imageHeight, 8192)
	if err != nil {
		return err
	}
	switch {
	case (w > 0) != (h > 0):
		return usagef("--image-width-mean and --image-height-mean: give both, e.g. 512 and 512")
	case po.imageBatch < 0 || po.imageBatch > 16:
		return usagef("--image-batch-size %d: want 0 to 16 images per request", po.imageBatch)
	case po.imageFormat != "png" && po.imageFormat != "jpeg":
		return usagef("--image-format %s: want png or jpeg (goodput's synthetic images have one format)", po.imageFormat)
	case w == 0 && (changed("image-format") || changed("image-batch-size") || changed("batch-size-image")) && po.imageBatch > 0:
		return usagef("--image-batch-size and --image-format need --image-width-mean and --image-height-mean")
	case w > 0 && po.imageBatch > 0:
		spec.Media.ImageWidth, spec.Media.ImageHeight, spec.Media.ImageCount = w, h, po.imageBatch
		if po.imageFormat != "png" {
			spec.Media.ImageFormat = po.imageFormat
		}
	}
	secs, err := whole("audio-length-mean", po.audioLength, 3600)
	if err != nil {
		return usagef("--audio-length-mean %v: want whole seconds from 0 to 3600 (goodput's synthetic clips last whole seconds)", po.audioLength)
	}
	rate := 0
	switch {
	case len(po.audioRates) > 1:
		return usagef("--audio-sample-rates %s: not supported: goodput's synthetic clips have one sample rate (give one value in kHz)", strings.Join(po.audioRates, " "))
	case len(po.audioRates) == 1:
		khz, err := strconv.ParseFloat(po.audioRates[0], 64)
		hz := khz * 1000
		if err != nil || hz != math.Trunc(hz) || hz < 1000 || hz > 192000 {
			return usagef("--audio-sample-rates %s: want one rate in kHz from 1 to 192, e.g. 16 or 44.1", po.audioRates[0])
		}
		rate = int(hz)
	}
	switch {
	case po.audioFormat != "wav":
		return usagef("--audio-format %s: not supported: goodput's synthetic clips are WAV (wav)", po.audioFormat)
	case len(po.audioDepths) > 0 && (len(po.audioDepths) > 1 || po.audioDepths[0] != "16"):
		return usagef("--audio-depths %s: not supported: goodput's synthetic clips are 16-bit PCM (16)", strings.Join(po.audioDepths, " "))
	case po.audioChannels != 1:
		return usagef("--audio-num-channels %d: not supported: goodput's synthetic clips are mono (1)", po.audioChannels)
	case po.audioBatch < 0 || po.audioBatch > 16:
		return usagef("--audio-batch-size %d: want 0 to 16 clips per request", po.audioBatch)
	case secs == 0 && (rate > 0 || changed("audio-batch-size") || changed("batch-size-audio")) && po.audioBatch > 0:
		return usagef("--audio-batch-size and --audio-sample-rates need --audio-length-mean (seconds)")
	case secs > 0 && po.audioBatch > 0:
		spec.Media.AudioSeconds, spec.Media.AudioCount, spec.Media.AudioSampleRate = secs, po.audioBatch, rate
	}
	return nil
}

var batchFlags = []string{"prompt-batch-size", "batch-size-text", "batch-size"}

var prefixPoolFlags = []string{"prefix-prompt-pool-size", "prompt-prefix-pool-size", "num-prefix-prompts"}

var prefixLengthFlags = []string{"prefix-prompt-length", "prompt-prefix-length"}

func runProfile(ctx context.Context, e *env, args []string) error {
	var po profileOptions
	p, lay, slos, err := po.setup(e, args)
	if err != nil {
		return err
	}
	tokName := po.tokenizer
	_, runErr := run.Run(ctx, p.runConfig(), run.Env{Stdout: e.stdout, Stderr: e.stderr, Getenv: e.getenv})
	var noSuccess *run.NoSuccessError
	if runErr != nil && !errors.Is(runErr, errInterrupted) && !errors.As(runErr, &noSuccess) {
		return runErr
	}
	if _, err := os.Stat(lay.report); err != nil && runErr != nil {
		return runErr // interrupted before any benchmark finished: nothing to export
	}
	rep, err := report.Read(lay.report)
	if err != nil {
		return fmt.Errorf("reading back the run's report for the AIPerf export: %w", err)
	}
	opts := aiperf.Options{
		GoodputVersion: version, SLOs: slos, CLICommand: profileCommand("goodput profile", args),
		ArtifactDir: lay.target.Dir, Tokenizer: tokName,
	}
	switch {
	case po.useServerTokenCount:
		opts.TokenCounts = aiperf.TokensServer
	case tokName != "":
		opts.TokenCounts = aiperf.TokensClient // AIPerf's default: its tokenizer's counts
	}
	paths, _, err := run.WriteAIPerf(rep, lay.records, lay.target, opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "wrote %s\n", strings.Join(paths, ", "))
	if errors.Is(runErr, errInterrupted) {
		return runErr
	}
	return afterRun(e.stderr, rep, runErr, p.maxErrorRate)
}

// setup parses AIPerf's command line into the run's plan, its output
// layout and the AIPerf SLOs, everything a profile run needs before the
// load.
func (po *profileOptions) setup(e *env, args []string) (*plan, *profileLayout, []slo.AIPerfThreshold, error) {
	fs := newFlagSet("profile", "profile --model M [--url URL] [--concurrency 4,8 | --request-rate 2,4] [flags]  (AIPerf's flags)", e.stdout)
	profileFlags(po, fs)
	parsed, err := aiperfArgs(args)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := parseFlags(fs, parsed); err != nil {
		return nil, nil, nil, err
	}
	if fs.NArg() > 0 {
		return nil, nil, nil, usagef("unexpected argument %q (see 'goodput profile --help')", fs.Arg(0))
	}
	if po.configFile != "" {
		if err := po.readAIPerfConfig(fs, po.configFile, e.getenv); err != nil {
			return nil, nil, nil, err
		}
	}
	if t, ok := reqtype.ByAIPerf(po.endpointType); po.apiKey == "" && ok && t.KeyEnv != "" {
		po.apiKey = e.getenv(t.KeyEnv)
	}
	if po.apiKey == "" {
		po.apiKey = e.getenv("OPENAI_API_KEY")
	}
	p, lay, err := po.plan(fs, e.getenv)
	if err != nil {
		return nil, nil, nil, err
	}
	slos, err := slo.ParseAIPerfGoodput(po.goodput...)
	if err != nil {
		return nil, nil, nil, usagef("%v", err)
	}
	p.slo = slo.Default()
	if rt, ok := p.client.Endpoint.Type(); ok {
		p.slo = slo.DefaultFor(rt, po.streaming) // without tokens to time: the request latency
	}
	if len(po.goodput) > 0 {
		// The same thresholds judge every benchmark in goodput's own report.
		// (AIPerf's export judges its own, longer list of tags: a tag the
		// SLO has no metric for only leaves goodput's report on its
		// default SLO, said so.)
		if sp, err := slo.AIPerfSpec(slos); err == nil {
			p.slo = sp
		} else {
			fmt.Fprintf(e.stderr, "note: --goodput: %v; goodput's own report keeps the default SLO (the AIPerf export applies --goodput)\n", oneLineErr(err))
		}
	}
	if err := po.finish(p); err != nil {
		return nil, nil, nil, err
	}
	if err := po.failures.apply(fs, p); err != nil {
		return nil, nil, nil, err
	}
	return p, lay, slos, nil
}

// profileLayout says where a profile run writes its files.
type profileLayout struct {
	report  string // goodput's report (JSON); its CSV and JSON Lines beside it
	records string // goodput's JSON Lines records
	target  run.AIPerfTarget
}

// plan checks AIPerf's flags and builds the run's plan from them, with the
// benchmark command's defaults for what AIPerf has no flag for. Errors
// name the profile's own flags.
func (po *profileOptions) plan(fs *pflag.FlagSet, getenv func(string) string) (*plan, *profileLayout, error) {
	d := &benchOptions{}
	benchFlags(d, pflag.NewFlagSet("benchmark-defaults", pflag.ContinueOnError))
	p := &plan{labels: map[string]string{}, getenv: getenv, meta: d.meta, samples: d.sampleRequests, seed: d.seed}
	p.progress = run.Progress{LogFormat: d.logFormat, Interval: d.progressInterval}
	p.telDefaults, p.shardDefaults = d.tel, d.shard
	// Every round waits for an idle server, as the benchmark's do.
	p.drain, _ = d.drain.drain(0, false)
	var err error
	if fs.Changed("random-seed") {
		p.seed = po.seed
	}
	p.client = loadgen.ClientConfig{APIKey: po.apiKey, NoStream: !po.streaming,
		// AIPerf sends no ignore_eos unless asked (--extra-inputs ignore_eos:true).
		NoIgnoreEOS: true, ConnectTimeout: d.connectTimeout, StallTimeout: d.stallTimeout, RequestTimeout: d.requestTimeout}
	if err := po.servers(p); err != nil {
		return nil, nil, err
	}
	if len(p.client.Targets) == 1 {
		p.client.Targets = nil
	}
	if len(p.client.Models) == 1 {
		p.client.Models = nil
	}
	rt, ok := reqtype.ByAIPerf(po.endpointType)
	switch {
	case ok:
		p.client.Endpoint = loadgen.Endpoint(rt.Path)
	case po.endpointType == "nim_rankings":
		return nil, nil, usagef("--endpoint-type nim_rankings: NIM's ranking body ({\"query\":{\"text\"},\"passages\":[…]}) is not one goodput sends: use cohere_rankings (/v1/rerank) or hf_tei_rankings (/rerank)")
	default:
		return nil, nil, usagef("--endpoint-type %q: goodput profile supports %s", po.endpointType, reqtype.Names(profileType, func(t *reqtype.Type) string { return t.AIPerf }, "and"))
	}
	if po.legacyMaxTokens && (len(rt.MaxTokens) == 0 || rt.MaxTokensFixed) {
		return nil, nil, usagef("--use-legacy-max-tokens: only for --endpoint-type chat and completions")
	}
	if h := po.sessionHeader; h != "" && strings.Trim(h, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") != "" {
		return nil, nil, usagef("--session-header %q: want a header name such as x-session-id", h)
	}
	p.client.SessionHeader = po.sessionHeader
	if po.legacyMaxTokens {
		p.client.MaxTokensField = "max_tokens"
	}
	if e := po.customEndpoint; e != "" {
		if !strings.HasPrefix(e, "/") || strings.ContainsAny(e, "?# ") {
			return nil, nil, usagef("--custom-endpoint %q: want a path like /v1/custom", e)
		}
		p.client.Path = e
	}
	endpointFromURLs(p)
	if po.transport != "http" {
		return nil, nil, usagef("--transport %q: goodput profile speaks http only", po.transport)
	}
	po.userCentricSet = fs.Changed("user-centric-rate") || fs.Changed("num-users")
	concs, rates, err := po.loads(p)
	if err != nil {
		return nil, nil, err
	}
	if err := po.dataSpec(fs, p); err != nil {
		return nil, nil, err
	}
	if err := po.pooling(fs, p); err != nil {
		return nil, nil, err
	}
	if err := po.limits(fs, p, concs, rates); err != nil {
		return nil, nil, err
	}
	if err := po.request(fs, p); err != nil {
		return nil, nil, err
	}
	if err := po.runs(fs, p, max(len(concs), len(rates))); err != nil {
		return nil, nil, err
	}
	lay, err := po.layout(len(rates) > 0, concs, rates)
	if err != nil {
		return nil, nil, err
	}
	p.files = run.Outputs{Path: lay.report, Dir: d.outputDir, Force: true, Wide: po.wide} // AIPerf overwrites its artifacts
	p.outputs = map[string]bool{"json": true, "csv": true, "jsonl": true, "console": true}
	return p, lay, nil
}

// servers reads AIPerf's --url and --model lists and their strategies
// into the client: several servers are benchmark's --target A,B with
// --target-selection, several models its --model a,b with
// --model-selection-strategy.
func (po *profileOptions) servers(p *plan) error {
	urls := po.urls
	if len(urls) == 0 {
		urls = []string{"localhost:8000"}
	}
	for _, u := range urls {
		if !strings.Contains(u, "://") {
			u = "http://" + u
		}
		p.client.Targets = append(p.client.Targets, u)
	}
	p.client.Target = p.client.Targets[0]
	switch po.urlStrategy {
	case loadgen.TargetRoundRobin, loadgen.TargetLeastInFlight:
		if po.urlStrategy != loadgen.TargetRoundRobin {
			p.client.TargetSelection = po.urlStrategy
		}
	default:
		return usagef("--url-strategy %q: want round_robin or least_in_flight", po.urlStrategy)
	}
	models, weights, err := loadgen.ParseModels(strings.Join(po.models, ","))
	switch {
	case err != nil:
		return usagef("--model: %v", err)
	case len(models) == 0:
		return usagef("--model is required, e.g. --model Qwen/Qwen3-0.6B")
	}
	p.client.Model, p.client.Models, p.client.ModelWeights = models[0], models, weights
	switch s := po.modelSelection; {
	case s != loadgen.ModelRoundRobin && s != loadgen.ModelRandom && s != loadgen.ModelWeighted:
		return usagef("--model-selection-strategy %q: want round_robin or random (or weighted, with weights: --model a:0.6,b:0.4)", s)
	case (s == loadgen.ModelWeighted) != (weights != nil):
		return usagef("--model-selection-strategy %s: weights (--model a:0.6,b:0.4) go with weighted, and weighted needs them", s)
	case s != loadgen.ModelRoundRobin:
		p.client.ModelSelection, p.client.ModelSeed = s, uint64(p.seed)
	}
	return nil
}

// loads reads --concurrency, --request-rate and --request-rate-mode into
// the plan's rounds: one benchmark per value.
func (po *profileOptions) loads(p *plan) (concs, rates []float64, err error) {
	if concs, err = parseProfileConcurrency(po.concurrency); err != nil {
		return nil, nil, err
	}
	if rates, err = parseProfileRates(po.requestRate); err != nil {
		return nil, nil, err
	}
	if po.rateMode != "poisson" && po.rateMode != "constant" && po.rateMode != "gamma" {
		return nil, nil, usagef("--request-rate-mode %q: goodput profile supports poisson, constant and gamma", po.rateMode)
	}
	if err := po.validateArrival(rates, concs); err != nil {
		return nil, nil, err
	}
	var list sweep.List
	switch {
	case po.userCentricSet:
		return po.userCentric(p, rates, concs)
	case po.replay():
		// The trace's own schedule: the round is built once the data is
		// open (finish).
		if len(rates) > 0 || po.rateSeries != "" || len(concs) > 1 {
			return nil, nil, usagef("--fixed-schedule replays the trace's timestamps: give no --request-rate, --request-rate-series or --concurrency list")
		}
		p.replay = true
		p.profile = report.Profile{Kind: string(loadgen.Replay), TimeScale: 1}
		if len(concs) == 1 {
			p.profile.MaxConcurrency = int(concs[0]) // the in-flight cap
		}
		return concs, nil, nil
	case po.rateSeries != "":
		s, err := po.seriesStrategy(concs, p)
		if err != nil {
			return nil, nil, err
		}
		list = sweep.List{s}
		p.profile = report.Profile{Kind: string(s.Kind), MaxConcurrency: s.MaxConcurrency, Rate: []float64{s.MeanRate()}}
		rates = []float64{s.MeanRate()}
	case len(rates) > 0:
		if len(concs) > 1 {
			return nil, nil, usagef("--concurrency %q: with --request-rate it is the in-flight cap, one value", po.concurrency)
		}
		maxConc := 0
		if len(concs) == 1 {
			maxConc = int(concs[0])
		}
		p.profile = report.Profile{Kind: string(po.kind()), MaxConcurrency: maxConc, Rate: rates}
		for _, r := range rates {
			list = append(list, po.shape(loadgen.Strategy{Kind: po.kind(), Rate: r, MaxConcurrency: maxConc, Seed: uint64(p.seed)}))
		}
	default:
		if len(concs) == 0 {
			concs = []float64{1}
		}
		p.profile = report.Profile{Kind: string(loadgen.Concurrent), RampupDuration: po.concRamp}
		for _, c := range concs {
			list = append(list, po.shape(loadgen.Strategy{Kind: loadgen.Concurrent, Streams: int(c)}))
			p.profile.Streams = append(p.profile.Streams, int(c))
		}
	}
	for _, s := range list {
		if err := s.Validate(); err != nil && len(s.Series) > 0 {
			return nil, nil, usagef("--request-rate-series %s: %v", po.rateSeries, err)
		} else if err != nil {
			return nil, nil, usagef("--request-rate-mode %s: %v", po.rateMode, err)
		}
	}
	p.planner = list
	return concs, rates, nil
}

// userCentric reads --user-centric-rate and --num-users into one
// user-centric benchmark.
func (po *profileOptions) userCentric(p *plan, rates, concs []float64) ([]float64, []float64, error) {
	switch {
	case !(po.userRate > 0) || math.IsInf(po.userRate, 0) || po.numUsers < 1:
		return nil, nil, usagef("--user-centric-rate %v --num-users %d: want a rate > 0 (requests per second) and users ≥ 1, both given", po.userRate, po.numUsers)
	case len(rates) > 0 || po.rateSeries != "" || po.replay():
		return nil, nil, usagef("--user-centric-rate: give no --request-rate, --request-rate-series or --fixed-schedule with it (AIPerf's rule)")
	case len(concs) > 0 || po.rateRamp > 0 || po.concRamp > 0:
		return nil, nil, usagef("--user-centric-rate: each user has at most one request in flight and paces itself; --concurrency and the ramps do not apply")
	}
	s := loadgen.Strategy{Kind: loadgen.UserCentric, Rate: po.userRate, Streams: po.numUsers}
	if err := s.Validate(); err != nil {
		return nil, nil, usagef("--user-centric-rate: %v", err)
	}
	p.planner = sweep.List{s}
	p.profile = report.Profile{Kind: report.StrategyConstant, Rate: []float64{po.userRate}, MaxConcurrency: po.numUsers}
	return nil, []float64{po.userRate}, nil
}

// validateArrival checks AIPerf's arrival flags: gamma's smoothness, the
// ramps and the rate series.
func (po *profileOptions) validateArrival(rates, concs []float64) error {
	switch {
	case !(po.smoothness > 0) || math.IsInf(po.smoothness, 0):
		return usagef("--arrival-smoothness %v: want a gamma shape > 0 (1 poisson, < 1 burstier, > 1 smoother)", po.smoothness)
	case po.smoothness != 1 && po.rateMode != "gamma":
		return usagef("--arrival-smoothness %v: needs --arrival-pattern gamma", po.smoothness)
	case po.rateRamp < 0 || math.IsNaN(po.rateRamp) || math.IsInf(po.rateRamp, 0):
		return usagef("--request-rate-ramp-duration %v: want seconds > 0", po.rateRamp)
	case po.rateRamp > 0 && len(rates) == 0:
		return usagef("--request-rate-ramp-duration needs --request-rate (a series gives its own ramps)")
	case po.concRamp < 0 || math.IsNaN(po.concRamp) || math.IsInf(po.concRamp, 0):
		return usagef("--concurrency-ramp-duration %v: want seconds > 0", po.concRamp)
	case po.concRamp > 0 && (len(rates) > 0 || po.rateSeries != ""):
		return usagef("--concurrency-ramp-duration ramps closed-loop streams; an open loop's in-flight cap does not ramp (use --request-rate-ramp-duration)")
	case po.rateSeries != "" && len(rates) > 0:
		return usagef("--request-rate and --request-rate-series are mutually exclusive")
	case po.rateSeries != "" && len(concs) > 1:
		return usagef("--concurrency %v: with --request-rate-series it is the in-flight cap, one value", formatList(concs))
	}
	return nil
}

// kind is the loadgen strategy of --request-rate-mode (gamma is poisson
// with a burstiness).
func (po *profileOptions) kind() loadgen.Kind {
	if po.rateMode == "constant" {
		return loadgen.Constant
	}
	return loadgen.Poisson
}

// shape applies the smoothness and the ramps to one benchmark's strategy.
// AIPerf's rate ramp starts at rate × 0.1 s ÷ duration (its update
// interval over the ramp), its concurrency ramp adds a stream every
// duration ÷ concurrency: goodput's linear stream ramp.
func (po *profileOptions) shape(s loadgen.Strategy) loadgen.Strategy {
	if s.Kind == loadgen.Poisson && po.smoothness != 1 {
		s.Burstiness = po.smoothness
	}
	switch {
	case s.Kind == loadgen.Concurrent && po.concRamp > 0:
		s.Rampup = time.Duration(po.concRamp * float64(time.Second))
	case s.OpenLoop() && po.rateRamp > 0 && len(s.Series) == 0:
		s.Rampup = time.Duration(po.rateRamp * float64(time.Second))
		s.RampShape, s.RampFrom = loadgen.RampLinear, s.Rate*min(1, 0.1/po.rateRamp)
	}
	return s
}

// seriesStrategy reads --request-rate-series into one open-loop benchmark:
// linear between the points, then the last rate held until
// --benchmark-duration (without one the series ends the benchmark).
func (po *profileOptions) seriesStrategy(concs []float64, p *plan) (loadgen.Strategy, error) {
	b, err := os.ReadFile(po.rateSeries)
	if err != nil {
		return loadgen.Strategy{}, usagef("--request-rate-series: %v", err)
	}
	var file struct {
		Points []loadgen.RatePoint `json:"points"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		return loadgen.Strategy{}, usagef(`--request-rate-series %s: %v (want {"points":[{"time_s":0,"qps":5},…]})`, po.rateSeries, err)
	}
	series, err := loadgen.PiecewiseLinear(file.Points)
	if err != nil {
		return loadgen.Strategy{}, usagef("--request-rate-series %s: %v", po.rateSeries, err)
	}
	if last := file.Points[len(file.Points)-1]; po.duration > last.TimeS {
		series = append(series, loadgen.RateSegment{Duration: time.Duration((po.duration - last.TimeS) * float64(time.Second)), From: last.QPS, To: last.QPS})
	}
	s := loadgen.Strategy{Kind: po.kind(), Series: series, Seed: uint64(p.seed)}
	if len(concs) == 1 {
		s.MaxConcurrency = int(concs[0])
	}
	return po.shape(s), nil
}

// dataSpec reads the sequence lengths into the synthetic data spec.
func (po *profileOptions) dataSpec(fs *pflag.FlagSet, p *plan) error {
	oslGiven := fs != nil && changedAlias(fs, oslFlags) != ""
	switch {
	case po.isl < 1:
		return usagef("--%s %d: want a token count ≥ 1", usedAlias(fs, islFlags), po.isl)
	case po.islStddev < 0:
		return usagef("--%s %d: want a token count ≥ 0", usedAlias(fs, islStddevFlags), po.islStddev)
	case po.osl < 0 || (oslGiven && po.osl == 0):
		return usagef("--%s %d: want a token count ≥ 1 (leave it out to let the server decide)", usedAlias(fs, oslFlags), po.osl)
	case po.oslStddev < 0:
		return usagef("--%s %d: want a token count ≥ 0", usedAlias(fs, oslStddevFlags), po.oslStddev)
	}
	if po.oslStddev > 0 && po.osl == 0 {
		return usagef("--osl-stddev needs --osl")
	}
	if err := po.inputData(fs); err != nil || po.inputFile != "" {
		p.dataValue = po.inputFile
		if err == nil {
			err = po.conversation(fs, nil)
		}
		return err
	}
	spec := &dataset.Spec{Prompt: dataset.Dist{Mean: po.isl, Stdev: po.islStddev}}
	if po.osl > 0 {
		spec.Output = dataset.Dist{Mean: po.osl, Stdev: po.oslStddev}
	}
	if err := po.prefixes(fs, spec); err != nil {
		return err
	}
	if err := po.media(fs, spec); err != nil {
		return err
	}
	if err := po.conversation(fs, spec); err != nil {
		return err
	}
	if po.numEntries < 0 {
		return usagef("--%s %d: want a number of prompts ≥ 1", usedAlias(fs, []string{"num-dataset-entries", "num-prompts"}), po.numEntries)
	}
	spec.Samples = po.numEntries
	if err := po.video(fs, spec); err != nil {
		return err
	}
	p.synthetic = spec
	return nil
}

// profileType selects the request types goodput profile takes.
func profileType(t *reqtype.Type) bool { return t.Profile }

// endpointTypeHelp is --endpoint-type's help: AIPerf's name of each type
// profile takes, with its path.
func endpointTypeHelp() string {
	return reqtype.Names(profileType, func(t *reqtype.Type) string {
		if t.Vendor != "" {
			return t.AIPerf + " (" + t.Vendor + " " + t.Path + ")"
		}
		return t.AIPerf + " (" + t.Path + ")"
	}, "or")
}

// pooling reads the inputs per embeddings or rankings request (AIPerf's
// --batch-size and --rankings-passages-mean: benchmark's --batch-size) and
// the rankings lengths (the synthetic prompt length: goodput draws a
// rankings query and its passages from the same synthetic prompts).
func (po *profileOptions) pooling(fs *pflag.FlagSet, p *plan) error {
	ep, _ := p.client.Endpoint.Type()
	rerank := ep.Batch == "documents"
	changed := func(n string) bool { return fs != nil && fs.Changed(n) }
	batch := usedAlias(fs, batchFlags)
	switch {
	case po.batchSize < 1:
		return usagef("--%s %d: want a number of inputs ≥ 1", batch, po.batchSize)
	case po.batchSize > 1 && ep.Batch == "":
		return usagef("--%s %d: applies to --endpoint-type %s (not %s)", batch, po.batchSize,
			reqtype.Names(func(t *reqtype.Type) bool { return t.Profile && t.Batch != "" }, func(t *reqtype.Type) string { return t.AIPerf }, "and"), po.endpointType)
	}
	n := po.batchSize
	for _, f := range []string{"rankings-passages-mean", "rankings-passages-stddev", "rankings-passages-prompt-token-mean",
		"rankings-passages-prompt-token-stddev", "rankings-query-prompt-token-mean", "rankings-query-prompt-token-stddev"} {
		if changed(f) && !rerank {
			return usagef("--%s: applies to --endpoint-type cohere_rankings and hf_tei_rankings", f)
		}
	}
	if changed("rankings-passages-mean") {
		switch {
		case po.passages < 1:
			return usagef("--rankings-passages-mean %d: want a number of passages ≥ 1", po.passages)
		case changedAlias(fs, batchFlags) != "" && po.batchSize != po.passages:
			return usagef("--%s %d and --rankings-passages-mean %d: give one number of passages", batch, po.batchSize, po.passages)
		}
		n = po.passages
	}
	if po.passagesStddev != 0 {
		return usagef("--rankings-passages-stddev %d: not supported: every rankings request of goodput has --rankings-passages-mean passages (give 0)", po.passagesStddev)
	}
	if changed("rankings-passages-prompt-token-mean") || changed("rankings-passages-prompt-token-stddev") ||
		changed("rankings-query-prompt-token-mean") || changed("rankings-query-prompt-token-stddev") {
		switch {
		case po.passageTokens < 1 || po.passageStddev < 0:
			return usagef("--rankings-passages-prompt-token-mean %d, -stddev %d: want a token count ≥ 1 and a deviation ≥ 0", po.passageTokens, po.passageStddev)
		case po.queryTokens != po.passageTokens || po.queryStddev != po.passageStddev:
			return usagef("--rankings-query-prompt-token-mean %d (stddev %d) and --rankings-passages-prompt-token-mean %d (stddev %d): goodput draws the query and the passages from the same synthetic prompts: give them the same length",
				po.queryTokens, po.queryStddev, po.passageTokens, po.passageStddev)
		case p.synthetic == nil:
			return usagef("--rankings-passages-prompt-token-mean: shapes synthetic prompts, not --input-file")
		case changedAlias(fs, islFlags) != "" && (po.isl != po.passageTokens || po.islStddev != po.passageStddev):
			return usagef("--%s %d and --rankings-passages-prompt-token-mean %d: give one prompt length", usedAlias(fs, islFlags), po.isl, po.passageTokens)
		}
		p.synthetic.Prompt = dataset.Dist{Mean: po.passageTokens, Stdev: po.passageStddev}
	}
	p.client.BatchSize = n
	return nil
}

// videoBatchFlags are AIPerf's spellings of the videos per request.
var videoBatchFlags = []string{"video-batch-size", "batch-size-video"}

// videoFlags are the flags that shape the synthetic video.
var videoFlags = append([]string{"video-width", "video-height", "video-fps", "video-duration"}, videoBatchFlags...)

// video reads AIPerf's --video-* flags into the synthetic spec's video
// (dataset.MediaSpec's video_* keys): as in AIPerf, a video is sent only
// when both its width and height are given.
func (po *profileOptions) video(fs *pflag.FlagSet, spec *dataset.Spec) error {
	if po.videoWidth == 0 && po.videoHeight == 0 {
		if fs != nil {
			if n := changedAlias(fs, videoFlags); n != "" {
				return usagef("--%s needs --video-width and --video-height (AIPerf sends no video without them)", n)
			}
		}
		return nil
	}
	if po.videoWidth <= 0 || po.videoHeight <= 0 {
		return usagef("--video-width %d --video-height %d: give both, in pixels", po.videoWidth, po.videoHeight)
	}
	if po.videoBatch < 1 || po.videoFPS < 1 || !(po.videoDuration > 0) {
		return usagef("--%s %d, --video-fps %d, --video-duration %g: want at least 1 video, 1 frame a second and a length above 0",
			usedAlias(fs, videoBatchFlags), po.videoBatch, po.videoFPS, po.videoDuration)
	}
	spec.Media.VideoWidth, spec.Media.VideoHeight, spec.Media.VideoFPS = po.videoWidth, po.videoHeight, po.videoFPS
	spec.Media.VideoSeconds, spec.Media.VideoCount = po.videoDuration, po.videoBatch
	// The spec's own checks (sizes, frame counts), with its keys' names.
	if _, err := dataset.ParseSpec(spec.String()); err != nil {
		return usagef("--video-*: %v", err)
	}
	return nil
}

// prefixes reads AIPerf's prefix prompts into the synthetic spec's shared
// system prefixes: a pool of --prefix-prompt-pool-size prefixes of
// --prefix-prompt-length tokens, or one --shared-system-prompt-length
// system prompt. (AIPerf puts a pool prefix at the start of the user
// prompt and picks one at random; goodput sends it as the system message
// and uses prefix i mod N: the same shared tokens for the server's cache.)
func (po *profileOptions) prefixes(fs *pflag.FlagSet, spec *dataset.Spec) error {
	pool, length := usedAlias(fs, prefixPoolFlags), usedAlias(fs, prefixLengthFlags)
	switch {
	case po.prefixPool < 0:
		return usagef("--%s %d: want a number of prefixes ≥ 0", pool, po.prefixPool)
	case po.prefixLength < 0:
		return usagef("--%s %d: want a token count ≥ 0", length, po.prefixLength)
	case po.sharedSystemPrompt < 0:
		return usagef("--shared-system-prompt-length %d: want a token count ≥ 1", po.sharedSystemPrompt)
	case po.sharedSystemPrompt > 0 && (po.prefixPool > 0 || po.prefixLength > 0):
		return usagef("--shared-system-prompt-length and --%s/--%s are mutually exclusive (as in AIPerf)", pool, length)
	case po.prefixPool > 0 && po.prefixLength == 0:
		return usagef("--%s %d needs --%s (tokens of each prefix)", pool, po.prefixPool, length)
	case po.sharedSystemPrompt > 0:
		spec.PrefixCount, spec.PrefixTokens = 1, po.sharedSystemPrompt
	case po.prefixPool > 0:
		spec.PrefixCount, spec.PrefixTokens = po.prefixPool, po.prefixLength
	}
	return nil
}

// aiperfTraceTypes are the --custom-dataset-type values read as traces.
var aiperfTraceTypes = []string{"mooncake_trace", "burst_gpt_trace"}

// inputData checks --input-file and the flags that go with it.
func (po *profileOptions) inputData(fs *pflag.FlagSet) error {
	switch po.datasetType {
	case "", "single_turn", "multi_turn", "mooncake_trace", "burst_gpt_trace":
	case "random_pool":
		return usagef("--custom-dataset-type random_pool: a directory of prompt pools is not supported (single_turn or multi_turn JSON Lines)")
	case "dag_jsonl":
		return usagef("--custom-dataset-type dag_jsonl: AIPerf's DAG conversations (sub-agents as graph nodes) are not supported: multi_turn records, or goodput benchmark's synthetic branches")
	case "bailian_trace", "baseten_trace", "weka_trace":
		return usagef("--custom-dataset-type %s: not supported (traces: mooncake_trace, burst_gpt_trace)", po.datasetType)
	default:
		return usagef("--custom-dataset-type %q: goodput profile reads single_turn, multi_turn, mooncake_trace and burst_gpt_trace", po.datasetType)
	}
	trace := slices.Contains(aiperfTraceTypes, po.datasetType)
	switch {
	case po.datasetType != "" && po.inputFile == "":
		return usagef("--custom-dataset-type needs --input-file")
	case po.fixedSchedule && po.noFixedSchedule:
		return usagef("--fixed-schedule and --no-fixed-schedule are mutually exclusive")
	case po.fixedSchedule && !trace:
		return usagef("--fixed-schedule needs a timestamped trace: --input-file FILE --custom-dataset-type mooncake_trace or burst_gpt_trace")
	case po.autoOffset && (!trace || po.noFixedSchedule):
		return usagef("--fixed-schedule-auto-offset applies to a replayed trace (--custom-dataset-type mooncake_trace or burst_gpt_trace)")
	case po.scheduleStart < 0 || po.scheduleEnd < 0:
		return usagef("--fixed-schedule-start-offset and --fixed-schedule-end-offset: want milliseconds ≥ 0")
	case (po.scheduleStart > 0 || po.scheduleEnd > 0) && (!trace || po.noFixedSchedule):
		return usagef("--fixed-schedule-start-offset and --fixed-schedule-end-offset apply to a replayed trace (--custom-dataset-type mooncake_trace or burst_gpt_trace)")
	case po.scheduleEnd > 0 && po.scheduleEnd < po.scheduleStart:
		return usagef("--fixed-schedule-end-offset %d is before --fixed-schedule-start-offset %d", po.scheduleEnd, po.scheduleStart)
	case po.noFixedSchedule && !trace:
		return usagef("--no-fixed-schedule applies to a trace (--custom-dataset-type mooncake_trace or burst_gpt_trace)")
	case po.sampling != "sequential" && po.sampling != "shuffle" && po.sampling != "random":
		return usagef("--dataset-sampling-strategy %q: want sequential or shuffle", po.sampling)
	case po.sampling == "random":
		return usagef("--dataset-sampling-strategy random: sampling with replacement is not supported (sequential or shuffle)")
	case po.sampling == "shuffle" && po.inputFile == "":
		return usagef("--dataset-sampling-strategy shuffle: needs --input-file (synthetic prompts are random already)")
	case po.sampling == "shuffle" && trace && !po.noFixedSchedule:
		return usagef("--dataset-sampling-strategy shuffle: a replayed trace keeps its order (add --no-fixed-schedule)")
	}
	if po.inputFile == "" {
		return nil
	}
	if fs != nil {
		for _, group := range [][]string{islFlags, islStddevFlags, oslFlags, oslStddevFlags, prefixPoolFlags, prefixLengthFlags,
			{"shared-system-prompt-length"}, {"num-dataset-entries", "num-prompts"}, mediaFlagNames, videoFlags} {
			if n := changedAlias(fs, group); n != "" {
				return usagef("--%s: shapes synthetic prompts, not --input-file", n)
			}
		}
	}
	return nil
}

// replay reports whether the run replays a trace on its timestamps:
// AIPerf's fixed schedule, the default for timestamped traces.
func (po *profileOptions) replay() bool {
	return slices.Contains(aiperfTraceTypes, po.datasetType) && !po.noFixedSchedule
}

// limits reads the request count, duration, warmup and seed into the
// plan's constraints.
func (po *profileOptions) limits(fs *pflag.FlagSet, p *plan, concs, rates []float64) error {
	if po.duration < 0 || math.IsNaN(po.duration) || math.IsInf(po.duration, 0) {
		return usagef("--benchmark-duration %v: want seconds > 0", po.duration)
	}
	if po.requestCount < 0 || po.warmupCount < 0 {
		return usagef("--request-count and --warmup-request-count must be ≥ 0")
	}
	maxConc := 1
	switch {
	case len(rates) > 0 && len(concs) == 1:
		maxConc = int(concs[0])
	case len(rates) == 0 && len(concs) > 0:
		maxConc = int(slices.Max(concs))
	}
	count := po.requestCount
	if count == 0 && po.duration == 0 && po.rateSeries == "" && po.inputFile == "" && po.conversations == 0 {
		count = max(10, 2*maxConc) // AIPerf's default; a series, a file and a trace end by themselves
	}
	switch {
	case po.warmupDuration < 0 || math.IsNaN(po.warmupDuration) || math.IsInf(po.warmupDuration, 0):
		return usagef("--warmup-duration %v: want seconds > 0", po.warmupDuration)
	case po.warmupDuration > 0 && po.warmupCount > 0:
		return usagef("--warmup-duration and --warmup-request-count: give one of them")
	case po.warmupDuration > 0:
		w := po.warmupDuration
		p.warm = report.TransientPhase{Value: &w, Mode: report.PhaseDuration}
		p.warmText = strconv.FormatFloat(w, 'f', -1, 64) + "s"
		p.profile.Warmup = p.warm
	}
	if po.warmupCount > 0 {
		if count == 0 && po.inputFile == "" {
			return usagef("--warmup-request-count needs --request-count: goodput's warmup in requests is measured against the request limit")
		}
		n := float64(po.warmupCount)
		p.warm = report.TransientPhase{Value: &n, Mode: report.PhaseRequests}
		p.warmText = strconv.Itoa(po.warmupCount) + "r"
		p.profile.Warmup = p.warm
	}
	p.cons = loadgen.Constraints{MaxDuration: time.Duration(po.duration * float64(time.Second))}
	switch {
	case !(po.cancelRate >= 0 && po.cancelRate <= 100):
		return usagef("--request-cancellation-rate %v: want a percentage from 0 to 100", po.cancelRate)
	case !(po.cancelDelay >= 0) || math.IsInf(po.cancelDelay, 0):
		return usagef("--request-cancellation-delay %v: want seconds ≥ 0", po.cancelDelay)
	case po.cancelDelay > 0 && po.cancelRate == 0:
		return usagef("--request-cancellation-delay needs --request-cancellation-rate (the share of requests to cancel)")
	case po.cancelRate > 0:
		p.cons.Cancel = &loadgen.Cancellation{Rate: po.cancelRate / 100, Delay: time.Duration(po.cancelDelay * float64(time.Second)), Seed: uint64(p.seed)}
	}
	if po.gracePeriod != "" {
		g, err := gracePeriod(po.gracePeriod)
		switch {
		case err != nil:
			return err
		case po.duration == 0:
			return usagef("--benchmark-grace-period applies with --benchmark-duration (requests in flight at its end)")
		}
		p.cons.Drain = g
	}
	if po.duration > 0 && po.warmupDuration > 0 {
		p.cons.MaxDuration += time.Duration(po.warmupDuration * float64(time.Second))
	}
	if count > 0 {
		p.cons.MaxRequests = count + po.warmupCount
	}
	if n := po.conversations * po.turns; po.requestCount > n && po.conversations > 0 && po.inputFile == "" {
		p.notes = append(p.notes, fmt.Sprintf("--request-count %d is superseded by --%s %d: its %d conversations of %d turn(s) send at most %d requests, each once (AIPerf's --conversation-num counts sessions, --request-count single-turn requests)",
			po.requestCount, usedAlias(fs, conversationNumFlags), po.conversations, po.conversations, po.turns, n))
	}
	return nil
}

// runs reads the repeated runs' settings (--num-profile-runs itself is
// applied once the plan is complete, in finish), the pauses between
// benchmarks, the confidence and the time slices.
func (po *profileOptions) runs(fs *pflag.FlagSet, p *plan, benchmarks int) error {
	changed := func(n string) bool { return fs != nil && fs.Changed(n) }
	switch {
	case po.sweepMode != "repeated":
		return usagef("--parameter-sweep-mode %q: goodput runs the whole list once per run (repeated); independent is not supported", po.sweepMode)
	case !(po.confidence > 0 && po.confidence < 1):
		return usagef("--confidence-level %v: want a confidence between 0 and 1, e.g. 0.95", po.confidence)
	case po.runCooldown < 0 || po.sweepGap < 0 || math.IsNaN(po.runCooldown+po.sweepGap) || math.IsInf(po.runCooldown+po.sweepGap, 0):
		return usagef("--profile-run-cooldown-seconds %v, --parameter-sweep-cooldown-seconds %v: want seconds ≥ 0", po.runCooldown, po.sweepGap)
	case po.runCooldown > 0 && po.profileRuns < 2:
		return usagef("--profile-run-cooldown-seconds: pauses between repeated runs: give --num-profile-runs ≥ 2")
	case po.sweepGap > 0 && benchmarks < 2:
		return usagef("--parameter-sweep-cooldown-seconds: pauses between the benchmarks of a --concurrency or --request-rate list: give several values")
	case po.runCooldown > 0 && po.sweepGap > 0 && po.runCooldown != po.sweepGap:
		return usagef("--profile-run-cooldown-seconds %v and --parameter-sweep-cooldown-seconds %v: goodput pauses the same before every benchmark: give one", po.runCooldown, po.sweepGap)
	case po.sliceDuration < 0 || math.IsNaN(po.sliceDuration) || math.IsInf(po.sliceDuration, 0) || changed("slice-duration") && po.sliceDuration == 0:
		return usagef("--slice-duration %v: want seconds > 0", po.sliceDuration)
	}
	if changed("confidence-level") {
		p.confidence = po.confidence
	}
	if gap := max(po.runCooldown, po.sweepGap); gap > 0 {
		p.drain.Gap = time.Duration(gap * float64(time.Second))
	}
	p.metrics.SliceDuration = time.Duration(po.sliceDuration * float64(time.Second))
	return nil
}

// request reads the request's settings: timeout, display, headers and
// extra body fields.
func (po *profileOptions) request(fs *pflag.FlagSet, p *plan) error {
	if fs.Changed("request-timeout-seconds") {
		if !(po.requestTimeout > 0) || math.IsInf(po.requestTimeout, 0) {
			return usagef("--request-timeout-seconds %v: want seconds > 0", po.requestTimeout)
		}
		p.client.RequestTimeout = time.Duration(po.requestTimeout * float64(time.Second))
	}
	if po.ui != "dashboard" && po.ui != "simple" && po.ui != "none" {
		return usagef("--ui-type %q: want dashboard, simple or none", po.ui)
	}
	p.progress.Disable = po.ui == "none"
	for _, h := range po.headers {
		hs, err := parseAIPerfHeader(h)
		if err != nil {
			return err
		}
		if p.client.Headers == nil {
			p.client.Headers = map[string]string{}
		}
		for _, kv := range hs {
			p.client.Headers[kv[0]] = kv[1]
		}
	}
	if len(po.extraInputs) > 0 {
		body, err := parseExtraInputs(po.extraInputs)
		if err != nil {
			return err
		}
		b, err := json.Marshal(body)
		if err != nil {
			return usagef("--extra-inputs: %v", err)
		}
		p.extraBody, p.client.ExtraBody = body, string(b)
	}
	return nil
}

// finish checks what needs the server-independent resources (the target's
// form, the tokenizer, the data) and splits a sharded run.
func (po *profileOptions) finish(p *plan) error {
	for _, t := range append([]string{p.client.Target}, p.client.Targets...) {
		if _, err := loadgen.NormalizeTarget(t); err != nil {
			return usagef("--url: %v", err)
		}
	}
	if po.tokenizer != "" {
		// Exact synthetic prompt lengths and client-side token counts.
		// "builtin" is AIPerf's name for tiktoken's o200k_base.
		name := po.tokenizer
		if name == "builtin" {
			name = "o200k_base"
		}
		tok, err := tokenize.Resolve(name, tokenize.ResolveOptions{Getenv: p.getenv, Flag: "--tokenizer",
			Server: &tokenize.ServerOptions{URL: p.client.Target, Model: p.client.Model, APIKey: p.client.APIKey}})
		if err != nil {
			return usagef("%s", oneLineErr(err))
		}
		p.tokExplicit = tok
	}
	p.dataOpts = dataset.Options{Tokenizer: p.tokExplicit, Seed: uint64(p.seed), TimeScale: 1, Samples: po.conversations, Session: po.fileSession}
	var err error
	if po.inputFile != "" {
		p.dataOpts.Trace = slices.Contains(aiperfTraceTypes, po.datasetType)
		p.dataOpts.TraceStart = time.Duration(po.scheduleStart) * time.Millisecond
		p.dataOpts.TraceEnd = time.Duration(po.scheduleEnd) * time.Millisecond
		p.dataOpts.Shuffle = po.sampling == "shuffle"
		if p.data, err = dataset.Open(po.inputFile, p.dataOpts); err != nil {
			return usagef("--input-file: %s", oneLineErr(err))
		}
		if po.datasetType == "multi_turn" && p.data.Description.Sessions == 0 {
			return usagef(`--custom-dataset-type multi_turn: %s holds no conversations (want {"session_id":…,"turns":[{"text":…,"delay":ms},…]} a line)`, po.inputFile)
		}
	} else if p.data, err = dataset.OpenSynthetic(*p.synthetic, p.dataOpts); err != nil {
		return usagef("--isl/--osl: %s", oneLineErr(err))
	}
	if po.warmupCount > 0 && p.cons.MaxRequests == 0 {
		// An --input-file fixes the count: its first requests warm up.
		n := p.data.Description.Requests
		if po.warmupCount >= n {
			return usagef("--warmup-request-count %d: %s holds %d requests, and the warmup must leave some to measure", po.warmupCount, po.inputFile, n)
		}
		p.cons.MaxRequests = n
	}
	if p.replay {
		if len(p.data.Schedule) == 0 {
			return usagef("--input-file %s: no timestamps to replay (add --no-fixed-schedule to send it under --concurrency)", po.inputFile)
		}
		s := loadgen.Strategy{Kind: loadgen.Replay, Schedule: p.data.Schedule, MaxConcurrency: p.profile.MaxConcurrency}
		p.planner, p.profile.MaxConcurrency = sweep.List{s}, s.MaxConcurrency
	}
	if err := po.telemetryFlags(&p.telDefaults); err != nil {
		return err
	}
	if p.telemetry, err = p.telDefaults.config(nil); err != nil {
		return err
	}
	if p.shard, err = p.shardDefaults.resolve(p.getenv, time.Now()); err != nil {
		return err
	}
	if err := repeatPlan(p, "--num-profile-runs", po.profileRuns, "--run-variation-threshold", sweep.DefaultRunVariation); err != nil {
		return err
	}
	return p.shardRun(p.profile.Kind)
}

// telemetryFlags applies AIPerf's server-metrics and GPU telemetry flags
// to the benchmark's telemetry options.
func (po *profileOptions) telemetryFlags(o *scorecardOptions) error {
	switch {
	case po.noServerMetrics && len(po.serverMetrics) > 0:
		return usagef("--server-metrics and --no-server-metrics are mutually exclusive")
	case po.noServerMetrics:
		o.serverMetrics = []string{"off"}
	case len(po.serverMetrics) == 1 && po.serverMetrics[0] == "":
		o.serverMetrics = []string{"on"}
	case len(po.serverMetrics) > 0:
		urls := make([]string, 0, len(po.serverMetrics))
		for _, m := range po.serverMetrics {
			u, err := metricsURL(m)
			if err != nil {
				return usagef("--server-metrics %q: %v", m, err)
			}
			urls = append(urls, u)
		}
		o.serverMetrics = urls
	}
	if po.noGPUTelemetry && len(po.gpuTelemetry) > 0 {
		return usagef("--gpu-telemetry and --no-gpu-telemetry are mutually exclusive")
	}
	for _, v := range po.gpuTelemetry {
		switch {
		case v == "":
			// AIPerf's default DCGM endpoints; either may be absent.
			o.dcgmURLs = append(o.dcgmURLs, "http://localhost:9400/metrics", "http://localhost:9401/metrics")
			o.optional = true
		case v == "pynvml":
			o.nvml = true
		case v == "dashboard" || v == "amdsmi" || strings.HasSuffix(strings.ToLower(v), ".csv"):
			return usagef("--gpu-telemetry %s: not supported (dcgm-exporter URLs or pynvml)", v)
		default:
			u, err := metricsURL(v)
			if err != nil {
				return usagef("--gpu-telemetry %q: %v", v, err)
			}
			o.dcgmURLs = append(o.dcgmURLs, u)
		}
	}
	return nil
}

// metricsURL completes AIPerf's short forms of a /metrics endpoint:
// node1:9400 is http://node1:9400/metrics.
func metricsURL(s string) (string, error) {
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", errors.New("want host:port, or an http(s) URL of a /metrics endpoint")
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/metrics"
	}
	return u.String(), nil
}

// layout applies --output / --artifact-dir (see the comment at the top).
func (po *profileOptions) layout(rateMode bool, concs, rates []float64) (*profileLayout, error) {
	if po.output != "" && po.artifactDir != "" {
		return nil, usagef("--output and --artifact-dir: give one of them")
	}
	if po.output != "" {
		st, err := os.Stat(po.output)
		if !strings.HasSuffix(po.output, "/") && (err != nil || !st.IsDir()) {
			if filepath.Ext(po.output) != ".json" {
				return nil, usagef("--output %q: want the path of a .json file (or a directory)", po.output)
			}
			dir, base := filepath.Dir(po.output), filepath.Base(po.output)
			stem := strings.TrimSuffix(base, ".json")
			rep := filepath.Join(dir, stem+".goodput.json")
			return &profileLayout{report: rep, records: strings.TrimSuffix(rep, ".json") + ".jsonl",
				target: run.AIPerfTarget{Dir: dir, Base: base, Single: po.output}}, nil
		}
		po.artifactDir = po.output
	}
	dir := po.artifactDir
	if dir == "" { // AIPerf's auto-name, e.g. Qwen_Qwen3-0.6B-openai-chat-concurrency4
		var load string
		switch {
		case po.userCentricSet:
			load = "user_centric_rate" + formatList(rates)
		case rateMode && len(rates) > 1:
			load = "request_rate_sweep"
		case rateMode:
			load = "request_rate" + formatList(rates)
		case len(concs) > 1:
			load = "concurrency_sweep"
		default:
			load = "concurrency" + formatList(concs)
		}
		dir = filepath.Join("artifacts", aiperfDirName(strings.Join(po.models, ","))+"-openai-"+po.endpointType+"-"+load)
	}
	rep := filepath.Join(dir, "goodput.json")
	return &profileLayout{report: rep, records: filepath.Join(dir, "goodput.jsonl"),
		target: run.AIPerfTarget{Dir: dir, Base: "profile_export_aiperf.json"}}, nil
}

// aiperfDirName makes a model name usable in a directory name, as AIPerf
// does (Qwen/Qwen3-0.6B → Qwen_Qwen3-0.6B).
func aiperfDirName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

// listValue is one of AIPerf's list options (--url A --url B, --model
// a,b): every value adds its comma-separated items.
type listValue struct{ p *[]string }

func (v listValue) Set(s string) error {
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x == "" {
			return errors.New("want a value, or a comma list of values")
		}
		*v.p = append(*v.p, x)
	}
	return nil
}

func (v listValue) String() string {
	if v.p == nil {
		return ""
	}
	return strings.Join(*v.p, ",")
}

func (v listValue) Type() string { return "list" }

func parseProfileConcurrency(s string) ([]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []float64
	for _, part := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < 1 {
			return nil, usagef("--concurrency %q: want whole numbers ≥ 1, e.g. 4,8,16,32", s)
		}
		if slices.Contains(out, float64(n)) {
			return nil, usagef("--concurrency %q: %d is listed twice", s, n)
		}
		out = append(out, float64(n))
	}
	return out, nil
}

func parseProfileRates(s string) ([]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []float64
	for _, part := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
			return nil, usagef("--request-rate %q: want requests per second > 0, e.g. 2,4.5", s)
		}
		if slices.Contains(out, v) {
			return nil, usagef("--request-rate %q: %v is listed twice", s, v)
		}
		out = append(out, v)
	}
	return out, nil
}

// formatList writes numbers as a comma list, for names (the artifact
// directory, the run's experiment key).
func formatList(vs []float64) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strings.Join(parts, ",")
}

// parseAIPerfHeader reads AIPerf's -H forms: "Name:value" or a JSON
// object of headers; it returns name and value pairs.
func parseAIPerfHeader(h string) ([][2]string, error) {
	t := strings.TrimSpace(h)
	if strings.HasPrefix(t, "{") {
		var m map[string]string
		if err := json.Unmarshal([]byte(t), &m); err != nil {
			return nil, usagef(`--header: want "Name:value" or a JSON object of strings`)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		out := make([][2]string, 0, len(keys))
		for _, k := range keys {
			if strings.TrimSpace(k) == "" {
				return nil, usagef(`--header: want "Name:value" or a JSON object of strings`)
			}
			out = append(out, [2]string{strings.TrimSpace(k), strings.TrimSpace(m[k])})
		}
		return out, nil
	}
	k, v, ok := strings.Cut(t, ":")
	if !ok || strings.TrimSpace(k) == "" {
		return nil, usagef(`--header %q: want "Name:value"`, profileClip(h))
	}
	return [][2]string{{strings.TrimSpace(k), strings.TrimSpace(v)}}, nil
}

// parseExtraInputs merges AIPerf's --extra-inputs ("key:value" pairs,
// the value read as JSON when it is valid JSON, else as a string; or
// JSON objects) into one object.
func parseExtraInputs(items []string) (map[string]any, error) {
	m := map[string]any{}
	for _, it := range items {
		t := strings.TrimSpace(it)
		if strings.HasPrefix(t, "{") {
			var obj map[string]any
			if err := json.Unmarshal([]byte(t), &obj); err != nil {
				return nil, usagef(`--extra-inputs: want "key:value" or a JSON object`)
			}
			for k, v := range obj {
				m[k] = v
			}
			continue
		}
		k, v, ok := strings.Cut(t, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usagef(`--extra-inputs %q: want "key:value", e.g. ignore_eos:true`, profileClip(it))
		}
		var val any
		if err := json.Unmarshal([]byte(v), &val); err != nil {
			val = v
		}
		m[strings.TrimSpace(k)] = val
	}
	return m, nil
}

func profileClip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// profileCommand renders the command line for run_info.cli_command with
// secrets removed: the --api-key value and header values.
func profileCommand(prog string, args []string) string {
	out := []string{prog}
	redactNext := ""
	for _, a := range args {
		switch {
		case redactNext == "key":
			a, redactNext = "***", ""
		case redactNext == "header":
			a, redactNext = profileRedactHeader(a), ""
		case a == "--api-key":
			redactNext = "key"
		case strings.HasPrefix(a, "--api-key="):
			a = "--api-key=***"
		case a == "-H" || a == "--header":
			redactNext = "header"
		case strings.HasPrefix(a, "--header="):
			a = "--header=" + profileRedactHeader(strings.TrimPrefix(a, "--header="))
		case strings.HasPrefix(a, "-H") && len(a) > 2:
			a = "-H" + profileRedactHeader(strings.TrimPrefix(a, "-H"))
		}
		out = append(out, profileShellQuote(a))
	}
	return strings.Join(out, " ")
}

func profileRedactHeader(h string) string {
	if strings.HasPrefix(strings.TrimSpace(h), "{") {
		return "{***}"
	}
	k, _, ok := strings.Cut(h, ":")
	if !ok {
		return "***"
	}
	return k + ":***"
}

// profileShellQuote quotes an argument for a POSIX shell when it needs it.
func profileShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,:/=@+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

var islFlags = []string{"isl", "input-tokens", "input-tokens-mean", "synthetic-input-tokens-mean", "prompt-input-tokens-mean"}

var islStddevFlags = []string{"isl-stddev", "input-tokens-stddev", "synthetic-input-tokens-stddev", "prompt-input-tokens-stddev"}

var oslFlags = []string{"osl", "output-tokens", "output-tokens-mean", "prompt-output-tokens-mean", "synthetic-output-tokens-mean"}

var oslStddevFlags = []string{"osl-stddev", "output-tokens-stddev", "prompt-output-tokens-stddev", "synthetic-output-tokens-stddev"}

// changedAlias returns the name among aliases that was given on the
// command line, "" when none was.
func changedAlias(fs *pflag.FlagSet, aliases []string) string {
	for _, n := range aliases {
		if fs.Changed(n) {
			return n
		}
	}
	return ""
}

// usedAlias is the name to quote in a message about aliases: the one
// given, else the main one.
func usedAlias(fs *pflag.FlagSet, aliases []string) string {
	if fs != nil {
		if n := changedAlias(fs, aliases); n != "" {
			return n
		}
	}
	return aliases[0]
}

// endpointFromURLs takes the request path from a full --url (AIPerf's
// YAML tutorial: url: http://host:8000/v1/chat/completions): a URL whose
// path ends with the request's path is the server's base, so the path is
// not appended twice.
func endpointFromURLs(p *plan) {
	path := p.client.Path
	if path == "" {
		path = string(p.client.Endpoint)
	}
	base := func(t string) string {
		u, err := url.Parse(t)
		if err != nil || u.RawQuery != "" || !strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), path) {
			return t
		}
		u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), path)
		return u.String()
	}
	for i, t := range p.client.Targets {
		p.client.Targets[i] = base(t)
	}
	p.client.Target = base(p.client.Target)
}

// graceInf is --benchmark-grace-period inf: longer than any request.
const graceInf = 10 * 365 * 24 * time.Hour

// gracePeriod reads --benchmark-grace-period: seconds ≥ 0, or inf.
func gracePeriod(s string) (time.Duration, error) {
	if s == "inf" {
		return graceInf, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, usagef("--benchmark-grace-period %q: want seconds ≥ 0 or inf", s)
	}
	return time.Duration(f * float64(time.Second)), nil
}
