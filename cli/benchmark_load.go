package cli

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/dataset"
	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/reqtype"
	"github.com/goodput-dev/goodput/sweep"
	"github.com/goodput-dev/goodput/tokenize"
)

// validateClient builds the client configuration.
func (o *benchOptions) validateClient(p *draft, ep loadgen.Endpoint) error {
	p.Client = loadgen.ClientConfig{
		Target: o.target, Endpoint: ep, Path: o.requestPath, BatchSize: o.batchSize, Model: o.model, APIKey: o.apiKey, ExtraBody: o.extraBody, ContentExtras: o.contentExtras,
		NoStream: o.noStream, NoStreamUsage: o.noStreamUsage, NoIgnoreEOS: o.noIgnoreEOS,
		MaxTokensField: o.maxTokensField, CAFile: o.caFile, Insecure: o.insecure,
		ConnectTimeout: o.connectTimeout, StallTimeout: negIfZero(o.stallTimeout), RequestTimeout: negIfZero(o.requestTimeout),
		UserTimestamps: o.rxTimestamps == "user", LocalAddrs: o.localAddrs, HTTPClient: o.httpClient,
	}
	switch o.httpClient {
	case loadgen.HTTPClientAuto, loadgen.HTTPClientGoodput, loadgen.HTTPClientNet:
	default:
		return Usagef("--http-client %q: want auto, goodput or net/http", o.httpClient)
	}
	for _, a := range o.localAddrs {
		if net.ParseIP(strings.TrimSpace(a)) == nil {
			return Usagef("--local-addrs %q: want IP addresses of this machine, comma-separated, e.g. 127.0.0.2,127.0.0.3", a)
		}
	}
	if o.connectTimeout <= 0 {
		return Usagef("--connect-timeout %v: want a positive duration", o.connectTimeout)
	}
	if o.stallTimeout < 0 {
		return Usagef("--stall-timeout %v: want a duration ≥ 0 (0 disables)", o.stallTimeout)
	}
	if o.requestTimeout < 0 {
		return Usagef("--request-timeout %v: want a duration ≥ 0 (0 disables)", o.requestTimeout)
	}
	if o.maxTokensField != "" && o.maxTokensField != "max_tokens" && o.maxTokensField != "max_completion_tokens" {
		return Usagef("--max-tokens-field %q: want max_tokens or max_completion_tokens", o.maxTokensField)
	}
	if rt, _ := ep.Type(); o.maxTokensField != "" && rt.MaxTokensFixed {
		return Usagef("--max-tokens-field: only for chat_completions and text_completions (responses sends max_output_tokens, messages max_tokens)")
	}
	if o.requestPath != "" && (!strings.HasPrefix(o.requestPath, "/") || strings.ContainsAny(o.requestPath, "?# ")) {
		return Usagef("--request-path %q: want a path like /v1/chat/completions", o.requestPath)
	}
	models, weights, err := loadgen.ParseModels(o.model)
	if err != nil {
		return Usagef("--model: %v", err)
	}
	if len(models) > 1 || weights != nil || o.modelSelection != "" {
		if len(models) < 2 {
			return Usagef("--model-selection-strategy and model weights need several --model values, like a:0.6,b:0.4")
		}
		p.Client.Model, p.Client.Models, p.Client.ModelWeights = models[0], models, weights
		p.Client.ModelSelection, p.Client.ModelSeed = o.modelSelection, uint64(o.seed)
		switch o.modelSelection {
		case "", loadgen.ModelRoundRobin, loadgen.ModelRandom, loadgen.ModelWeighted:
		default:
			return Usagef("--model-selection-strategy %q: want round_robin, random or weighted", o.modelSelection)
		}
		if (o.modelSelection == loadgen.ModelWeighted) != (weights != nil) && o.modelSelection != "" {
			return Usagef("--model-selection-strategy %s: weights (a:0.6,b:0.4) go with weighted, and weighted needs them", o.modelSelection)
		}
	}
	if targets := strings.Split(o.target, ","); len(targets) > 1 {
		for i := range targets {
			targets[i] = strings.TrimSpace(targets[i])
		}
		p.Client.Target, p.Client.Targets = targets[0], targets
	}
	switch o.targetSelection {
	case "", loadgen.TargetRoundRobin, loadgen.TargetLeastInFlight:
		if o.targetSelection != "" && len(p.Client.Targets) < 2 {
			return Usagef("--target-selection %s: give several --target URLs, like http://a:8000,http://b:8000", o.targetSelection)
		}
		p.Client.TargetSelection = o.targetSelection
	default:
		return Usagef("--target-selection %q: want round_robin or least_in_flight", o.targetSelection)
	}
	if rt, _ := ep.Type(); o.batchSize < 1 || (o.batchSize > 1 && rt.Batch == "") {
		return Usagef("--batch-size %d: want 1 or more, and more than 1 only for %s", o.batchSize,
			reqtype.Names(func(t *reqtype.Type) bool { return t.Batch != "" }, func(t *reqtype.Type) string { return t.Name }, "and"))
	}
	if rt, _ := ep.Type(); o.maxTokensField != "" && rt.Output != reqtype.OutputTokens {
		return Usagef("--max-tokens-field: only for chat_completions and text_completions (%s has no output tokens)", o.requestType)
	}
	if len(o.headers) > 0 {
		p.Client.Headers = map[string]string{}
	}
	if h := o.sessionHeader; h != "" && strings.Trim(h, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") != "" {
		return Usagef("--session-header %q: want a header name such as x-session-id", h)
	}
	p.Client.SessionHeader = o.sessionHeader
	for _, h := range o.headers {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return Usagef("--header %q: want 'Name: value'", h)
		}
		p.Client.Headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	if o.extraBody != "" {
		if err := json.Unmarshal([]byte(o.extraBody), &p.ExtraBody); err != nil {
			return Usagef(`--extra-body: want a JSON object, e.g. '{"temperature":0}'`)
		}
	}
	if o.contentExtras != "" {
		var m map[string]any
		if err := json.Unmarshal([]byte(o.contentExtras), &m); err != nil || m == nil {
			return Usagef(`--content-extras: want a JSON object, e.g. '{"source_lang_code":"en","target_lang_code":"es"}'`)
		}
		if rt, _ := ep.Type(); rt.API != reqtype.APIChat && rt.API != reqtype.APIResponses {
			return Usagef("--content-extras (GuideLLM's extras.content): only chat_completions and responses send text content objects, not %s", rt.Name)
		}
		if _, bad := m["text"]; bad {
			return Usagef(`--content-extras: "text" is the content part's own field`)
		}
		if _, bad := m["type"]; bad {
			return Usagef(`--content-extras: "type" is the content part's own field`)
		}
	}
	if err := applyBackendArgs(o.backendArgs, p); err != nil {
		return err
	}
	if o.caFile != "" {
		if _, err := os.Stat(o.caFile); err != nil {
			return Usagef("--ca-file: %v", err)
		}
	}
	return nil
}

// planRates turns --rate-type and --rate into the list of strategies.
func (o *benchOptions) planRates(p *draft) error {
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
		return Usagef("--rate-type is required: synchronous, concurrent, throughput, constant, poisson, replay, sweep or knee")
	}
	if isSweepRateType(kind) {
		var err error
		p.Plan.Planner, p.Plan.Profile, err = o.sweep.planner(kind, rates, plannerBase{
			maxConcurrency: o.maxConcurrency, rampup: rampup, seed: uint64(o.seed), burstiness: o.arrival.gamma(), warmup: p.Plan.Warmup, cooldown: p.Plan.Cooldown,
			maxPrefill: o.maxPrefill})
		return err
	}
	p.Plan.Profile = report.Profile{Kind: kind, MaxConcurrency: o.maxConcurrency, RampupDuration: o.rampup, Warmup: p.Plan.Warmup, Cooldown: p.Plan.Cooldown}
	var list sweep.List
	switch loadgen.Kind(kind) {
	case loadgen.Synchronous:
		if len(rates) > 0 {
			return Usagef("--rate is not used with --rate-type synchronous")
		}
		list = append(list, loadgen.Strategy{Kind: loadgen.Synchronous})
	case loadgen.Concurrent:
		if len(rates) == 0 {
			return Usagef("--rate-type concurrent needs --rate with the number of streams, e.g. --rate 4,8,16,32")
		}
		for _, r := range rates {
			if r < 1 || r != math.Trunc(r) {
				return Usagef("--rate %v: concurrent streams must be whole numbers ≥ 1", r)
			}
			list = append(list, o.arrival.apply(loadgen.Strategy{Kind: loadgen.Concurrent, Streams: int(r), Rampup: rampup}, rampup))
			p.Plan.Profile.Streams = append(p.Plan.Profile.Streams, int(r))
		}
	case loadgen.Throughput:
		n := o.maxConcurrency
		if len(rates) > 1 {
			return Usagef("--rate-type throughput takes one --rate (its max concurrency)")
		}
		if len(rates) == 1 {
			if rates[0] < 1 || rates[0] != math.Trunc(rates[0]) {
				return Usagef("--rate %v: throughput max concurrency must be a whole number ≥ 1", rates[0])
			}
			n = int(rates[0])
		}
		if n == 0 {
			n = loadgen.DefaultMaxConcurrency
		}
		p.Plan.Profile.MaxConcurrency = n
		list = append(list, o.arrival.apply(loadgen.Strategy{Kind: loadgen.Throughput, Streams: n, Rampup: rampup}, rampup))
	case loadgen.Constant, loadgen.Poisson:
		if len(o.arrival.series) > 0 {
			s := o.arrival.apply(loadgen.Strategy{Kind: loadgen.Kind(kind), Series: o.arrival.series, MaxConcurrency: o.maxConcurrency, Seed: uint64(o.seed)}, 0)
			list, p.Plan.Profile.Rate = append(list, s), []float64{s.MeanRate()}
			break
		}
		if len(rates) == 0 {
			return Usagef("--rate-type %s needs --rate in requests per second, e.g. --rate 2,4,8", kind)
		}
		for _, r := range rates {
			if r <= 0 {
				return Usagef("--rate %v: requests per second must be > 0", r)
			}
			s := loadgen.Strategy{Kind: loadgen.Kind(kind), Rate: r, MaxConcurrency: o.maxConcurrency, Seed: uint64(o.seed)}
			if kind == "constant" {
				s.Rampup = rampup
			}
			list = append(list, o.arrival.apply(s, rampup))
		}
		p.Plan.Profile.Rate = rates
	case loadgen.UserCentric:
		switch {
		case len(rates) == 0:
			return Usagef("--rate-type user_centric needs --rate, the users' total requests per second, e.g. --rate 2 --users 16")
		case o.users < 1:
			return Usagef("--rate-type user_centric needs --users N, the number of users (each sends its turns N/rate seconds apart)")
		case o.rampup != 0:
			return Usagef("--rate-type user_centric: the users pace themselves; --rampup does not apply")
		}
		for _, r := range rates {
			if r <= 0 {
				return Usagef("--rate %v: requests per second must be > 0", r)
			}
			// --max-concurrency caps the users mid-session (AIPerf's
			// --concurrency with --user-centric-rate).
			list = append(list, loadgen.Strategy{Kind: loadgen.UserCentric, Rate: r, Streams: o.users, MaxConcurrency: o.maxConcurrency})
		}
		// GuideLLM's nearest reading: constant at the rate, each user at
		// most one request in flight (the report's extras say the rest).
		p.Plan.Profile.Kind, p.Plan.Profile.Rate, p.Plan.Profile.MaxConcurrency = report.StrategyConstant, rates, list[0].Workers()
	case loadgen.Replay:
		if len(rates) > 0 {
			return Usagef("--rate is not used with --rate-type replay (the trace gives the times; see --time-scale)")
		}
		if len(p.Data.Opened.Schedule) == 0 {
			return Usagef("--rate-type replay needs a trace file in --data (timestamp, input_length, output_length)")
		}
		p.Plan.Profile.TimeScale = o.timeScale
		list = append(list, loadgen.Strategy{Kind: loadgen.Replay, Schedule: p.Data.Opened.Schedule, MaxConcurrency: o.maxConcurrency})
	default:
		return Usagef("--rate-type %q: want synchronous, concurrent, throughput, constant (async), poisson, replay, sweep, knee or user_centric", o.rateType)
	}
	for i := range list {
		list[i].MaxPrefill = o.maxPrefill
	}
	for _, s := range list {
		if err := s.Validate(); err != nil && len(s.Series) > 0 {
			return Usagef("--rate-series: %v", err)
		} else if err != nil {
			return Usagef("--rate-type %v", err)
		}
	}
	p.Plan.Planner = o.sweep.stopOn(list)
	return nil
}

func parseRequestType(s string) (loadgen.Endpoint, error) {
	if t, ok := reqtype.ByName(s); ok {
		return loadgen.Endpoint(t.Path), nil
	}
	return "", Usagef("--request-type %q: want %s", s, reqtype.Names(nil, func(t *reqtype.Type) string { return t.Name }, "or"))
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
			return nil, Usagef("--rate %q: want a comma list of numbers, e.g. 4,8,16", s)
		}
		out = append(out, v)
	}
	return out, nil
}

// applyBackendArgs maps GuideLLM's --backend-args JSON onto the draft.
func applyBackendArgs(s string, p *draft) error {
	if s == "" {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return Usagef(`--backend-args: want a JSON object, e.g. '{"extra_body":{"temperature":0}}'`)
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		bad := func(form string) error { return Usagef("--backend-args: key %q: want %s", k, form) }
		switch k {
		case "api_key":
			if json.Unmarshal(v, &p.Client.APIKey) != nil {
				return bad("a string")
			}
		case "headers":
			var h map[string]string
			if json.Unmarshal(v, &h) != nil {
				return bad(`an object of strings, e.g. {"X-Team":"a"}`)
			}
			if p.Client.Headers == nil {
				p.Client.Headers = map[string]string{}
			}
			for hk, hv := range h {
				p.Client.Headers[hk] = hv
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
					return Usagef("--backend-args: extras.%s: not supported: goodput takes extras.body (--extra-body) and extras.headers (--header)", ek)
				}
			}
			sub, _ := json.Marshal(ex)
			if err := applyBackendArgs(string(sub), p); err != nil {
				return err
			}
		case "extra_body", "body":
			if json.Unmarshal(v, &p.ExtraBody) != nil || p.ExtraBody == nil {
				return bad("a JSON object")
			}
			p.Client.ExtraBody = string(v)
		case "verify":
			var verify bool
			if json.Unmarshal(v, &verify) != nil {
				return bad("true or false")
			}
			p.Client.Insecure = p.Client.Insecure || !verify
		case "timeout":
			var sec float64
			if json.Unmarshal(v, &sec) != nil || sec <= 0 {
				return bad("seconds > 0")
			}
			p.Client.RequestTimeout = time.Duration(sec * float64(time.Second))
		case "timeout_connect":
			var sec float64
			if json.Unmarshal(v, &sec) != nil || sec <= 0 {
				return bad("seconds > 0")
			}
			p.Client.ConnectTimeout = time.Duration(sec * float64(time.Second))
		case "api_routes":
			// GuideLLM's paths by request type ("chat_completions":
			// "v1/chat/completions", ...): the entry of this run's type
			// sets the path unless --request-path did.
			var routes map[string]string
			if json.Unmarshal(v, &routes) != nil {
				return bad(`an object of paths, e.g. {"chat_completions":"v1/chat/completions"}`)
			}
			for name, path := range routes {
				if ep, err := parseRequestType(name); err == nil && ep == p.Client.Endpoint && p.Client.Path == "" {
					p.Client.Path = "/" + strings.TrimPrefix(path, "/")
				}
			}
		case "http2", "follow_redirects", "validate_backend":
			var b bool
			if json.Unmarshal(v, &b) != nil {
				return bad("true or false")
			}
			switch k {
			case "http2":
				p.Client.DisableHTTP2 = !b
			case "follow_redirects":
				p.Client.FollowRedirects = b
			case "validate_backend":
				p.SkipReady = !b
			}
		default:
			return Usagef("--backend-args: unsupported key %q (supported: api_key, headers, extra_body, extras, verify, timeout, timeout_connect, http2, follow_redirects, validate_backend, api_routes)", k)
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
