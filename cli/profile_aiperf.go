package cli

import (
	"slices"
	"strings"

	"github.com/goodput-dev/goodput/reqtype"
)

// aiperfFlag is one row of the AIPerf flag table: one option of
// `aiperf profile` with its spellings, and what `goodput profile` does
// with it. The table is the one place that says so: the flags the
// profile registers are checked against it, refused flags are refused
// from it, and README.md's "Coming from AIPerf" table is generated from
// it (TestAIPerfFlagTableInREADME). Flipping a refused row to accepted
// is a one-row change plus the flag's registration in profileFlags.
type aiperfFlag struct {
	names   []string // AIPerf's spellings, the main one first, without "--"
	maps    string   // accepted: what the value becomes in goodput's run
	refused string   // refused: the one-line reason ("" when accepted)
	list    bool     // AIPerf reads several values after it (--server-metrics a b)
}

// aiperfFlags is every option of `aiperf profile` (AIPerf's
// docs/cli-options.md, 2026), in its sections' order.
var aiperfFlags = []aiperfFlag{
	// Endpoint
	{names: []string{"model", "model-names", "m"}, maps: "the model, or a comma list of models each request picks one of (benchmark's --model a,b)"},
	{names: []string{"model-selection-strategy"}, maps: "round_robin or random, seeded by --random-seed (benchmark's --model-selection-strategy; weighted with --model a:0.6,b:0.4)"},
	{names: []string{"custom-endpoint", "endpoint"}, maps: "the request path under --url (benchmark's --request-path)"},
	{names: []string{"endpoint-type"}, maps: endpointTypeMaps()},
	{names: []string{"streaming"}, maps: "streamed responses; without it stream:false, as AIPerf (benchmark's --no-stream)"},
	{names: []string{"url", "u"}, maps: "the server (benchmark's --target); host:port gets http://; a full URL ending in the request's path (http://host/v1/chat/completions) is its server; several (repeated or a comma list) spread the requests (benchmark's --target A,B)"},
	{names: []string{"url-strategy"}, maps: "round_robin (benchmark's --target-selection; least_in_flight too)"},
	{names: []string{"request-timeout-seconds"}, maps: "the request timeout (benchmark's --request-timeout)"},
	{names: []string{"wait-for-model-timeout"}, refused: "goodput waits for /v1/models itself before the load"},
	{names: []string{"wait-for-model-mode"}, refused: "goodput waits for /v1/models itself before the load"},
	{names: []string{"wait-for-model-interval"}, refused: "goodput waits for /v1/models itself before the load"},
	{names: []string{"reset-kv-cache"}, maps: "POST /reset_prefix_cache to each --url origin before each benchmark, its warmup included; a refusal stops the run (benchmark's --reset-kv-cache)"},
	{names: []string{"reset-kv-cache-timeout-seconds"}, maps: "the reset's timeout (default the request timeout); turns the reset on"},
	{names: []string{"reset-kv-cache-path"}, maps: "the reset's path (SGLang: /flush_cache); turns the reset on"},
	{names: []string{"server-profiler"}, maps: "POST /start_profile before each measured phase (not the warmup) and /stop_profile after it; a refused start stops the run, a refused stop warns (benchmark's --server-profiler)"},
	{names: []string{"server-profiler-timeout-seconds"}, maps: "each profiler request's timeout (default the request timeout); turns the profiler on"},
	{names: []string{"server-profiler-start-path"}, maps: "the profiler's start path; turns the profiler on"},
	{names: []string{"server-profiler-stop-path"}, maps: "the profiler's stop path; turns the profiler on"},
	{names: []string{"api-key"}, maps: "Bearer key (x-api-key for messages); default $OPENAI_API_KEY"},
	{names: []string{"transport", "transport-type"}, maps: "http only (goodput's streaming HTTP client)"},
	{names: []string{"use-legacy-max-tokens"}, maps: "max_tokens instead of max_completion_tokens (benchmark's --max-tokens-field)"},
	{names: []string{"use-server-token-count"}, maps: "the AIPerf export's lengths from the server's usage counts"},
	{names: []string{"connection-reuse-strategy"}, refused: "goodput's client always pools connections"},
	{names: []string{"download-video-content"}, refused: "video generation endpoints: not supported"},
	{names: []string{"request-content-type"}, refused: "the body's form follows the endpoint type: JSON (goodput sends multipart only to audio transcriptions, an endpoint AIPerf's profile lacks)"},
	{names: []string{"session-header"}, maps: "send each conversation's stable id in this header (benchmark's --session-header)"},
	{names: []string{"uuid-and-strip"}, refused: "image UUID references (the server's multimodal cache): not supported; goodput sends every image's content"},
	// Tokenizer
	{names: []string{"tokenizer"}, maps: "tokenizer of prompts and client token counts (benchmark's --processor; builtin = o200k_base)"},
	{names: []string{"tokenizer-revision"}, refused: "goodput never downloads a tokenizer: give a local tokenizer.json or cached id"},
	{names: []string{"tokenizer-trust-remote-code"}, refused: "goodput runs no tokenizer code: it reads tokenizer.json itself"},
	{names: []string{"apply-chat-template"}, refused: "use goodput benchmark's --chat-template-overhead"},
	// Input
	{names: []string{"extra-inputs"}, maps: "fields merged into every body (benchmark's --extra-body)", list: true},
	{names: []string{"header", "H"}, maps: "extra request headers (benchmark's --header)"},
	{names: []string{"input-file"}, maps: "a data file or trace (benchmark's --data FILE); see --custom-dataset-type"},
	{names: []string{"public-dataset"}, refused: "goodput downloads no dataset: give a local copy with --input-file"},
	{names: []string{"hf-subset"}, refused: "goodput downloads no dataset: give a local copy with --input-file"},
	{names: []string{"hf-weka-dataset"}, refused: "goodput downloads no dataset: give a local copy with --input-file"},
	{names: []string{"dataset-filter"}, refused: "public datasets: not supported"},
	{names: []string{"custom-dataset-type"}, maps: "single_turn (a prompt file), multi_turn (conversations, their turns sent with the history), mooncake_trace or burst_gpt_trace (a trace, replayed on its timestamps); others refused with their reason"},
	{names: []string{"ignore-trace-delays"}, refused: "AIPerf's weka_trace and graph traces: not supported (for a mooncake_trace use --no-fixed-schedule)"},
	{names: []string{"use-think-time-only"}, refused: "AIPerf's weka_trace think times: not supported (goodput reads mooncake_trace, burst_gpt_trace and multi_turn)"},
	{names: []string{"max-context-length"}, refused: "AIPerf's weka_trace conversations: not supported (goodput reads mooncake_trace, burst_gpt_trace and multi_turn)"},
	{names: []string{"dataset-sampling-strategy"}, maps: "sequential (the default) or shuffle (benchmark's --data-shuffle); random: refused"},
	{names: []string{"allow-dataset-wrap", "no-allow-dataset-wrap"}, refused: "AIPerf's agentic trace replay: not supported"},
	{names: []string{"random-seed"}, maps: "seed of prompts, shuffling and arrivals (benchmark's --random-seed)"},
	{names: []string{"trace-session-sample-ratio"}, refused: "Baseten traces: not supported"},
	{names: []string{"config", "f"}, maps: "AIPerf's YAML config (schemaVersion 2.0): model, endpoint, one dataset, the warmup and profiling phases, artifacts.dir, artifacts.trace and show_trace_timing, random_seed, ${VAR:default}, and a grid sweep over concurrency or rate; the options given on the command line override it"},
	// Fixed Schedule
	{names: []string{"fixed-schedule"}, maps: "replay the --input-file trace on its timestamps (benchmark's --rate-type replay)"},
	{names: []string{"no-fixed-schedule"}, maps: "a trace's lengths under the --concurrency or --request-rate load, its timestamps ignored"},
	{names: []string{"fixed-schedule-auto-offset"}, maps: "the first request at the start (goodput's replay always starts so)"},
	{names: []string{"fixed-schedule-start-offset"}, maps: "replay only the trace's rows from this timestamp (ms), sent at their time after it"},
	{names: []string{"fixed-schedule-end-offset"}, maps: "replay only the trace's rows up to this timestamp (ms)"},
	// Goodput
	{names: []string{"goodput"}, maps: "per-request SLOs in AIPerf's tags and units: the export's goodput and goodput's SLO"},
	// Conversation Input
	{names: []string{"conversation-num", "num-conversations", "num-sessions"}, maps: "conversations per benchmark, each sent once (the synthetic data's sessions, as --data-samples)"},
	{names: []string{"num-dataset-entries", "num-prompts"}, maps: "distinct synthetic prompts, reused in turn (synthetic samples=N)"},
	{names: []string{"conversation-turn-mean", "session-turns-mean"}, maps: "turns of each synthetic conversation, with the history (synthetic turns=N)"},
	{names: []string{"conversation-turn-stddev", "session-turns-stddev"}, maps: "each synthetic conversation draws its turn count from a normal distribution of that standard deviation, at least 1 (synthetic turns_stdev)"},
	{names: []string{"conversation-turn-delay-mean", "session-turn-delay-mean"}, maps: "think time before each later turn, ms (synthetic delay; an --input-file's turns without their own delay)"},
	{names: []string{"conversation-turn-delay-stddev", "session-turn-delay-stddev"}, maps: "its standard deviation, ms (synthetic delay_stdev)"},
	{names: []string{"conversation-turn-delay-ratio", "session-delay-ratio"}, maps: "multiplies the two above (with --input-file: 1 only, the file's own delays are not scaled)"},
	{names: []string{"inter-turn-delay-cap-seconds"}, refused: "caps the delays of AIPerf's dag_jsonl and baseten_trace datasets, which goodput does not read"},
	{names: []string{"max-idle-gap-cap-seconds"}, refused: "Baseten traces: not supported"},
	{names: []string{"replay-speedup"}, refused: "Baseten traces: not supported (goodput benchmark's --time-scale speeds up a replay)"},
	{names: []string{"open-loop-replay", "no-open-loop-replay"}, refused: "Baseten traces: not supported"},
	{names: []string{"open-loop-strict"}, refused: "Baseten traces: not supported"},
	{names: []string{"omit-kv-hints"}, refused: "Baseten traces: not supported"},
	{names: []string{"force-min-tokens", "no-force-min-tokens"}, refused: "Baseten traces: not supported"},
	// Prompt
	{names: []string{"prompt-batch-size", "batch-size-text", "batch-size", "b"}, maps: "texts per embeddings request, passages per rankings request (benchmark's --batch-size)"},
	{names: []string{"prompt-corpus"}, refused: "goodput's synthetic prompts have one corpus"},
	{names: []string{"cache-bust"}, refused: "goodput's prompts always open with a marker of their own (no cache hit between requests)"},
	// Prefix Prompt
	{names: []string{"prefix-prompt-pool-size", "prompt-prefix-pool-size", "num-prefix-prompts"}, maps: "distinct shared prefixes (synthetic prefix_count), request i uses prefix i mod N"},
	{names: []string{"prefix-prompt-length", "prompt-prefix-length"}, maps: "tokens of each prefix (synthetic prefix_tokens), sent as the system message"},
	{names: []string{"shared-system-prompt-length"}, maps: "one system prompt shared by every request (prefix_count=1, prefix_tokens=N)"},
	{names: []string{"user-context-prompt-length"}, maps: "a context prompt per dataset entry, sent as its system message (synthetic prefix_count=--num-dataset-entries, prefix_tokens=N)"},
	// ISL and OSL
	{names: []string{"isl", "prompt-input-tokens-mean", "synthetic-input-tokens-mean", "input-tokens-mean", "input-tokens"}, maps: "prompt tokens (synthetic prompt_tokens)"},
	{names: []string{"isl-stddev", "prompt-input-tokens-stddev", "synthetic-input-tokens-stddev", "input-tokens-stddev"}, maps: "prompt_tokens_stdev"},
	{names: []string{"isl-block-size", "prompt-input-tokens-block-size", "synthetic-input-tokens-block-size"}, refused: "a trace's hash_ids blocks: goodput uses the trace format's own size"},
	{names: []string{"seq-dist", "sequence-distribution"}, maps: "mixed ISL/OSL pairs, each request drawing one in proportion to its probability (synthetic sequence_distribution); all three of AIPerf's forms"},
	{names: []string{"osl", "prompt-output-tokens-mean", "output-tokens-mean", "synthetic-output-tokens-mean", "output-tokens"}, maps: "max output tokens (synthetic output_tokens)"},
	{names: []string{"osl-stddev", "prompt-output-tokens-stddev", "output-tokens-stddev", "synthetic-output-tokens-stddev"}, maps: "output_tokens_stdev"},
	// Audio, Image, Video, Rankings
	{names: []string{"audio-batch-size", "batch-size-audio"}, maps: "clips per request (synthetic audio_count); 0: none"},
	{names: []string{"audio-length-mean"}, maps: "seconds of each synthetic clip, whole (synthetic audio_seconds)"},
	{names: []string{"audio-length-stddev"}, maps: "0 only: goodput's synthetic clips have one length"},
	{names: []string{"audio-format"}, maps: "wav only (mp3: refused)"},
	{names: []string{"audio-depths"}, maps: "16 only (goodput's clips are 16-bit PCM)", list: true},
	{names: []string{"audio-sample-rates"}, maps: "one rate in kHz (synthetic audio_sample_rate); several: refused", list: true},
	{names: []string{"audio-num-channels"}, maps: "1 only (goodput's clips are mono)"},
	{names: []string{"image-width-mean"}, maps: "image width in pixels (synthetic image_width)"},
	{names: []string{"image-width-stddev"}, maps: "0 only: goodput's synthetic images have one size"},
	{names: []string{"image-height-mean"}, maps: "image height in pixels (synthetic image_height)"},
	{names: []string{"image-height-stddev"}, maps: "0 only: goodput's synthetic images have one size"},
	{names: []string{"image-batch-size", "batch-size-image"}, maps: "images per request (synthetic image_count); 0: none"},
	{names: []string{"image-format"}, maps: "png or jpeg (synthetic image_format); random: refused"},
	{names: []string{"image-source"}, refused: "goodput generates its images itself (no source images to resize); give image files in --input-file's image column"},
	{names: []string{"image-source-sampling"}, refused: "goodput generates its images itself (no source images to sample)"},
	{names: []string{"video-batch-size", "batch-size-video"}, maps: "synthetic videos per request (synthetic video_count)"},
	{names: []string{"video-duration"}, maps: "synthetic video length in seconds (synthetic video_seconds; default 5)"},
	{names: []string{"video-fps"}, maps: "synthetic video frame rate (synthetic video_fps; default 4)"},
	{names: []string{"video-width"}, maps: "synthetic video frame width, with --video-height (synthetic video_width): a Motion-JPEG AVI in a chat video_url part"},
	{names: []string{"video-height"}, maps: "synthetic video frame height (synthetic video_height)"},
	{names: []string{"video-synth-type"}, refused: "goodput's synthetic video is one pattern (a drifting gradient under noise)"},
	{names: []string{"video-format"}, refused: "goodput writes Motion-JPEG AVI (MP4 and WebM need an encoder goodput does not ship)"},
	{names: []string{"video-codec"}, refused: "goodput writes Motion-JPEG AVI (MP4 and WebM need an encoder goodput does not ship)"},
	{names: []string{"video-audio-sample-rate"}, refused: "video with an audio track: not supported"},
	{names: []string{"video-audio-num-channels"}, refused: "video with an audio track: not supported"},
	{names: []string{"video-audio-codec"}, refused: "video with an audio track: not supported"},
	{names: []string{"video-audio-depth"}, refused: "video with an audio track: not supported"},
	{names: []string{"rankings-passages-mean"}, maps: "passages per rankings request (benchmark's --batch-size)"},
	{names: []string{"rankings-passages-stddev"}, maps: "0 only: every request has --rankings-passages-mean passages"},
	{names: []string{"rankings-passages-prompt-token-mean"}, maps: "tokens of each passage (synthetic prompt_tokens); the query's must be the same"},
	{names: []string{"rankings-passages-prompt-token-stddev"}, maps: "prompt_tokens_stdev of passages and query"},
	{names: []string{"rankings-query-prompt-token-mean"}, maps: "the query's tokens: equal to the passages' (goodput draws both from one set of synthetic prompts)"},
	{names: []string{"rankings-query-prompt-token-stddev"}, maps: "equal to the passages' stddev"},
	// Synthesis
	{names: []string{"synthesis-speedup-ratio"}, refused: "trace synthesis: not supported (goodput benchmark's --time-scale speeds up a replay)"},
	{names: []string{"synthesis-prefix-len-multiplier"}, refused: "trace synthesis: not supported"},
	{names: []string{"synthesis-prefix-root-multiplier"}, refused: "trace synthesis: not supported"},
	{names: []string{"synthesis-prompt-len-multiplier"}, refused: "trace synthesis: not supported"},
	{names: []string{"synthesis-output-len-multiplier"}, refused: "trace synthesis: not supported"},
	{names: []string{"synthesis-max-isl"}, refused: "trace synthesis: not supported"},
	{names: []string{"synthesis-max-osl"}, refused: "trace synthesis: not supported"},
	// Load Generator
	{names: []string{"benchmark-duration"}, maps: "each benchmark's length in seconds (benchmark's --max-seconds)"},
	{names: []string{"benchmark-grace-period"}, maps: "seconds (or inf) the requests in flight at the duration may finish in, counted in the figures (benchmark's --drain); without it they are cancelled and censored"},
	{names: []string{"concurrency"}, maps: "streams (closed loop), a comma list runs one benchmark each; with --request-rate the in-flight cap; with --user-centric-rate the cap on users mid-session"},
	{names: []string{"prefill-concurrency"}, maps: "the most requests waiting for their first token: a slot is taken before the send (after the --concurrency slot) and freed at the first token, or at the end of a request without one; an open-loop request that waits is sent late, the wait recorded as lateness; needs --streaming, at most --concurrency (AIPerf's rules)"},
	{names: []string{"request-rate"}, maps: "open-loop requests/s, a comma list runs one benchmark each"},
	{names: []string{"arrival-pattern", "request-rate-mode"}, maps: "poisson, constant or gamma (poisson with --arrival-smoothness); concurrency_burst: refused"},
	{names: []string{"arrival-smoothness", "vllm-burstiness"}, maps: "gamma shape of the arrivals (benchmark's --burstiness)"},
	{names: []string{"request-count", "num-requests"}, maps: "requests per benchmark (benchmark's --max-requests); default max(10, 2×concurrency) for synthetic data"},
	{names: []string{"concurrency-ramp-duration"}, maps: "streams start one by one over these seconds (benchmark's --rampup); with --request-rate or --user-centric-rate the --concurrency cap rises from 1 one slot at a time over them"},
	{names: []string{"prefill-concurrency-ramp-duration"}, maps: "the prefill cap rises from 1 to --prefill-concurrency, one slot at a time, over these seconds"},
	{names: []string{"request-rate-ramp-duration"}, maps: "the rate ramps linearly to --request-rate over these seconds (benchmark's --rampup)"},
	{names: []string{"request-rate-series"}, maps: "a piecewise-linear rate from a JSON file (benchmark's --rate-series)"},
	{names: []string{"failed-request-threshold"}, refused: "goodput's --max-error-rate (benchmark) judges the last requests, not the run's total: not mapped"},
	{names: []string{"trajectory-start-min-ratio"}, refused: "AIPerf's agentic trace replay: not supported"},
	{names: []string{"trajectory-start-max-ratio"}, refused: "AIPerf's agentic trace replay: not supported"},
	{names: []string{"burst-phase-starts"}, refused: "AIPerf's agentic trace replay: not supported"},
	{names: []string{"trace-idle-gap-cap-seconds"}, refused: "AIPerf's weka_trace idle gaps: not supported (goodput benchmark's --time-scale speeds up a replay)"},
	{names: []string{"system-idle-gap-cap-seconds"}, refused: "AIPerf's agentic trace replay: not supported"},
	// Scenario
	{names: []string{"scenario"}, refused: "AIPerf's locked scenarios: not supported"},
	{names: []string{"unsafe-override"}, refused: "AIPerf's locked scenarios: not supported"},
	// Warmup
	{names: []string{"warmup-request-count", "num-warmup-requests"}, maps: "a warmup phase of N requests before each benchmark, left out of the results; the benchmark's limits (--request-count, --benchmark-duration, a trace) count from its end"},
	{names: []string{"warmup-duration"}, maps: "a warmup phase of these seconds (with a count or sessions, the first reached ends it)"},
	{names: []string{"agentic-cache-warmup-duration"}, refused: "AIPerf's agentic trace replay: not supported"},
	{names: []string{"agentic-warmup-grace-period"}, refused: "AIPerf's agentic trace replay: not supported"},
	{names: []string{"num-warmup-sessions"}, maps: "a warmup phase of N conversations, each sent to its last turn (single requests count one each)"},
	{names: []string{"warmup-concurrency"}, maps: "the warmup's streams (default --concurrency, else 1); with a warmup rate its in-flight cap"},
	{names: []string{"warmup-prefill-concurrency"}, maps: "the warmup's prefill cap (default --prefill-concurrency)"},
	{names: []string{"warmup-request-rate"}, maps: "the warmup's open-loop rate (default a single --request-rate)"},
	{names: []string{"warmup-arrival-pattern"}, maps: "poisson, constant or gamma arrivals of the warmup rate (default --arrival-pattern)"},
	{names: []string{"warmup-grace-period"}, maps: "with --warmup-duration: seconds (or inf) its requests in flight may finish in before the benchmark starts (default: all waited for)"},
	{names: []string{"warmup-concurrency-ramp-duration"}, maps: "the warmup's streams start one by one over these seconds, or with a warmup rate its in-flight cap rises from 1 (default --concurrency-ramp-duration)"},
	{names: []string{"warmup-prefill-concurrency-ramp-duration"}, maps: "the warmup's prefill cap rises from 1 over these seconds (default --prefill-concurrency-ramp-duration)"},
	{names: []string{"warmup-request-rate-ramp-duration"}, maps: "the warmup rate ramps linearly over these seconds (default --request-rate-ramp-duration)"},
	// User-Centric Rate
	{names: []string{"user-centric-rate"}, maps: "N users' total rate, each user's turns N/rate seconds apart, users staggered (benchmark's --rate-type user_centric --rate)"},
	{names: []string{"num-users"}, maps: "the users of --user-centric-rate (benchmark's --users)"},
	// Request Cancellation
	{names: []string{"request-cancellation-rate"}, maps: "percentage of the requests the client cancels (picked with this probability, seeded by --random-seed); recorded incomplete with error class cancelled"},
	{names: []string{"request-cancellation-delay"}, maps: "seconds after sending that a picked request is cancelled (default 0: at once)"},
	// Output
	{names: []string{"output-artifact-dir", "artifact-dir", "output-dir"}, maps: "directory of the AIPerf exports and goodput's report"},
	{names: []string{"profile-export-prefix", "profile-export-file"}, refused: "export file names: use --output FILE.json"},
	{names: []string{"export-level", "profile-export-level"}, refused: "goodput always writes every request (goodput.jsonl)"},
	{names: []string{"slice-duration"}, maps: "time slices of each benchmark with their own throughput and percentiles (benchmark's --slice-duration; the extras' timeslices)"},
	{names: []string{"auto-plot", "no-auto-plot"}, refused: "plots: goodput benchmark writes report.html"},
	{names: []string{"plot-required"}, refused: "plots: goodput benchmark writes report.html"},
	{names: []string{"export-outputs-json"}, refused: "response texts are not kept"},
	{names: []string{"otel-url"}, refused: "OpenTelemetry export: not supported"},
	{names: []string{"stream"}, refused: "OpenTelemetry export: not supported"},
	{names: []string{"otel-resource-attributes"}, refused: "OpenTelemetry export: not supported"},
	{names: []string{"gen-ai-provider"}, refused: "OpenTelemetry export: not supported"},
	{names: []string{"mlflow-tracking-uri"}, refused: "MLflow upload: not supported"},
	{names: []string{"mlflow-experiment"}, refused: "MLflow upload: not supported"},
	{names: []string{"mlflow-run-name"}, refused: "MLflow upload: not supported"},
	{names: []string{"mlflow-tag"}, refused: "MLflow upload: not supported"},
	{names: []string{"mlflow-parent-run-id"}, refused: "MLflow upload: not supported"},
	{names: []string{"mlflow-artifact-glob"}, refused: "MLflow upload: not supported"},
	{names: []string{"wandb-project"}, refused: "Weights & Biases upload: not supported"},
	{names: []string{"wandb-entity"}, refused: "Weights & Biases upload: not supported"},
	{names: []string{"wandb-run-name"}, refused: "Weights & Biases upload: not supported"},
	{names: []string{"wandb-tag"}, refused: "Weights & Biases upload: not supported"},
	// HTTP Trace
	{names: []string{"export-http-trace"}, maps: "AIPerf's HTTP trace metrics in the AIPerf export: http_req_connecting (a dial's name resolution included), _connection_reused, _sending, _waiting (TTFB), _receiving and _duration from goodput's phase times; pool wait, DNS alone and byte counts are not measured (left out); each request's phase times are in goodput.jsonl, not in a trace_data object"},
	{names: []string{"show-trace-timing"}, maps: "AIPerf's HTTP Trace Timing table after the run (avg, min, max, p99, p90, p50, std of the metrics --export-http-trace adds, which it implies)"},
	// Server Metrics
	{names: []string{"server-metrics"}, maps: "scrape the server's /metrics (benchmark's --server-metrics on, or the URL given; one URL)", list: true},
	{names: []string{"no-server-metrics"}, maps: "no server metrics (benchmark's --server-metrics off)"},
	{names: []string{"server-metrics-formats"}, refused: "server metrics go into goodput's report, in its own form"},
	// Network Latency
	{names: []string{"network-latency-automatic"}, refused: "RTT subtraction: not supported (goodput measures with the kernel's receive timestamps)"},
	{names: []string{"network-latency-mean"}, refused: "RTT subtraction: not supported (goodput measures with the kernel's receive timestamps)"},
	{names: []string{"network-latency-ping-interval"}, refused: "RTT subtraction: not supported"},
	// GPU Telemetry
	{names: []string{"gpu-telemetry"}, maps: "dcgm-exporter URLs (benchmark's --dcgm-url; bare: localhost:9400 and :9401, optional) or pynvml (--nvml); dashboard, amdsmi and CSV files refused", list: true},
	{names: []string{"no-gpu-telemetry"}, maps: "no GPU telemetry (goodput profile's default)"},
	// UI
	{names: []string{"ui-type", "ui"}, maps: "dashboard or simple: progress lines; none: no progress"},
	// Multi-Run
	{names: []string{"num-profile-runs"}, maps: "runs of every benchmark, each figure's spread across them in the report (benchmark's --num-runs); each run's export in <label>, <label>_2, …"},
	{names: []string{"profile-run-cooldown-seconds"}, maps: "the least pause before each later benchmark, with --num-profile-runs ≥ 2 (benchmark's --round-gap)"},
	{names: []string{"confidence-level"}, maps: "confidence of every interval of the report (benchmark's --confidence)"},
	{names: []string{"profile-run-disable-warmup-after-first", "no-profile-run-disable-warmup-after-first"}, refused: "goodput's warmup is each benchmark's own start, in every run (as AIPerf's --no-profile-run-disable-warmup-after-first)"},
	{names: []string{"set-consistent-seed", "no-set-consistent-seed"}, refused: "every run of goodput uses --random-seed (default 42): the same workload in every run is its only mode"},
	{names: []string{"vary-seed-per-trial", "no-vary-seed-per-trial"}, refused: "every run of goodput uses --random-seed: a seed per run is not supported"},
	{names: []string{"convergence-metric"}, refused: "stopping repeated runs once a figure converges: not supported (goodput runs all --num-profile-runs and flags the figures that vary)"},
	{names: []string{"convergence-stat"}, refused: "stopping repeated runs once a figure converges: not supported (goodput runs all --num-profile-runs and flags the figures that vary)"},
	{names: []string{"convergence-threshold"}, refused: "stopping repeated runs once a figure converges: not supported (goodput runs all --num-profile-runs and flags the figures that vary)"},
	{names: []string{"convergence-mode"}, refused: "stopping repeated runs once a figure converges: not supported (goodput runs all --num-profile-runs and flags the figures that vary)"},
	{names: []string{"parameter-sweep-cooldown-seconds"}, maps: "the least pause before each later benchmark of a --concurrency or --request-rate list (benchmark's --round-gap)"},
	{names: []string{"parameter-sweep-same-seed", "no-parameter-sweep-same-seed"}, refused: "every benchmark of a goodput run uses --random-seed, with prompts of its own"},
	{names: []string{"parameter-sweep-mode"}, maps: "repeated only: the whole list once per run (AIPerf's default); independent refused"},
	{names: []string{"sweep-type"}, refused: "sweeps over several flags: one list (--concurrency or --request-rate) per run"},
	{names: []string{"no-sweep-table"}, refused: "sweeps over several flags: one list per run"},
	{names: []string{"search-space"}, refused: "adaptive search: use goodput benchmark --rate-type knee"},
	{names: []string{"search-metric"}, refused: "adaptive search: use goodput benchmark --rate-type knee"},
	{names: []string{"search-stat"}, refused: "adaptive search: use goodput benchmark --rate-type knee"},
	{names: []string{"search-direction"}, refused: "adaptive search: use goodput benchmark --rate-type knee"},
	{names: []string{"search-max-iterations"}, refused: "adaptive search: use goodput benchmark --rate-type knee"},
	{names: []string{"search-initial-points"}, refused: "adaptive search: use goodput benchmark --rate-type knee"},
	{names: []string{"search-random-seed"}, refused: "adaptive search: use goodput benchmark --rate-type knee"},
	{names: []string{"search-planner"}, refused: "adaptive search: use goodput benchmark --rate-type knee"},
	{names: []string{"optuna-sampler"}, refused: "adaptive search: use goodput benchmark --rate-type knee"},
	{names: []string{"optuna-acquisition"}, refused: "adaptive search: use goodput benchmark --rate-type knee"},
	{names: []string{"optuna-terminator"}, refused: "adaptive search: use goodput benchmark --rate-type knee"},
	{names: []string{"search-percentile-pooling"}, refused: "adaptive search: use goodput benchmark --rate-type knee"},
	{names: []string{"bo-constraint-mode"}, refused: "adaptive search: use goodput benchmark --rate-type knee"},
	{names: []string{"variant", "sweep-variant"}, refused: "named sweep variations: not supported"},
	{names: []string{"search-sla"}, refused: "adaptive search: use goodput benchmark --rate-type knee --slo"},
	{names: []string{"search-sla-tier"}, refused: "adaptive search: use goodput benchmark --rate-type knee --slo"},
	{names: []string{"search-recipe"}, refused: "search recipes: use goodput benchmark --rate-type knee --slo"},
	{names: []string{"ttft-sla-ms"}, refused: "search recipes: use goodput benchmark --rate-type knee --slo ttft_p99=…"},
	{names: []string{"isl-osl-pairs"}, refused: "search recipes: not supported"},
	{names: []string{"itl-sla-ms"}, refused: "search recipes: use goodput benchmark --rate-type knee --slo itl_p99=…"},
	{names: []string{"tpot-sla-ms"}, refused: "search recipes: use goodput benchmark --rate-type knee --slo itl_p99=…"},
	{names: []string{"e2e-sla-ms"}, refused: "search recipes: use goodput benchmark --rate-type knee --slo e2e_p99=…"},
	{names: []string{"degradation-threshold"}, refused: "search recipes: use goodput benchmark --rate-type knee"},
	// Accuracy
	{names: []string{"accuracy-benchmark"}, refused: "accuracy benchmarks: not supported"},
	// Workers, service, ZMQ
	{names: []string{"workers-max", "max-workers"}, refused: "goodput is one process: there are no workers to size"},
	{names: []string{"record-processor-service-count", "record-processors"}, refused: "goodput is one process: there are no record processors to size"},
	{names: []string{"zmq-host"}, refused: "goodput is one process: no message bus"},
	{names: []string{"zmq-ipc-path"}, refused: "goodput is one process: no message bus"},
	{names: []string{"api-port"}, refused: "AIPerf's live API: not supported"},
	{names: []string{"api-host"}, refused: "AIPerf's live API: not supported"},
	{names: []string{"per-chunk-usage"}, maps: "the AIPerf export's inter_token_latency (and output_token_throughput_per_user) over OSL less the first content chunk's tokens by the server's per-chunk usage (goodput always asks for continuous_usage_stats), else OSL-1; needs --use-server-token-count, chat and --streaming"},
	// goodput's own
	{names: []string{"output"}, maps: "goodput's own: the AIPerf JSON export's path, e.g. /results/aiperf.json; the CSV and goodput's report beside it"},
	{names: []string{"fail-on-error-rate"}, maps: "goodput's own: exit 3 when a benchmark's error rate exceeds it, a fraction or a percentage (for CI)"},
	{names: []string{"allow-all-errors"}, maps: "goodput's own: exit 0 although a benchmark had no successful request or the server went away (default: exit 4)"},
	{names: []string{"wide"}, maps: "goodput's own: print the console's tables whole (default: cut to fit 100 columns)"},
	{names: []string{"max-connect-failures"}, maps: "goodput's own: stop when this many requests in a row could not reach the server (default 50; 0: never)"},
	{names: []string{"prompt-salt"}, maps: "goodput's own: prompts unique to this run with the seed's lengths (auto, none or a text), so that a rerun is not served from the prompt cache"},
}

// aiperfFlagRow returns the row of an AIPerf spelling, nil when none.
func aiperfFlagRow(name string) *aiperfFlag {
	for i := range aiperfFlags {
		if slices.Contains(aiperfFlags[i].names, name) {
			return &aiperfFlags[i]
		}
	}
	return nil
}

// aiperfArgs prepares AIPerf's command line for the flag parser: a
// refused flag is one line giving its reason, and a list flag's values
// (--server-metrics a b, --extra-inputs k:v k2:v2) become one
// --flag=value each; a list flag with no value becomes --flag= (its
// "bare" form). Everything after "--" is left alone.
func aiperfArgs(args []string) ([]string, error) {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...), nil
		}
		var name string
		var hasValue bool
		switch {
		case strings.HasPrefix(a, "--"):
			name, _, hasValue = strings.Cut(a[2:], "=")
		case len(a) == 2 && a[0] == '-':
			name = a[1:] // -f, -b: AIPerf's short spellings
		default:
			out = append(out, a)
			continue
		}
		row := aiperfFlagRow(name)
		switch {
		case row == nil:
			out = append(out, a)
		case row.refused != "":
			return nil, Usagef("%s: an AIPerf flag goodput profile does not support: %s", strings.SplitN(a, "=", 2)[0], row.refused)
		case row.list && !hasValue:
			n := 0
			for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
				n++
				out = append(out, "--"+name+"="+args[i])
			}
			if n == 0 {
				out = append(out, "--"+name+"=")
			}
		default:
			out = append(out, a)
		}
	}
	return out, nil
}

// aiperfFlagsMarkdown renders the table for README.md.
func aiperfFlagsMarkdown() string {
	var b strings.Builder
	b.WriteString("| AIPerf option | goodput profile |\n|---|---|\n")
	for _, r := range aiperfFlags {
		names := make([]string, len(r.names))
		for i, n := range r.names {
			dash := "--"
			if len(n) == 1 {
				dash = "-"
			}
			names[i] = "`" + dash + n + "`"
		}
		what := r.maps
		if r.refused != "" {
			what = "refused: " + r.refused
		}
		b.WriteString("| " + strings.Join(names, ", ") + " | " + strings.ReplaceAll(what, "|", `\|`) + " |\n")
	}
	return b.String()
}

// endpointTypeMaps is what --endpoint-type maps to: the request types
// profile takes (reqtype.All), by AIPerf's names.
func endpointTypeMaps() string {
	return reqtype.Names(profileType, func(t *reqtype.Type) string {
		if t.Batch == "documents" { // rankings: AIPerf's name does not say the route
			return t.AIPerf + " (" + t.Path + ")"
		}
		return t.AIPerf
	}, "or") + " (benchmark's --request-type); the other generation, retrieval and template types refused"
}
