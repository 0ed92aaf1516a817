package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/reqtype"
	"github.com/goodput-dev/goodput/slo"
	"github.com/goodput-dev/goodput/sweep"
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

const notYet = "not supported yet"

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
			return usagef("--%s %s=%s: not supported: %s", a.opt, a.key, shown(v), why)
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
				return usagef("--backend request_format=%s: not supported: want %s", s, reqtype.Names(nil, func(t *reqtype.Type) string { return t.Path }, "or"))
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
		{Opt: "backend", Kind: "openai_http", Key: "extras", Maps: "`extras.body` → `--extra-body`, `extras.headers` → `--header`; `params`, `files`, `content`, `method` are refused", apply: func(a *v07Applier, v any) error { return a.extras(v) }},
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
		{Opt: "constraint", Kind: "max_global_error_rate", Refuse: notYet + ": goodput's error stops are max_errors and max_error_rate (a sliding window); --fail-on-error-rate judges the whole run after it", Maps: "refused (" + notYet + "); see `max_error_rate` and `--fail-on-error-rate`"},
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
			case a.kind != "max_errors" && a.kind != "max_error_rate":
				return usagef("--constraint kind=%s,stopping_scope=all: not supported: goodput's stopping scope applies to max_errors and max_error_rate", a.kind)
			}
			return a.set("stopping-scope", func() { a.o.sweep.stoppingScope = "all" })
		}},

		// data
		{Opt: "data-column-mapper", Kind: "generative_column_mapper", Maps: "`--data-column-mapper` (roles text, prefix, raw messages, token counts, timestamp)", apply: kindOnly},
		{Opt: "data-column-mapper", Kind: "generative_column_mapper", Key: "column_mappings", Maps: "the role → column map", apply: func(a *v07Applier, v any) error {
			m, ok := v.(map[string]any)
			if !ok {
				return a.bad(v, `an object, e.g. {"text_column":"question"}`)
			}
			return a.set("data-column-mapper", func() {
				a.o.columnMapper = canonicalJSON(map[string]any{"kind": "generative_column_mapper", "column_mappings": m})
			})
		}},
		{Opt: "data-column-mapper", Kind: "pooling_column_mapper", Refuse: "goodput measures text generation (pooling is not supported)", Maps: "refused"},
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
				return usagef("--data-loader num_workers=%s: not supported: goodput prepares the requests in its own process before the load (no loader workers to add; give 1 or leave it out)", shown(v))
			}
			return nil
		}},
		{Opt: "data-preprocessor", Kind: "encode_media", Maps: "accepted (GuideLLM's default): goodput sends the data's images and audio as data URLs, as read", apply: kindOnly},
		{Opt: "data-preprocessor", Kind: "encode_media", Key: "audio_kwargs", Maps: "empty only", apply: accept(map[string]any{}, "goodput sends media files as they are, with no re-encoding options")},
		{Opt: "data-preprocessor", Kind: "encode_media", Key: "image_kwargs", Maps: "empty only", apply: accept(map[string]any{}, "goodput sends media files as they are, with no re-encoding options")},
		{Opt: "data-preprocessor", Kind: "encode_media", Key: "video_kwargs", Maps: "empty only", apply: accept(map[string]any{}, "goodput sends media files as they are, with no re-encoding options")},
		{Opt: "data-preprocessor", Kind: "tool_calling_message_extractor", Refuse: "goodput takes tools from the data's tools column or synthetic tools=N (session keys), not from a message extractor", Maps: "refused: tools come from the data's `tools` column or synthetic `tools=N`"},
		{Opt: "data-preprocessor", Kind: "turn_pivot", Refuse: "goodput's synthetic conversations take one spec for every turn: give one --data kind=synthetic_text,…,turns=N (first_prompt_tokens and first_output_tokens for the first turn)", Maps: "refused: one `--data kind=synthetic_text,…,turns=N` (`first_prompt_tokens`, `first_output_tokens` for the first turn)"},
		{Opt: "data-finalizer", Kind: "generative", Maps: "accepted (GuideLLM's default)", apply: kindOnly},
		{Opt: "data-finalizer", Kind: "generative", Key: "tool_call_mode", Maps: "`client` only (the default)", apply: accept("client", "goodput answers tool calls on the client side only")},
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

// overSat applies --constraint kind=over_saturation and its keys to
// --over-saturation (loadgen.ParseOverSaturation's form).
func overSat(a *v07Applier, v any) error {
	return a.constraintKey("over-saturation", &a.o.quality.overSat, v, func(s string) error {
		_, err := loadgen.ParseOverSaturation(s)
		return err
	})
}

// targetMOE applies --constraint kind=target_moe and its keys to
// --target-moe (sweep.ParseTargetMOE's form).
func targetMOE(a *v07Applier, v any) error {
	return a.constraintKey("target-moe", &a.o.quality.targetMOE, v, func(s string) error {
		_, err := sweep.ParseTargetMOE(s)
		return err
	})
}

// constraintKey adds the key being applied (none for the kind itself)
// to a constraint flag's key=value items, checked by parse.
func (a *v07Applier) constraintKey(flag string, dst *string, v any, parse func(string) error) error {
	item := "kind=" + a.kind
	if a.key != "" {
		var val string
		switch t := v.(type) {
		case string:
			val = t
		case bool:
			val = strconv.FormatBool(t)
		default:
			f, ok := number(v)
			if !ok {
				return a.bad(v, "a number or a word")
			}
			val = strconv.FormatFloat(f, 'f', -1, 64)
		}
		if a.kind == "over_saturation" && a.key == "mode" && val == "enforce" {
			val = "stop" // GuideLLM's name of stop
		}
		item = *dst + "," + a.key + "=" + val
	}
	if err := parse(item); err != nil {
		where := "kind=" + a.kind
		if a.key != "" {
			where += "," + a.key + "=" + shown(v)
		}
		return usagef("--constraint %s: %v", where, err)
	}
	return a.set(flag, func() { *dst = item })
}

// v07Applier applies v0.7 option values to the benchmark options.
type v07Applier struct {
	o   *benchOptions
	fs  *pflag.FlagSet
	cli map[string]bool // flags given on the command line
	// the value being applied
	opt, kind, key string
	fromFile       bool
	file           string          // the --config file, for messages
	slo            []slo.Objective // --metrics slo and target_attainment
	outKinds       []string
	outKind        string
}

// set assigns a benchmark flag from a v0.7 option. A flag the command line
// gave wins over a --config file; given twice on the command line, it is
// an error.
func (a *v07Applier) set(flag string, assign func()) error {
	if a.cli[flag] && flag != a.opt {
		if a.fromFile {
			return nil
		}
		return usagef("--%s %s and --%s both given: give one", a.opt, a.what(), flag)
	}
	assign()
	if f := a.fs.Lookup(flag); f != nil {
		f.Changed = true
	}
	return nil
}

func (a *v07Applier) what() string {
	if a.key == "" {
		return "kind=" + a.kind
	}
	return a.key + "="
}

func (a *v07Applier) bad(v any, want string) error {
	return usagef("--%s %s=%s: want %s", a.opt, a.key, shown(v), want)
}

// nullable are the keys whose null is not their default: null is "none"
// (timeout: no limit; sample_size: every request).
var nullable = map[string]bool{"timeout": true, "sample_size": true}

// apply applies one value of option opt.
func (a *v07Applier) apply(opt string, v regValue, rows []v07Row) error {
	a.opt, a.kind, a.key = opt, v.kind(), ""
	var kinds []string
	var kindRow *v07Row
	for i, r := range rows {
		if r.Opt != opt || r.Kind == "" || r.Key != "" {
			continue
		}
		kinds = append(kinds, r.Kind)
		if r.Kind == a.kind {
			kindRow = &rows[i]
		}
	}
	if len(kinds) > 0 { // options with kinds (all but --knee-detection)
		if _, ok := v["kind"]; !ok {
			return usagef("--%s: missing kind (want kind=%s,…)", opt, strings.Join(kinds, "|"))
		}
		if kindRow == nil {
			return usagef("--%s kind=%s: unknown kind (want %s)", opt, shown(v["kind"]), strings.Join(kinds, ", "))
		}
		if kindRow.Refuse != "" {
			return usagef("--%s kind=%s: %s", opt, a.kind, kindRow.Refuse)
		}
		if err := kindRow.apply(a, nil); err != nil {
			return err
		}
	}
	keyRow := func(key string) *v07Row {
		for i, r := range rows {
			if r.Opt == opt && r.Key == key && (r.Kind == a.kind || r.Kind == "") {
				return &rows[i]
			}
		}
		return nil
	}
	for _, k := range v.keys() {
		if k == "kind" {
			continue
		}
		a.key = k
		r := keyRow(k)
		if r == nil {
			var known []string
			for _, r := range rows {
				if r.Opt == opt && r.Key != "" && (r.Kind == a.kind || r.Kind == "") {
					known = append(known, r.Key)
				}
			}
			where := "--" + opt
			if a.kind != "" {
				where += " kind=" + a.kind
			}
			return usagef("%s: unknown key %q (keys: %s)", where, k, strings.Join(known, ", "))
		}
		if v[k] == nil && !nullable[k] {
			continue // GuideLLM's None: the default
		}
		if r.Refuse != "" {
			return usagef("--%s %s: not supported: %s", opt, k, r.Refuse)
		}
		if err := r.apply(a, v[k]); err != nil {
			return err
		}
	}
	for _, r := range rows {
		if r.Opt == opt && r.Kind == a.kind && r.Required {
			if _, ok := v[r.Key]; !ok {
				return usagef("--%s kind=%s needs %s=…", opt, a.kind, r.Key)
			}
		}
	}
	return nil
}

// rates sets --rate from streams or rate (a number or a list).
func (a *v07Applier) rates(v any, whole bool) error {
	l, ok := numbers(v)
	want := "a number > 0 or a JSON list of them, e.g. [1,2,4]"
	if whole {
		want = "a whole number ≥ 1 or a JSON list of them, e.g. [1,2,4]"
	}
	if !ok {
		return a.bad(v, want)
	}
	for _, f := range l {
		if !(f > 0) || math.IsInf(f, 0) || (whole && f != math.Trunc(f)) {
			return a.bad(v, want)
		}
	}
	return a.setRates(l)
}

// setRates sets --rate to the list l, typed beside its text.
func (a *v07Applier) setRates(l []float64) error {
	return a.set("rate", func() {
		a.o.rate = formatNumbers(l)
		a.o.rates.put(a.o.rate, l)
	})
}

func (a *v07Applier) maxConcurrency(v any) error {
	if v == nil {
		return nil // GuideLLM's None: goodput's default cap
	}
	f, ok := number(v)
	if !ok || f < 1 || f != math.Trunc(f) || f > math.MaxInt32 {
		return a.bad(v, "a whole number ≥ 1, or null")
	}
	return a.set("max-concurrency", func() { a.o.maxConcurrency = int(f) })
}

// oneNumber reads a positive number; GuideLLM's per-benchmark lists are
// refused unless they hold one value.
func (a *v07Applier) oneNumber(v any, want string) (float64, error) {
	l, ok := numbers(v)
	if !ok {
		return 0, a.bad(v, want)
	}
	if len(l) > 1 {
		return 0, usagef("--%s %s=%s: one value per benchmark is not supported: give one value", a.opt, a.key, shown(v))
	}
	if !(l[0] > 0) || math.IsInf(l[0], 0) {
		return 0, a.bad(v, want)
	}
	return l[0], nil
}

func (a *v07Applier) count(v any, flag string, p *int) error {
	f, err := a.oneNumber(v, "a whole number ≥ 1")
	if err != nil {
		return err
	}
	if f != math.Trunc(f) || f > math.MaxInt32 {
		return a.bad(v, "a whole number ≥ 1")
	}
	return a.set(flag, func() { *p = int(f) })
}

// phase sets --warmup or --cooldown from a TransientPhaseConfig value.
func (a *v07Applier) phase(flag string, p *string, v any) error {
	var s string
	switch t := v.(type) {
	case nil:
		return nil
	case map[string]any:
		s = canonicalJSON(t)
	case string:
		s = t
	default:
		f, ok := number(v)
		if !ok || f < 0 {
			return a.bad(v, "a number (<1 a fraction, ≥1 an amount) or a TransientPhaseConfig object")
		}
		s = strconv.FormatFloat(f, 'g', -1, 64)
	}
	return a.set(flag, func() { *p = s })
}

// backendArg sets one key of --backend-args (the keys it shares with
// GuideLLM's backend), keeping the others.
func (a *v07Applier) backendArg(key string, v any) error {
	return a.set("backend-args", func() {
		m := map[string]any{}
		_ = json.Unmarshal([]byte(a.o.backendArgs), &m) // "" or an object set here
		m[key] = v
		a.o.backendArgs = canonicalJSON(m)
	})
}

// extras applies GuideLLM's request extras: body and headers.
func (a *v07Applier) extras(v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return a.bad(v, `an object, e.g. {"body":{"temperature":0}}`)
	}
	keys := regValue(m).keys()
	for _, k := range keys {
		switch k {
		case "body":
			b, ok := m[k].(map[string]any)
			if !ok {
				return usagef("--backend extras.body=%s: want an object, e.g. {\"temperature\":0}", shown(m[k]))
			}
			if err := a.set("extra-body", func() { a.o.extraBody = canonicalJSON(b) }); err != nil {
				return err
			}
		case "headers":
			if err := a.headers(m[k]); err != nil {
				return err
			}
		default:
			return usagef("--backend extras.%s: not supported (goodput takes extras.body and extras.headers)", k)
		}
	}
	return nil
}

// headers adds request headers (kept with those of --header).
func (a *v07Applier) headers(v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return usagef("--backend headers=%s: want an object of strings, e.g. {\"X-Team\":\"a\"}", shown(v))
	}
	if a.cli["header"] && a.fromFile {
		return nil
	}
	names := regValue(m).keys()
	for _, k := range names {
		s, ok := m[k].(string)
		if !ok {
			return usagef("--backend headers.%s=%s: want a string", k, shown(m[k]))
		}
		a.o.headers = append(a.o.headers, k+": "+s)
	}
	a.fs.Lookup("header").Changed = true
	return nil
}

func (a *v07Applier) outputKind(kind string) error {
	for _, k := range a.outKinds {
		if k == kind {
			return usagef("--output kind=%s given twice", kind)
		}
	}
	a.outKinds, a.outKind = append(a.outKinds, kind), kind
	return nil
}

// GuideLLM's file names, for an --output path that is a directory.
var v07OutputNames = map[string]string{"json": "benchmarks.json", "yaml": "benchmarks.yaml", "csv": "benchmarks.csv", "html": "benchmarks.html"}

func (a *v07Applier) outputPath(v any) error {
	p, ok := v.(string)
	if !ok || strings.TrimSpace(p) == "" {
		return a.bad(v, "a file path")
	}
	name, ok := v07OutputNames[a.outKind]
	if !ok {
		return usagef("--output kind=%s: takes no path", a.outKind)
	}
	if st, err := os.Stat(p); strings.HasSuffix(p, "/") || (err == nil && st.IsDir()) {
		p = filepath.Join(p, name)
	}
	a.o.namedOutputs = append(a.o.namedOutputs, p)
	if a.outKind == "json" {
		if filepath.Ext(p) != ".json" {
			return usagef("--output kind=json,path=%s: want a .json file or a directory", p)
		}
		return a.set("output-path", func() { a.o.outputPath = p })
	}
	if a.cli["outputs"] && a.fromFile {
		return nil
	}
	if a.o.outputFiles == nil {
		a.o.outputFiles = map[string]string{}
	}
	a.o.outputFiles[a.outKind] = p
	return nil
}

// v07SLOMetrics are the metrics of GuideLLM's --metrics slo thresholds
// (GuideLLM compares tpot_ms with the inter-token latency).
var v07SLOMetrics = map[string]slo.Metric{"ttft_ms": slo.TTFT, "tpot_ms": slo.ITL, "itl_ms": slo.ITL, "e2el_ms": slo.E2E, "request_latency_ms": slo.E2E}

// sloObjectives maps GuideLLM's --metrics slo thresholds to per-request
// objectives.
func (a *v07Applier) sloObjectives(v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return a.bad(v, `an object of thresholds in ms, e.g. {"ttft_ms":200,"tpot_ms":50}`)
	}
	for _, k := range regValue(m).keys() {
		metric, ok := v07SLOMetrics[k]
		if !ok {
			return usagef("--metrics slo.%s: unknown objective (want ttft_ms, tpot_ms, itl_ms, e2el_ms)", k)
		}
		f, ok := number(m[k])
		if !ok || !(f > 0) || math.IsInf(f, 0) {
			return usagef("--metrics slo.%s=%s: want milliseconds > 0", k, shown(m[k]))
		}
		a.slo = append(a.slo, slo.Objective{Metric: metric, Stat: slo.Each, Threshold: f})
	}
	return nil
}

// finish sets what several values build together: the outputs and the
// SLO, each typed beside the text --print-config shows.
func (a *v07Applier) finish() error {
	a.opt, a.key = "output", ""
	if len(a.outKinds) > 0 {
		a.kind = a.outKinds[0]
		kinds := map[string]bool{}
		for _, k := range a.outKinds {
			kinds[k] = true
		}
		if err := a.set("outputs", func() {
			a.o.outputs = strings.Join(a.outKinds, ",")
			a.o.outputKinds.put(a.o.outputs, kinds)
		}); err != nil {
			return err
		}
	}
	if len(a.slo) > 0 {
		a.opt, a.key = "metrics", "slo"
		spec, err := slo.New(a.slo...)
		if err != nil {
			return usagef("--metrics slo: %v", err)
		}
		terms := make([]string, len(spec.Objectives))
		for i, o := range spec.Objectives {
			terms[i] = o.String()
		}
		sort.Strings(terms)
		if err := a.set("slo", func() {
			a.o.sweep.slo = strings.Join(terms, ",")
			a.o.sweep.given.put(a.o.sweep.slo, spec)
		}); err != nil {
			return err
		}
	}
	return nil
}

// v07State holds the raw values of the v0.7 options, from the command
// line or a --config file, until applyV07.
type v07State struct {
	byOpt    map[string][]string
	fromFile map[string]bool
	cli      map[string]bool // the flags the command line gave
	loading  bool            // a --config file is being applied
}

// applyV07 applies every v0.7 option value to o, in v07Opts order.
func applyV07(o *benchOptions, fs *pflag.FlagSet, st *v07State, file string) error {
	if len(o.override) > 0 {
		return usagef("--override: not supported: give the list in the option itself (--profile '{\"kind\":\"concurrent\",\"streams\":[1,2,4]}')")
	}
	a := &v07Applier{o: o, fs: fs, cli: st.cli, file: file}
	rows := v07Table()
	for _, opt := range v07Opts {
		seen := map[string]bool{}
		for _, raw := range st.byOpt[opt] {
			v, err := parseRegistry(raw)
			if err != nil {
				return usagef("--%s %q: %v", opt, raw, err)
			}
			a.fromFile = st.fromFile[opt]
			if opt == "constraint" {
				if seen[v.kind()] {
					return usagef("--constraint kind=%s given twice", v.kind())
				}
				seen[v.kind()] = true
			}
			if err := a.apply(opt, v, rows); err != nil {
				return err
			}
		}
	}
	a.fromFile = st.fromFile["output"] || st.fromFile["metrics"] || st.fromFile["profile"]
	return a.finish()
}

// v07Value is a v0.7 option's pflag value: its registry form is kept for
// applyV07; a plain word is its pre-0.7 meaning, given to legacy
// (--backend openai_http, --profile sweep, --tokenizer PATH, --seed 42).
type v07Value struct {
	opt    string
	st     *v07State
	legacy func(string) error // nil: the option has no plain form
	repeat bool
	// needKind: a value without kind is the plain form too
	// (--data-column-mapper '{"text_column":"q"}').
	needKind bool
	str      func() string
}

func (v *v07Value) String() string {
	if v.str != nil {
		return v.str()
	}
	return ""
}

func (v *v07Value) Type() string {
	if v.repeat {
		return "stringArray"
	}
	return "string"
}

func (v *v07Value) Set(s string) error {
	r, err := parseRegistry(s)
	plain := err == errNotRegistry || (v.needKind && err == nil && r.kind() == "")
	switch {
	case plain && v.legacy != nil:
		return v.legacy(s)
	case plain:
		return fmt.Errorf("want kind=TYPE,key=value,… or a JSON/YAML object")
	}
	if v.st.loading {
		v.st.fromFile[v.opt] = true
	}
	if !v.repeat {
		v.st.byOpt[v.opt] = nil
	}
	v.st.byOpt[v.opt] = append(v.st.byOpt[v.opt], s)
	return nil
}

// GetSlice lists a repeatable option's values (for --print-config).
func (v *v07Value) GetSlice() []string { return v.st.byOpt[v.opt] }

// v07Flags registers the v0.7 options and the configuration file flags.
func v07Flags(o *benchOptions, fs *pflag.FlagSet) {
	st := &v07State{byOpt: map[string][]string{}, fromFile: map[string]bool{}}
	o.v07 = st
	to := func(flag string) func(string) error {
		return func(s string) error {
			if st.loading && st.cli[flag] {
				return nil
			}
			return fs.Set(flag, s)
		}
	}
	add := func(name string, v *v07Value, usage string) {
		v.opt, v.st = name, st
		fs.Var(v, name, usage)
	}
	add("backend", &v07Value{legacy: to("backend-type")}, "GuideLLM v0.7: kind=openai_http,target=URL,model=…,request_format=…,api_key=…,timeout=…,http2=…,extras=… or a JSON/YAML object (a plain openai_http: --backend-type)")
	add("profile", &v07Value{legacy: to("rate-type")}, "GuideLLM v0.7: kind=synchronous|concurrent|throughput|constant|poisson|sweep|replay|goodput with streams, rate, max_concurrency, sweep_size, strategy_type, time_scale, rampup_duration, warmup, cooldown (a plain name: --rate-type)")
	add("constraint", &v07Value{repeat: true}, "GuideLLM v0.7 (repeatable): kind=max_duration,seconds=N | max_requests,count=N | max_errors,count=N | max_error_rate,rate=X,window=N | over_saturation[,mode=…,min_seconds=…] (--over-saturation) | target_moe,metric=…,statistic=…,moe=… (--target-moe)")
	add("output", &v07Value{repeat: true}, "GuideLLM v0.7 (repeatable): kind=json|yaml|csv|html|console,path=FILE")
	add("tokenizer", &v07Value{legacy: to("processor")}, "GuideLLM v0.7: kind=huggingface_auto,model=PATH (a plain path: --processor)")
	fs.Var(&v07Value{opt: "data-column-mapper", st: st, needKind: true, legacy: func(s string) error { o.columnMapper = s; return nil }, str: func() string { return o.columnMapper }},
		"data-column-mapper", `map data file columns: kind=generative_column_mapper,column_mappings.text_column=article, or '{"text_column":"question","output_tokens_count_column":"max_len"}'`)
	add("data-loader", &v07Value{}, "GuideLLM v0.7: kind=pytorch,samples=N,shuffle=true (--data-samples, --data-shuffle)")
	add("data-preprocessor", &v07Value{repeat: true}, "GuideLLM v0.7: kind=encode_media (the default) only")
	add("data-finalizer", &v07Value{}, "GuideLLM v0.7: kind=generative (the default) only")
	add("seed", &v07Value{legacy: to("random-seed")}, "GuideLLM v0.7: kind=static,value=N, or N (--random-seed)")
	add("metrics", &v07Value{}, `GuideLLM: kind=generative,sample_size=N (--sample-requests), or '{"kind":"generative","slo":{"ttft_ms":200,"tpot_ms":50}}' (--slo)`)
	fs.StringArrayVar(&o.override, "override", nil, "GuideLLM's --override KEY VALUES: not supported (give lists in the option)")
	fs.IntVar(&o.errorRateWindow, "error-rate-window", 0, "requests in --max-error-rate's sliding window (default 30, GuideLLM's window)")
	fs.StringVarP(&o.configFile, "config", "c", "", "a configuration file (YAML or JSON): goodput's (every long flag is a key), a GuideLLM scenario (spec: {backend, profile, data, constraints, outputs…}) or report, or GuideLLM's built-in scenario chat or rag; flags given on the command line win")
	fs.StringVar(&o.configFile, "scenario", "", "alias of --config")
	fs.BoolVar(&o.printConfig, "print-config", false, "print the effective configuration as a goodput --config YAML file (e.g. for a ConfigMap) and exit; the API key is left out")
}

// normalizeData rewrites a GuideLLM v0.7 --data value for goodput's data
// reader: dotted keys (load_kwargs.name=3.0.0) become a JSON object, and
// load_kwargs {"split": "train"} on a file kind, that file's only split
// as GuideLLM loads it, is dropped.
func normalizeData(s string) string {
	v, err := parseRegistry(s)
	if err != nil || v.kind() == "" {
		return s
	}
	changed := false
	if lk, ok := v["load_kwargs"].(map[string]any); ok && strings.HasSuffix(v.kind(), "_file") && len(lk) == 1 && lk["split"] == "train" {
		delete(v, "load_kwargs")
		changed = true
	}
	if !strings.HasPrefix(strings.TrimSpace(s), "{") {
		for _, x := range v {
			if _, nested := x.(map[string]any); nested {
				changed = true
			}
		}
	}
	if !changed {
		return s
	}
	return canonicalJSON(map[string]any(v))
}

// existingFiles are the paths of names that exist.
func existingFiles(names []string) []string {
	var out []string
	for _, n := range names {
		if _, err := os.Stat(n); err == nil {
			out = append(out, n)
		}
	}
	return out
}
