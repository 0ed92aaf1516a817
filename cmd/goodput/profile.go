package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/aiperf"
	"github.com/goodput-dev/goodput/slo"
)

// `goodput profile` is AIPerf's `aiperf profile` command line mapped onto
// the benchmark engine, so that a Job line such as
//
//	aiperf profile --url http://svc:8000/v1 --model M --concurrency 4,8,16,32 \
//	  --input-tokens 1024 --output-tokens 256 --num-requests 200 --output /results/aiperf.json
//
// runs with only the binary name changed. It translates the flags into
// the benchmark command's options (one benchmark per --concurrency or
// --request-rate value), runs them, and writes goodput's report plus one
// AIPerf export (profile_export_aiperf.json and .csv) per benchmark,
// computed from the per-request records AIPerf's way.
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
	url, model, endpointType  string
	streaming                 bool
	concurrency, requestRate  string
	rateMode                  string
	isl, islStddev            int
	osl, oslStddev            int
	requestCount, warmupCount int
	duration                  float64
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
}

// profileDefaultISL is AIPerf's default input sequence length.
const profileDefaultISL = 550

func profileFlags(po *profileOptions, fs *pflag.FlagSet) {
	fs.StringVarP(&po.url, "url", "u", "localhost:8000", "server URL (AIPerf's form: host:port, http://host:port or …/v1)")
	fs.StringVarP(&po.model, "model", "m", "", "model name (required; alias --model-names)")
	fs.StringVar(&po.model, "model-names", "", "alias of --model")
	fs.StringVar(&po.endpointType, "endpoint-type", "chat", "chat (/v1/chat/completions) or completions (/v1/completions)")
	fs.BoolVar(&po.streaming, "streaming", false, "stream responses (SSE); needed for TTFT, ITL and the other per-token metrics")
	fs.StringVar(&po.concurrency, "concurrency", "", "concurrent requests; a comma list (4,8,16,32) runs one benchmark each (default 1)")
	fs.StringVar(&po.requestRate, "request-rate", "", "requests per second, open loop; a comma list runs one benchmark each (--concurrency is then the in-flight cap)")
	fs.StringVar(&po.rateMode, "request-rate-mode", "poisson", "arrival pattern of --request-rate: poisson or constant (alias --arrival-pattern)")
	fs.StringVar(&po.rateMode, "arrival-pattern", "poisson", "alias of --request-rate-mode")
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
	fs.StringArrayVar(&po.goodput, "goodput", nil, `per-request SLOs for goodput, e.g. "time_to_first_token:500 inter_token_latency:50" (display units: ms, tokens/sec/user)`)
	fs.StringVar(&po.tokenizer, "tokenizer", "", "tokenizer of the prompts and of the client-side token counts (AIPerf's ISL and OSL): builtin (o200k_base), a built-in encoding, a tokenizer.json path or a locally cached Hugging Face id, never downloaded (default: the model's when cached locally; the benchmark's --processor)")
	fs.StringVar(&po.artifactDir, "artifact-dir", "", "directory of the exports (default artifacts/<model>-openai-<endpoint>-<load>; alias --output-artifact-dir)")
	fs.StringVar(&po.artifactDir, "output-artifact-dir", "", "alias of --artifact-dir")
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
	for _, alias := range []string{"model-names", "arrival-pattern", "input-tokens", "input-tokens-mean", "synthetic-input-tokens-mean",
		"prompt-input-tokens-mean", "input-tokens-stddev", "synthetic-input-tokens-stddev", "prompt-input-tokens-stddev",
		"output-tokens", "output-tokens-mean", "prompt-output-tokens-mean", "synthetic-output-tokens-mean", "output-tokens-stddev",
		"prompt-output-tokens-stddev", "synthetic-output-tokens-stddev", "num-requests", "output-artifact-dir", "ui"} {
		_ = fs.MarkHidden(alias)
	}
}

// aiperfUnsupported are AIPerf flags goodput profile does not implement;
// they are refused with a message saying so (any other unknown flag is
// refused by the flag parser).
var aiperfUnsupported = []string{
	"custom-endpoint", "endpoint", "url-strategy", "model-selection-strategy", "transport", "connection-reuse-strategy",
	"request-content-type", "prefill-concurrency", "benchmark-grace-period", "warmup-duration", "num-warmup-sessions",
	"warmup-concurrency", "warmup-prefill-concurrency", "warmup-request-rate", "warmup-arrival-pattern", "warmup-grace-period",
	"concurrency-ramp-duration", "prefill-concurrency-ramp-duration", "request-rate-ramp-duration", "request-cancellation-rate",
	"request-cancellation-delay", "user-centric-rate", "num-users", "input-file", "custom-dataset-type", "fixed-schedule",
	"public-dataset", "seq-dist", "sequence-distribution", "prefix-prompt-pool-size", "num-prefix-prompts", "prefix-prompt-length",
	"shared-system-prompt-length", "dataset-sampling-strategy", "conversation-num", "num-sessions", "num-dataset-entries",
	"num-prompts", "conversation-turn-mean", "arrival-smoothness", "vllm-burstiness", "tokenizer-revision",
	"tokenizer-trust-remote-code", "profile-export-prefix", "profile-export-file", "export-level", "slice-duration",
	"export-http-trace", "gpu-telemetry", "no-gpu-telemetry", "server-metrics", "no-server-metrics", "workers-max",
	"max-workers", "record-processors", "num-profile-runs", "accuracy-benchmark", "config", "batch-size",
	"search-recipe", "sweep-type", "per-chunk-usage",
}

func runProfile(ctx context.Context, e *env, args []string) error {
	var po profileOptions
	fs := newFlagSet("profile", "profile --model M [--url URL] [--concurrency 4,8 | --request-rate 2,4] [flags]  (AIPerf's flags)", e.stdout)
	profileFlags(&po, fs)
	for _, a := range args {
		if a == "--" {
			break
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if strings.HasPrefix(a, "--") && slices.Contains(aiperfUnsupported, name) {
			return usagef("--%s: an AIPerf flag goodput profile does not support (see 'goodput profile --help')", name)
		}
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q (see 'goodput profile --help')", fs.Arg(0))
	}
	if po.apiKey == "" {
		po.apiKey = e.getenv("OPENAI_API_KEY")
	}
	o, lay, err := po.benchOptions(fs)
	if err != nil {
		return err
	}
	slos, err := slo.ParseAIPerfGoodput(strings.Join(po.goodput, " "))
	if err != nil {
		return usagef("%v", err)
	}
	o.getenv = e.getenv
	if po.tokenizer != "" {
		// The benchmark's --processor: exact synthetic prompt lengths and
		// client-side token counts. "builtin" is AIPerf's name for
		// tiktoken's o200k_base.
		o.processor = po.tokenizer
		if o.processor == "builtin" {
			o.processor = "o200k_base"
		}
	}
	if len(po.goodput) > 0 {
		// The same thresholds judge every benchmark in goodput's own report.
		// (AIPerf's export judges its own, longer list of tags: a tag the
		// SLO has no metric for only leaves goodput's report on its
		// default SLO, said so.)
		if sp, err := slo.AIPerfSpec(slos); err == nil {
			o.sweep.slo = sp.String()
		} else {
			fmt.Fprintf(e.stderr, "note: --goodput: %v; goodput's own report keeps the default SLO (the AIPerf export applies --goodput)\n", oneLineErr(err))
		}
	}
	p, err := o.validateAll(nil)
	if err != nil {
		return profileFlagError(err)
	}
	tokName := po.tokenizer
	runErr := execute(ctx, e, o, p)
	if runErr != nil && !errors.Is(runErr, errInterrupted) {
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
		ArtifactDir: lay.target.dir, Tokenizer: tokName,
	}
	switch {
	case po.useServerTokenCount:
		opts.TokenCounts = aiperf.TokensServer
	case tokName != "":
		opts.TokenCounts = aiperf.TokensClient // AIPerf's default: its tokenizer's counts
	}
	paths, _, err := writeAIPerfExports(rep, lay.records, lay.target, opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "wrote %s\n", strings.Join(paths, ", "))
	return runErr
}

// benchToAIPerfFlags names the AIPerf flag behind a benchmark flag, for
// the benchmark's validation errors.
var benchToAIPerfFlags = map[string]string{
	"--processor": "--tokenizer", "--target": "--url", "--data": "--isl/--osl", "--max-requests": "--request-count",
	"--max-seconds": "--benchmark-duration", "--extra-body": "--extra-inputs", "--max-concurrency": "--concurrency",
	"--rate": "--concurrency/--request-rate", "--request-type": "--endpoint-type", "--request-timeout": "--request-timeout-seconds",
}

// profileFlagError rewrites a usage error of the benchmark's validation
// that starts with a benchmark flag to name the AIPerf flag instead.
func profileFlagError(err error) error {
	var ue usageError
	if !errors.As(err, &ue) {
		return err
	}
	first, rest, _ := strings.Cut(ue.msg, " ")
	flag := strings.TrimRight(first, ":")
	if a, ok := benchToAIPerfFlags[flag]; ok {
		return usagef("%s%s %s", a, strings.TrimPrefix(first, flag), rest)
	}
	return err
}

// profileLayout says where a profile run writes its files.
type profileLayout struct {
	report  string // goodput's report (JSON); its CSV and JSON Lines beside it
	records string // goodput's JSON Lines records
	target  aiperfTarget
}

// benchOptions translates AIPerf's flags into the benchmark command's
// options (defaults first, from the benchmark's own flag set).
func (po *profileOptions) benchOptions(fs *pflag.FlagSet) (*benchOptions, *profileLayout, error) {
	o := &benchOptions{}
	benchFlags(o, pflag.NewFlagSet("benchmark-defaults", pflag.ContinueOnError))
	if strings.TrimSpace(po.model) == "" {
		return nil, nil, usagef("--model is required, e.g. --model Qwen/Qwen3-0.6B")
	}
	if strings.Contains(po.model, ",") {
		return nil, nil, usagef("--model %q: goodput profile benchmarks one model (AIPerf's model lists are not supported)", po.model)
	}
	o.model = po.model
	o.target = po.url
	if !strings.Contains(o.target, "://") {
		o.target = "http://" + o.target
	}
	switch po.endpointType {
	case "chat":
		o.requestType = "chat_completions"
	case "completions":
		o.requestType = "text_completions"
	default:
		return nil, nil, usagef("--endpoint-type %q: goodput profile supports chat and completions", po.endpointType)
	}
	o.noStream = !po.streaming
	// AIPerf sends no ignore_eos unless asked (--extra-inputs ignore_eos:true).
	o.noIgnoreEOS = true
	if po.legacyMaxTokens {
		o.maxTokensField = "max_tokens"
	}

	concs, err := parseProfileConcurrency(po.concurrency)
	if err != nil {
		return nil, nil, err
	}
	rates, err := parseProfileRates(po.requestRate)
	if err != nil {
		return nil, nil, err
	}
	maxConc := 1
	if po.rateMode != "poisson" && po.rateMode != "constant" {
		return nil, nil, usagef("--request-rate-mode %q: goodput profile supports poisson and constant", po.rateMode)
	}
	switch {
	case len(rates) > 0:
		o.rateType = po.rateMode
		o.rate = profileJoin(rates)
		if len(concs) > 1 {
			return nil, nil, usagef("--concurrency %q: with --request-rate it is the in-flight cap, one value", po.concurrency)
		}
		if len(concs) == 1 {
			o.maxConcurrency, maxConc = int(concs[0]), int(concs[0])
		}
	default:
		if len(concs) == 0 {
			concs = []float64{1}
		}
		o.rateType, o.rate = "concurrent", profileJoin(concs)
		maxConc = int(slices.Max(concs))
	}

	oslGiven := fs != nil && changedAlias(fs, oslFlags) != ""
	switch {
	case po.isl < 1:
		return nil, nil, usagef("--%s %d: want a token count ≥ 1", usedAlias(fs, islFlags), po.isl)
	case po.islStddev < 0:
		return nil, nil, usagef("--%s %d: want a token count ≥ 0", usedAlias(fs, islStddevFlags), po.islStddev)
	case po.osl < 0 || (oslGiven && po.osl == 0):
		return nil, nil, usagef("--%s %d: want a token count ≥ 1 (leave it out to let the server decide)", usedAlias(fs, oslFlags), po.osl)
	case po.oslStddev < 0:
		return nil, nil, usagef("--%s %d: want a token count ≥ 0", usedAlias(fs, oslStddevFlags), po.oslStddev)
	}
	if po.oslStddev > 0 && po.osl == 0 {
		return nil, nil, usagef("--osl-stddev needs --osl")
	}
	data := []string{"prompt_tokens=" + strconv.Itoa(po.isl)}
	if po.islStddev > 0 {
		data = append(data, "prompt_tokens_stdev="+strconv.Itoa(po.islStddev))
	}
	if po.osl > 0 {
		data = append(data, "output_tokens="+strconv.Itoa(po.osl))
		if po.oslStddev > 0 {
			data = append(data, "output_tokens_stdev="+strconv.Itoa(po.oslStddev))
		}
	}
	o.data = strings.Join(data, ",")

	if po.duration < 0 || math.IsNaN(po.duration) || math.IsInf(po.duration, 0) {
		return nil, nil, usagef("--benchmark-duration %v: want seconds > 0", po.duration)
	}
	o.maxSeconds = po.duration
	if po.requestCount < 0 || po.warmupCount < 0 {
		return nil, nil, usagef("--request-count and --warmup-request-count must be ≥ 0")
	}
	count := po.requestCount
	if count == 0 && po.duration == 0 {
		count = max(10, 2*maxConc) // AIPerf's default
	}
	if po.warmupCount > 0 {
		if count == 0 {
			return nil, nil, usagef("--warmup-request-count needs --request-count: goodput's warmup in requests is measured against the request limit")
		}
		o.warmup = strconv.Itoa(po.warmupCount) + "r"
	}
	if count > 0 {
		o.maxRequests = count + po.warmupCount
	}

	if fs.Changed("random-seed") {
		o.seed = po.seed
	}
	if fs.Changed("request-timeout-seconds") {
		if !(po.requestTimeout > 0) || math.IsInf(po.requestTimeout, 0) {
			return nil, nil, usagef("--request-timeout-seconds %v: want seconds > 0", po.requestTimeout)
		}
		o.requestTimeout = time.Duration(po.requestTimeout * float64(time.Second))
	}
	switch po.ui {
	case "dashboard", "simple":
	case "none":
		o.disableProgress = true
	default:
		return nil, nil, usagef("--ui-type %q: want dashboard, simple or none", po.ui)
	}
	o.apiKey = po.apiKey
	for _, h := range po.headers {
		hs, err := parseAIPerfHeader(h)
		if err != nil {
			return nil, nil, err
		}
		o.headers = append(o.headers, hs...)
	}
	if len(po.extraInputs) > 0 {
		body, err := parseExtraInputs(po.extraInputs)
		if err != nil {
			return nil, nil, err
		}
		o.extraBody = body
	}

	lay, err := po.layout(len(rates) > 0, concs, rates)
	if err != nil {
		return nil, nil, err
	}
	o.outputPath = lay.report
	o.outputs = "json,csv,jsonl,console"
	o.force = true // AIPerf overwrites its artifacts
	return o, lay, nil
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
				target: aiperfTarget{dir: dir, base: base, single: po.output}}, nil
		}
		po.artifactDir = po.output
	}
	dir := po.artifactDir
	if dir == "" { // AIPerf's auto-name, e.g. Qwen_Qwen3-0.6B-openai-chat-concurrency4
		var load string
		switch {
		case rateMode && len(rates) > 1:
			load = "request_rate_sweep"
		case rateMode:
			load = "request_rate" + profileJoin(rates)
		case len(concs) > 1:
			load = "concurrency_sweep"
		default:
			load = "concurrency" + profileJoin(concs)
		}
		dir = filepath.Join("artifacts", aiperfDirName(po.model)+"-openai-"+po.endpointType+"-"+load)
	}
	rep := filepath.Join(dir, "goodput.json")
	return &profileLayout{report: rep, records: filepath.Join(dir, "goodput.jsonl"),
		target: aiperfTarget{dir: dir, base: "profile_export_aiperf.json"}}, nil
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

func profileJoin(vs []float64) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strings.Join(parts, ",")
}

// parseAIPerfHeader reads AIPerf's -H forms: "Name:value" or a JSON
// object of headers; it returns the benchmark's "Name: value" form.
func parseAIPerfHeader(h string) ([]string, error) {
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
		out := make([]string, 0, len(keys))
		for _, k := range keys {
			out = append(out, k+": "+m[k])
		}
		return out, nil
	}
	k, v, ok := strings.Cut(t, ":")
	if !ok || strings.TrimSpace(k) == "" {
		return nil, usagef(`--header %q: want "Name:value"`, profileClip(h))
	}
	return []string{strings.TrimSpace(k) + ": " + strings.TrimSpace(v)}, nil
}

// parseExtraInputs merges AIPerf's --extra-inputs ("key:value" pairs,
// the value read as JSON when it is valid JSON, else as a string; or
// JSON objects) into one JSON object.
func parseExtraInputs(items []string) (string, error) {
	m := map[string]any{}
	for _, it := range items {
		t := strings.TrimSpace(it)
		if strings.HasPrefix(t, "{") {
			var obj map[string]any
			if err := json.Unmarshal([]byte(t), &obj); err != nil {
				return "", usagef(`--extra-inputs: want "key:value" or a JSON object`)
			}
			for k, v := range obj {
				m[k] = v
			}
			continue
		}
		k, v, ok := strings.Cut(t, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return "", usagef(`--extra-inputs %q: want "key:value", e.g. ignore_eos:true`, profileClip(it))
		}
		var val any
		if err := json.Unmarshal([]byte(v), &val); err != nil {
			val = v
		}
		m[strings.TrimSpace(k)] = val
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "", usagef("--extra-inputs: %v", err)
	}
	return string(b), nil
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

// aiperfInputError marks an AIPerf export that failed on its input (a
// records file that cannot be read or does not belong to the report).
type aiperfInputError struct{ err error }

func (e aiperfInputError) Error() string { return e.err.Error() }
func (e aiperfInputError) Unwrap() error { return e.err }

// aiperfTarget says where the AIPerf exports of one report go: one
// benchmark writes single (or dir/base) and its CSV beside it; several
// write dir/<label>/base and its CSV, <label> being AIPerf's variation
// name (aiperf.Labels).
type aiperfTarget struct {
	dir, base string
	single    string // "" = dir/base
}

// writeAIPerfExports writes one AIPerf export (JSON and CSV) per
// benchmark of rep: from the records file when one is given (exact,
// AIPerf's way), else approximated from the report (approx is then true).
// It returns the paths written.
func writeAIPerfExports(rep *report.Report, records string, t aiperfTarget, opts aiperf.Options) (paths []string, approx bool, err error) {
	if len(rep.Benchmarks) == 0 {
		return nil, false, nil
	}
	labels := aiperf.Labels(rep)
	for i := range rep.Benchmarks {
		jsonPath := filepath.Join(t.dir, t.base)
		if len(rep.Benchmarks) > 1 {
			jsonPath = filepath.Join(t.dir, labels[i], t.base)
		} else if t.single != "" {
			jsonPath = t.single
		}
		var x *aiperf.Export
		if records != "" {
			f, err := os.Open(records)
			if err != nil {
				return paths, false, aiperfInputError{fmt.Errorf("records file: %w", err)}
			}
			x, err = aiperf.FromJSONL(rep, i, f, records, opts)
			f.Close()
			if err != nil {
				return paths, false, aiperfInputError{fmt.Errorf("AIPerf export of benchmark %d: %w", i, err)}
			}
		} else {
			if x, err = aiperf.FromReport(rep, i, opts); err != nil {
				return paths, false, aiperfInputError{fmt.Errorf("AIPerf export of benchmark %d: %w", i, err)}
			}
			approx = true
		}
		if err := os.MkdirAll(filepath.Dir(jsonPath), 0o755); err != nil {
			return paths, approx, fmt.Errorf("AIPerf export: %w", err)
		}
		csvPath := strings.TrimSuffix(jsonPath, filepath.Ext(jsonPath)) + ".csv"
		if err := writeFileAtomic(jsonPath, x.WriteJSON); err != nil {
			return paths, approx, err
		}
		if err := writeFileAtomic(csvPath, x.WriteCSV); err != nil {
			return paths, approx, err
		}
		paths = append(paths, jsonPath, csvPath)
	}
	return paths, approx, nil
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
