package cli

import (
	"math"
	"time"

	"github.com/goodput-dev/goodput/reqtype"
	"github.com/goodput-dev/goodput/slo"
)

// GuideLLM v0.7's options of `guidellm run` on goodput benchmark (alias
// run): --backend, --profile, --constraint, --output, --tokenizer,
// --data-column-mapper, --data-loader, --data-preprocessor,
// --data-finalizer, --seed, --metrics, --knee-detection and --override.
// Each value is parsed as GuideLLM parses it (registry.go), checked
// against GuideLLM v0.7.3's kinds and keys (v07Table, one row per key),
// and applied to the benchmark's own options, so that the rest of the
// command validates and plans as with goodput's flags. The table is also
// the README's "Coming from GuideLLM / AIPerf" section (TestREADMEGuideLLMTable).

// v07Row is one kind or one key of a v0.7 option.
type v07Row struct {
	Opt  string // the option, without --
	Kind string // "" for a key every kind of the option takes
	Key  string // "" for the kind itself
	Maps string // what it becomes in goodput (the README's column)
	// Refuse, when set, is why goodput refuses it (exit 2).
	Refuse string
	// Required: the kind needs this key.
	Required bool
	apply    func(a *v07Applier, v any) error
}

// v07Opts are the v0.7 options, in the order the README lists them.
var v07Opts = []string{"backend", "profile", "constraint", "data-column-mapper", "data-loader", "data-preprocessor", "data-finalizer", "tokenizer", "seed", "output", "metrics"}

// v07Table is every kind and key goodput knows of GuideLLM v0.7.3's
// options (and of GuideLLM's newest docs: --metrics slo, --profile
// kind=goodput, --knee-detection, --constraint kind=target_moe).
func v07Table() []v07Row {
	str := func(flag string, p func(o *benchOptions) *string) func(a *v07Applier, v any) error {
		return func(a *v07Applier, v any) error {
			s, ok := text(v)
			if !ok {
				return a.bad(v, "a string")
			}
			return a.set(flag, func() { *p(a.o) = s })
		}
	}
	seconds := func(flag string, p func(o *benchOptions) *time.Duration) func(a *v07Applier, v any) error {
		return func(a *v07Applier, v any) error {
			f, ok := number(v)
			if v == nil {
				f, ok = 0, true // None: no limit
			}
			if !ok || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
				return a.bad(v, "seconds ≥ 0, or null for none")
			}
			return a.set(flag, func() { *p(a.o) = time.Duration(f * float64(time.Second)) })
		}
	}
	backendArg := func(key string) func(a *v07Applier, v any) error {
		return func(a *v07Applier, v any) error { return a.backendArg(key, v) }
	}
	accept := func(want any, why string) func(a *v07Applier, v any) error {
		return func(a *v07Applier, v any) error {
			if v == nil || canonicalJSON(v) == canonicalJSON(want) {
				return nil
			}
			return Usagef("--%s %s=%s: not supported: %s", a.opt, a.key, shown(v), why)
		}
	}
	kindOnly := func(a *v07Applier, _ any) error { return nil }
	rateType := func(kind string) func(a *v07Applier, v any) error {
		return func(a *v07Applier, _ any) error { return a.set("rate-type", func() { a.o.rateType = kind }) }
	}
	rows := []v07Row{
		// --backend
		{Opt: "backend", Kind: "openai_http", Maps: "the OpenAI-compatible HTTP client (`--backend-type openai_http`)", apply: kindOnly},
		{Opt: "backend", Kind: "openai_http", Key: "target", Required: true, Maps: "`--target` (a trailing `/v1` is dropped, as GuideLLM does)", apply: str("target", func(o *benchOptions) *string { return &o.target })},
		{Opt: "backend", Kind: "openai_http", Key: "model", Maps: "`--model` (empty: the first id of `GET /v1/models`)", apply: str("model", func(o *benchOptions) *string { return &o.model })},
		{Opt: "backend", Kind: "openai_http", Key: "request_format", Maps: requestFormatMaps(), apply: func(a *v07Applier, v any) error {
			s, ok := text(v)
			if !ok {
				return a.bad(v, "an endpoint such as /v1/chat/completions")
			}
			if _, err := parseRequestType(s); err != nil {
				return Usagef("--backend request_format=%s: not supported: want %s", s, reqtype.Names(nil, func(t *reqtype.Type) string { return t.Path }, "or"))
			}
			return a.set("request-type", func() { a.o.requestType = s })
		}},
		{Opt: "backend", Kind: "openai_http", Key: "api_key", Maps: "`--api-key` (never logged nor printed by `--print-config`)", apply: str("api-key", func(o *benchOptions) *string { return &o.apiKey })},
		{Opt: "backend", Kind: "openai_http", Key: "api_routes", Maps: "`--backend-args api_routes` (the run's request type's route sets the path)", apply: backendArg("api_routes")},
		{Opt: "backend", Kind: "openai_http", Key: "timeout", Maps: "`--request-timeout` seconds (GuideLLM's default, none, is goodput's 30 min)", apply: seconds("request-timeout", func(o *benchOptions) *time.Duration { return &o.requestTimeout })},
		{Opt: "backend", Kind: "openai_http", Key: "timeout_connect", Maps: "`--connect-timeout` seconds", apply: func(a *v07Applier, v any) error {
			if f, ok := number(v); !ok || f <= 0 {
				return a.bad(v, "seconds > 0")
			}
			return seconds("connect-timeout", func(o *benchOptions) *time.Duration { return &o.connectTimeout })(a, v)
		}},
		{Opt: "backend", Kind: "openai_http", Key: "http2", Maps: "`--backend-args http2` (false: HTTP/1.1 only)", apply: backendArg("http2")},
		{Opt: "backend", Kind: "openai_http", Key: "follow_redirects", Maps: "`--backend-args follow_redirects`", apply: backendArg("follow_redirects")},
		{Opt: "backend", Kind: "openai_http", Key: "verify", Maps: "`--insecure` when false. GuideLLM's default is false (no TLS check); goodput checks certificates unless told not to", apply: func(a *v07Applier, v any) error {
			b, ok := boolean(v)
			if !ok {
				return a.bad(v, "true or false")
			}
			return a.set("insecure", func() { a.o.insecure = !b })
		}},
		{Opt: "backend", Kind: "openai_http", Key: "validate_backend", Maps: "`--backend-args validate_backend` (false: no readiness check; needs `model`)", apply: backendArg("validate_backend")},
		{Opt: "backend", Kind: "openai_http", Key: "stream", Maps: "`--no-stream` when false", apply: func(a *v07Applier, v any) error {
			b, ok := boolean(v)
			if !ok {
				return a.bad(v, "true or false")
			}
			return a.set("no-stream", func() { a.o.noStream = !b })
		}},
		{Opt: "backend", Kind: "openai_http", Key: "extras", Maps: "`extras.body` → `--extra-body`, `extras.headers` → `--header`, `extras.content` → `--content-extras`; `params`, `files`, `method` are refused", apply: func(a *v07Applier, v any) error { return a.extras(v) }},
		{Opt: "backend", Kind: "openai_http", Key: "headers", Maps: "`--header` (goodput also takes them here, as pre-0.7 `--backend-args` did)", apply: func(a *v07Applier, v any) error { return a.headers(v) }},
		{Opt: "backend", Kind: "openai_http", Key: "max_tokens", Refuse: "give the output length in --data (output_tokens=N)", Maps: "refused: give `output_tokens` in `--data`"},
		{Opt: "backend", Kind: "openai_http", Key: "server_history", Maps: "false only (the default); goodput's server-side history is the data's session key (`--data …,turns=N,server_history=true` with `--request-type responses`)", apply: accept(false, "goodput's server-side history is the data's session key: give --data …,turns=N,server_history=true with request_format=/v1/responses")},
		{Opt: "backend", Kind: "openai_http", Key: "tool_call_missing_behavior", Maps: "the data's session key `tool_call_missing_behavior`: `error_stop` → `error`, `ignore_stop` → `skip`, `ignore_continue` → `continue`", apply: func(a *v07Applier, v any) error {
			s, _ := text(v)
			m, ok := map[string]string{"error_stop": "error", "ignore_stop": "skip", "ignore_continue": "continue"}[s]
			if !ok {
				return a.bad(v, "error_stop, ignore_stop or ignore_continue")
			}
			return a.dataKey("tool_call_missing_behavior", m)
		}},
		{Opt: "backend", Kind: "openai_http", Key: "multiturn_reasoning", Maps: "false only (the default)", apply: accept(false, "goodput sends no reasoning back")},
		{Opt: "backend", Kind: "vllm_python", Refuse: "goodput drives servers over HTTP: start `vllm serve` and give kind=openai_http,target=URL", Maps: "refused: serve the model and use `openai_http`"},
		{Opt: "backend", Kind: "openai_websocket", Refuse: "goodput measures text generation over HTTP (realtime transcription is not supported)", Maps: "refused"},

		// --profile
		{Opt: "profile", Kind: "synchronous", Maps: "`--rate-type synchronous`", apply: rateType("synchronous")},
		{Opt: "profile", Kind: "concurrent", Maps: "`--rate-type concurrent`", apply: rateType("concurrent")},
		{Opt: "profile", Kind: "concurrent", Key: "streams", Required: true, Maps: "`--rate` (a number or a list: one benchmark each)", apply: func(a *v07Applier, v any) error { return a.rates(v, true) }},
		{Opt: "profile", Kind: "throughput", Maps: "`--rate-type throughput`", apply: rateType("throughput")},
		{Opt: "profile", Kind: "throughput", Key: "max_concurrency", Maps: "`--max-concurrency` (null: goodput's cap, 10240 as GuideLLM's)", apply: func(a *v07Applier, v any) error { return a.maxConcurrency(v) }},
		{Opt: "profile", Kind: "constant", Maps: "`--rate-type constant`", apply: rateType("constant")},
		{Opt: "profile", Kind: "async", Maps: "`--rate-type constant` (GuideLLM's alias)", apply: rateType("constant")},
		{Opt: "profile", Kind: "poisson", Maps: "`--rate-type poisson`", apply: rateType("poisson")},
		{Opt: "profile", Kind: "constant", Key: "rate", Required: true, Maps: "`--rate` req/s (a number or a list)", apply: func(a *v07Applier, v any) error { return a.rates(v, false) }},
		{Opt: "profile", Kind: "async", Key: "rate", Required: true, Maps: "`--rate`", apply: func(a *v07Applier, v any) error { return a.rates(v, false) }},
		{Opt: "profile", Kind: "poisson", Key: "rate", Required: true, Maps: "`--rate`", apply: func(a *v07Applier, v any) error { return a.rates(v, false) }},
		{Opt: "profile", Kind: "constant", Key: "max_concurrency", Maps: "`--max-concurrency`", apply: func(a *v07Applier, v any) error { return a.maxConcurrency(v) }},
		{Opt: "profile", Kind: "async", Key: "max_concurrency", Maps: "`--max-concurrency`", apply: func(a *v07Applier, v any) error { return a.maxConcurrency(v) }},
		{Opt: "profile", Kind: "poisson", Key: "max_concurrency", Maps: "`--max-concurrency`", apply: func(a *v07Applier, v any) error { return a.maxConcurrency(v) }},
		{Opt: "profile", Kind: "sweep", Maps: "`--rate-type sweep` (GuideLLM's sweep, the default)", apply: rateType("sweep")},
		{Opt: "profile", Kind: "sweep", Key: "sweep_size", Maps: "`--rate` (the number of rounds, default 10)", apply: func(a *v07Applier, v any) error {
			f, ok := number(v)
			if !ok || f < 2 || f != math.Trunc(f) {
				return a.bad(v, "a whole number of rounds ≥ 2")
			}
			return a.setRates([]float64{f})
		}},
		{Opt: "profile", Kind: "sweep", Key: "strategy_type", Maps: "`--sweep-strategy` constant (default) or poisson", apply: str("sweep-strategy", func(o *benchOptions) *string { return &o.sweep.sweepStrategy })},
		{Opt: "profile", Kind: "sweep", Key: "max_concurrency", Maps: "`--max-concurrency` (default 512, as GuideLLM's)", apply: func(a *v07Applier, v any) error { return a.maxConcurrency(v) }},
		{Opt: "profile", Kind: "replay", Maps: "`--rate-type replay` (with a trace in `--data`)", apply: rateType("replay")},
		{Opt: "profile", Kind: "replay", Key: "time_scale", Maps: "`--time-scale`", apply: func(a *v07Applier, v any) error {
			f, ok := number(v)
			if !ok || !(f > 0) || math.IsInf(f, 0) {
				return a.bad(v, "a factor > 0")
			}
			return a.set("time-scale", func() { a.o.timeScale = f })
		}},
		{Opt: "profile", Kind: "goodput", Maps: "`--rate-type knee --knee-axis concurrency` (GuideLLM's newest goodput search: doubling, then bisection, on concurrency)", apply: func(a *v07Applier, _ any) error {
			if err := a.set("rate-type", func() { a.o.rateType = "knee" }); err != nil {
				return err
			}
			return a.set("knee-axis", func() { a.o.sweep.kneeAxis = "concurrency" })
		}},
		{Opt: "profile", Kind: "goodput", Key: "target_attainment", Maps: "`--slo attainment=…` (the share of requests that must meet every objective)", apply: func(a *v07Applier, v any) error {
			f, ok := number(v)
			if !ok || !(f > 0 && f <= 1) {
				return a.bad(v, "a share 0 < x ≤ 1, e.g. 0.99")
			}
			a.slo = append(a.slo, slo.Objective{Metric: slo.Attainment, Threshold: f})
			return nil
		}},
		{Opt: "profile", Kind: "goodput", Key: "tolerance", Maps: "`--knee-tolerance`", apply: func(a *v07Applier, v any) error {
			f, ok := number(v)
			if !ok || !(f > 0 && f < 1) {
				return a.bad(v, "a fraction 0 < x < 1")
			}
			return a.set("knee-tolerance", func() { a.o.sweep.kneeTolerance = f })
		}},
		{Opt: "profile", Key: "rampup_duration", Maps: "`--rampup` seconds", apply: func(a *v07Applier, v any) error {
			f, ok := number(v)
			if !ok || f < 0 || math.IsInf(f, 0) {
				return a.bad(v, "seconds ≥ 0")
			}
			return a.set("rampup", func() { a.o.rampup = f })
		}},
		{Opt: "profile", Key: "warmup", Maps: "`--warmup` (a number <1 a fraction, ≥1 an amount, or a TransientPhaseConfig object)", apply: func(a *v07Applier, v any) error { return a.phase("warmup", &a.o.warmup, v) }},
		{Opt: "profile", Key: "cooldown", Maps: "`--cooldown` (same forms)", apply: func(a *v07Applier, v any) error { return a.phase("cooldown", &a.o.cooldown, v) }},

		// --constraint
		{Opt: "constraint", Kind: "max_duration", Maps: "`--max-seconds`", apply: kindOnly},
		{Opt: "constraint", Kind: "max_duration", Key: "seconds", Required: true, Maps: "`--max-seconds` (one value)", apply: func(a *v07Applier, v any) error {
			f, err := a.oneNumber(v, "seconds > 0")
			if err != nil {
				return err
			}
			return a.set("max-seconds", func() { a.o.maxSeconds = f })
		}},
		{Opt: "constraint", Kind: "max_requests", Maps: "`--max-requests`", apply: kindOnly},
		{Opt: "constraint", Kind: "max_requests", Key: "count", Required: true, Maps: "`--max-requests` (one value)", apply: func(a *v07Applier, v any) error {
			return a.count(v, "max-requests", &a.o.maxRequests)
		}},
		{Opt: "constraint", Kind: "max_errors", Maps: "`--max-errors`", apply: kindOnly},
		{Opt: "constraint", Kind: "max_errors", Key: "count", Required: true, Maps: "`--max-errors` (one value)", apply: func(a *v07Applier, v any) error {
			return a.count(v, "max-errors", &a.o.maxErrors)
		}},
		{Opt: "constraint", Kind: "max_error_rate", Maps: "`--max-error-rate` (sliding window)", apply: kindOnly},
		{Opt: "constraint", Kind: "max_error_rate", Key: "rate", Required: true, Maps: "`--max-error-rate` (0 < rate < 1)", apply: func(a *v07Applier, v any) error {
			f, err := a.oneNumber(v, "a fraction 0 < x < 1")
			if err != nil {
				return err
			}
			if f >= 1 {
				return a.bad(v, "a fraction 0 < x < 1")
			}
			return a.set("max-error-rate", func() { a.o.maxErrorRate = f })
		}},
		{Opt: "constraint", Kind: "max_error_rate", Key: "window", Maps: "`--error-rate-window` (requests, default 30)", apply: func(a *v07Applier, v any) error {
			return a.count(v, "error-rate-window", &a.o.errorRateWindow)
		}},
		{Opt: "constraint", Kind: "max_global_error_rate", Maps: "`--max-global-error-rate` (the benchmark's whole errored share)", apply: kindOnly},
		{Opt: "constraint", Kind: "max_global_error_rate", Key: "rate", Required: true, Maps: "`--max-global-error-rate` (0 < rate < 1)", apply: func(a *v07Applier, v any) error {
			f, err := a.oneNumber(v, "a fraction 0 < x < 1")
			if err != nil {
				return err
			}
			if f >= 1 {
				return a.bad(v, "a fraction 0 < x < 1")
			}
			return a.set("max-global-error-rate", func() { a.o.maxGlobalErrorRate = f })
		}},
		{Opt: "constraint", Kind: "max_global_error_rate", Key: "minimum", Maps: "`--global-error-minimum` (requests, default 30)", apply: func(a *v07Applier, v any) error {
			return a.count(v, "global-error-minimum", &a.o.globalErrorMin)
		}},
		{Opt: "constraint", Kind: "over_saturation", Maps: "`--over-saturation` (GuideLLM's defaults; its keys below)", apply: overSat},
		{Opt: "constraint", Kind: "over_saturation", Key: "mode", Maps: "`--over-saturation mode=`: enforce (stop, the default) or monitor", apply: overSat},
		{Opt: "constraint", Kind: "over_saturation", Key: "min_seconds", Maps: "`--over-saturation min_seconds=` (30)", apply: overSat},
		{Opt: "constraint", Kind: "over_saturation", Key: "max_window_seconds", Maps: "`--over-saturation max_window_seconds=` (120)", apply: overSat},
		{Opt: "constraint", Kind: "over_saturation", Key: "moe_threshold", Maps: "`--over-saturation moe_threshold=` (2.0)", apply: overSat},
		{Opt: "constraint", Kind: "over_saturation", Key: "minimum_ttft", Maps: "`--over-saturation minimum_ttft=` seconds (2.5)", apply: overSat},
		{Opt: "constraint", Kind: "over_saturation", Key: "maximum_window_ratio", Maps: "`--over-saturation maximum_window_ratio=` (0.75)", apply: overSat},
		{Opt: "constraint", Kind: "over_saturation", Key: "minimum_window_size", Maps: "`--over-saturation minimum_window_size=` (5)", apply: overSat},
		{Opt: "constraint", Kind: "over_saturation", Key: "confidence", Maps: "`--over-saturation confidence=` (0.95)", apply: overSat},
		{Opt: "constraint", Kind: "target_moe", Maps: "`--target-moe` (GuideLLM's newest docs; its keys below)", apply: targetMOE},
		{Opt: "constraint", Kind: "target_moe", Key: "metric", Maps: "`--target-moe metric=`: time_to_first_token_ms (default) or request_latency", apply: targetMOE},
		{Opt: "constraint", Kind: "target_moe", Key: "statistic", Maps: "`--target-moe statistic=`: mean (default), p25 … p999", apply: targetMOE},
		{Opt: "constraint", Kind: "target_moe", Key: "moe", Maps: "`--target-moe moe=` relative margin (0.05)", apply: targetMOE},
		{Opt: "constraint", Kind: "target_moe", Key: "confidence", Maps: "`--target-moe confidence=` (0.95)", apply: targetMOE},
		{Opt: "constraint", Kind: "target_moe", Key: "min_samples", Maps: "`--target-moe min_samples=` (30)", apply: targetMOE},
		{Opt: "constraint", Kind: "target_moe", Key: "check_interval", Maps: "`--target-moe check_interval=` requests (10)", apply: targetMOE},
		{Opt: "constraint", Key: "stopping_scope", Maps: "`--stopping-scope` (current or all; all applies to the error stops), or over_saturation's and target_moe's own `stopping_scope`", apply: func(a *v07Applier, v any) error {
			if a.kind == "over_saturation" {
				return overSat(a, v)
			}
			if a.kind == "target_moe" {
				return targetMOE(a, v)
			}
			s, _ := text(v)
			switch {
			case s == "current":
				return nil
			case s != "all":
				return a.bad(v, "current or all")
			case a.kind != "max_errors" && a.kind != "max_error_rate" && a.kind != "max_global_error_rate":
				return Usagef("--constraint kind=%s,stopping_scope=all: not supported: goodput's stopping scope applies to max_errors, max_error_rate and max_global_error_rate", a.kind)
			}
			return a.set("stopping-scope", func() { a.o.sweep.stoppingScope = "all" })
		}},

		// data
		{Opt: "data-column-mapper", Kind: "generative_column_mapper", Maps: "`--data-column-mapper` (roles text, prefix, raw messages, token counts, timestamp, media, tools and tool responses)", apply: kindOnly},
		{Opt: "data-column-mapper", Kind: "generative_column_mapper", Key: "column_mappings", Maps: "the role → column map", apply: func(a *v07Applier, v any) error {
			m, ok := v.(map[string]any)
			if !ok {
				return a.bad(v, `an object, e.g. {"text_column":"question"}`)
			}
			return a.set("data-column-mapper", func() {
				a.o.columnMapper = canonicalJSON(map[string]any{"kind": "generative_column_mapper", "column_mappings": m})
			})
		}},
		{Opt: "data-column-mapper", Kind: "pooling_column_mapper", Maps: "`--data-column-mapper pooling_column_mapper`: each record's `prompt` object is one `/pooling` request", apply: func(a *v07Applier, _ any) error {
			return a.set("data-column-mapper", func() { a.o.columnMapper = "pooling_column_mapper" })
		}},
		{Opt: "data-column-mapper", Kind: "pooling_column_mapper", Key: "column_mappings", Maps: "the role → column map (`pooling_column`)", apply: func(a *v07Applier, v any) error {
			m, ok := v.(map[string]any)
			if !ok {
				return a.bad(v, `an object, e.g. {"pooling_column":"request"}`)
			}
			return a.set("data-column-mapper", func() {
				a.o.columnMapper = canonicalJSON(map[string]any{"kind": "pooling_column_mapper", "column_mappings": m})
			})
		}},
		{Opt: "data-loader", Kind: "pytorch", Maps: "goodput's own reader", apply: kindOnly},
		{Opt: "data-loader", Kind: "pytorch", Key: "samples", Maps: "`--data-samples` (-1: all)", apply: func(a *v07Applier, v any) error {
			f, ok := number(v)
			if !ok || f != math.Trunc(f) || f < -1 {
				return a.bad(v, "a count ≥ 1, or -1 for all")
			}
			return a.set("data-samples", func() { a.o.dataSamples = int(f) })
		}},
		{Opt: "data-loader", Kind: "pytorch", Key: "shuffle", Maps: "`--data-shuffle`", apply: func(a *v07Applier, v any) error {
			b, ok := boolean(v)
			if !ok {
				return a.bad(v, "true or false")
			}
			return a.set("data-shuffle", func() { a.o.dataShuffle = b })
		}},
		{Opt: "data-loader", Kind: "pytorch", Key: "num_workers", Maps: "0 or 1 (GuideLLM's default) only: goodput prepares the requests in its own process before the load, with no loader workers to add", apply: func(a *v07Applier, v any) error {
			if f, ok := number(v); !ok || f < 0 || f != math.Trunc(f) {
				return a.bad(v, "a count ≥ 0")
			} else if f > 1 {
				return Usagef("--data-loader num_workers=%s: not supported: goodput prepares the requests in its own process before the load (no loader workers to add; give 1 or leave it out)", shown(v))
			}
			return nil
		}},
		{Opt: "data-preprocessor", Kind: "encode_media", Maps: "accepted (GuideLLM's default): goodput sends the data's images and audio as data URLs, as read", apply: kindOnly},
		{Opt: "data-preprocessor", Kind: "encode_media", Key: "audio_kwargs", Maps: "empty only", apply: accept(map[string]any{}, "goodput sends media files as they are, with no re-encoding options")},
		{Opt: "data-preprocessor", Kind: "encode_media", Key: "image_kwargs", Maps: "empty only", apply: accept(map[string]any{}, "goodput sends media files as they are, with no re-encoding options")},
		{Opt: "data-preprocessor", Kind: "encode_media", Key: "video_kwargs", Maps: "empty only", apply: accept(map[string]any{}, "goodput sends media files as they are, with no re-encoding options")},
		{Opt: "data-preprocessor", Kind: "tool_calling_message_extractor", Maps: "the data's session key `tool_messages=true`: a messages column is one request of every user text joined, the system texts its prefix, the first tool message its tool result", apply: func(a *v07Applier, _ any) error {
			return a.dataKey("tool_messages", "true")
		}},
		{Opt: "data-preprocessor", Kind: "turn_pivot", Maps: "each `--data` synthetic_text source is one turn of every conversation: one spec of `turns=N` with each turn's lengths (`turn_lengths`) under the first source's prefix", apply: func(a *v07Applier, _ any) error {
			return Usagef("--data-preprocessor kind=turn_pivot: give it on the command line, with one --data kind=synthetic_text source per turn")
		}},
		{Opt: "data-finalizer", Kind: "generative", Maps: "accepted (GuideLLM's default)", apply: kindOnly},
		{Opt: "data-finalizer", Kind: "generative", Key: "tool_call_mode", Maps: "the data's session key `tool_call_mode`: `client` (the default: a `tools_column` record's tools offered on a tool-call turn) or `server` (not sent: a server tool-call turn)", apply: func(a *v07Applier, v any) error {
			switch s, _ := text(v); s {
			case "client":
				return nil
			case "server":
				return a.dataKey("tool_call_mode", "server")
			}
			return a.bad(v, "client or server")
		}},
		{Opt: "tokenizer", Kind: "huggingface_auto", Maps: "`--processor` (goodput reads tokenizer.json itself, offline)", apply: kindOnly},
		{Opt: "tokenizer", Kind: "hf_auto", Maps: "`--processor`", apply: kindOnly},
		{Opt: "tokenizer", Key: "model", Maps: "`--processor` (a tokenizer.json, its directory, a Hugging Face cache id, o200k_base, cl100k_base; never downloaded)", apply: str("processor", func(o *benchOptions) *string { return &o.processor })},
		{Opt: "tokenizer", Key: "load_kwargs", Maps: "empty only (goodput reads tokenizer.json itself, as `--processor-args`)", apply: accept(map[string]any{}, "goodput reads tokenizer.json itself (give model=PATH)")},
		{Opt: "seed", Kind: "static", Maps: "`--random-seed` (a plain number works too)", apply: kindOnly},
		{Opt: "seed", Kind: "static", Key: "value", Maps: "`--random-seed` (default 42)", apply: func(a *v07Applier, v any) error {
			f, ok := number(v)
			if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
				return a.bad(v, "a whole number")
			}
			return a.set("random-seed", func() { a.o.seed = int64(f) })
		}},

		// --output
		{Opt: "output", Kind: "json", Maps: "`--outputs json` (GuideLLM's v2 report); `path` → `--output-path`, the other outputs beside it", apply: func(a *v07Applier, _ any) error { return a.outputKind("json") }},
		{Opt: "output", Kind: "yaml", Maps: "`--outputs yaml` (the same report as YAML)", apply: func(a *v07Applier, _ any) error { return a.outputKind("yaml") }},
		{Opt: "output", Kind: "csv", Maps: "`--outputs csv`", apply: func(a *v07Applier, _ any) error { return a.outputKind("csv") }},
		{Opt: "output", Kind: "html", Maps: "`--outputs html` (goodput's self-contained report)", apply: func(a *v07Applier, _ any) error { return a.outputKind("html") }},
		{Opt: "output", Kind: "console", Maps: "`--outputs console`", apply: func(a *v07Applier, _ any) error { return a.outputKind("console") }},
		{Opt: "output", Kind: "plot", Refuse: "give kind=html: goodput's HTML report has the plots", Maps: "refused: `kind=html` has the plots"},
		{Opt: "output", Key: "path", Maps: "that output's file (a directory: GuideLLM's file name in it)", apply: func(a *v07Applier, v any) error { return a.outputPath(v) }},
		{Opt: "output", Key: "dpi", Maps: "refused with `plot`", Refuse: "only for kind=plot, which goodput does not write"},

		// --metrics
		{Opt: "metrics", Kind: "generative", Maps: "goodput's metrics", apply: kindOnly},
		{Opt: "metrics", Kind: "generative", Key: "sample_size", Maps: "`--sample-requests` (null: all)", apply: func(a *v07Applier, v any) error {
			if v == nil {
				return a.set("sample-requests", func() { a.o.sampleRequests = 0 })
			}
			f, ok := number(v)
			if !ok || f != math.Trunc(f) || f < 1 {
				return a.bad(v, "a count ≥ 1, or null for every request (0, which blanks request contents, is not supported)")
			}
			return a.set("sample-requests", func() { a.o.sampleRequests = int(f) })
		}},
		{Opt: "metrics", Kind: "generative", Key: "prefer_response_metrics", Maps: "true only (goodput takes the server's token counts)", apply: accept(true, "goodput reports the server's usage counts")},
		{Opt: "metrics", Kind: "generative", Key: "slo", Maps: "`--slo` per-request thresholds: `ttft_ms` → `ttft`, `tpot_ms` → `itl` (GuideLLM compares it with ITL), `e2el_ms` → `e2e`, `itl_ms` → `itl`", apply: func(a *v07Applier, v any) error { return a.sloObjectives(v) }},
	}
	return rows
}
