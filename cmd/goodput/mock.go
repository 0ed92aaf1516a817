package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/cli"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/run"
	"github.com/goodput-dev/goodput/tokenize"
)

func runMock(ctx context.Context, e *cli.Env, args []string) error {
	o, err := parseMockFlags(e, args)
	if err != nil {
		return err
	}
	cfg := o.cfg
	srv, err := mock.New(cfg)
	if err != nil {
		return o.caps.configError(err, cfg.Capacity)
	}
	if err := srv.Start(o.addr); err != nil {
		return fmt.Errorf("listening on %s: %w", o.addr, err)
	}
	defer srv.Close()
	for _, addr := range o.listen {
		if _, err := srv.Listen(addr); err != nil {
			return fmt.Errorf("--listen %s: %w", addr, err)
		}
	}
	fmt.Fprintf(e.Stdout, "goodput mock serving %q on %s (Ctrl-C to stop)\n", srv.Config().Model, strings.Join(srv.URLs(), ", "))
	dcgm := srv.URL() + "/dcgm/metrics"
	if u := srv.DCGMURL(); u != "" {
		dcgm += " and " + u + "/metrics"
	}
	if cfg.Capacity != nil {
		fmt.Fprintln(e.Stdout, o.caps.describe(cfg.Capacity, o.preset))
		fmt.Fprintln(e.Stdout, describeKnee(cfg.Capacity, o.knee))
	}
	n, gpu := cfg.SimulatedGPUs()
	fmt.Fprintf(e.Stdout, "DCGM exporter metrics for %d × %s (%v W idle + %v W per running sequence, %v W cap) on %s\n",
		n, gpu.Name, gpu.IdleWatts, gpu.WattsPerSeq, gpu.MaxWatts, dcgm)
	fmt.Fprintln(e.Stdout, describePrefixCache(&cfg, o.knee))
	if o.session != nil {
		fmt.Fprintln(e.Stdout, describeSessionTTFT(&cfg, *o.session))
	}
	if o.urlFile != "" {
		if err := os.WriteFile(o.urlFile, []byte(strings.Join(srv.URLs(), ",")+"\n"), 0o644); err != nil {
			return fmt.Errorf("--url-file: %w", err)
		}
	}
	<-ctx.Done()
	return nil
}

// mockOptions is what the mock command's flags ask for.
type mockOptions struct {
	cfg     mock.Config
	addr    string   // host:port to listen on
	listen  []string // --listen: more host:port addresses served alike
	urlFile string
	preset  string         // --preset as given
	knee    mock.Workload  // request shape of the analytic knee; zero without a capacity model
	session *sessionShape  // --session-data: the conversation whose TTFT by turn is printed; nil without
	caps    *capacityFlags // the capacity and GPU flags, for their errors and the startup line
}

// parseMockFlags parses the mock command's flags. It checks each flag's
// syntax; mock.New checks the configuration's values (see configError).
func parseMockFlags(e *cli.Env, args []string) (*mockOptions, error) {
	cfg := mock.DefaultConfig()
	fs := cli.NewFlagSet("mock", "mock [flags]", e.Stdout)
	host := fs.String("host", "127.0.0.1", "address to bind (the mock binds loopback unless told otherwise)")
	port := fs.Int("port", 8000, "port to listen on (0 picks a free one)")
	urlFile := fs.String("url-file", "", "write the served base URL to this file once listening (for scripts; with --listen, every URL, comma-separated, as --target takes them)")
	listen := fs.StringArray("listen", nil, "also serve on this host:port (repeatable), e.g. 127.0.0.2:8000: one client IP opens at most about 28,000 connections to one address and port, so tens of thousands of streams need several (goodput benchmark --target URL1,URL2)")
	fs.StringVar(&cfg.Model, "model", cfg.Model, "served model name")
	lora := fs.StringSlice("lora-modules", nil, "LoRA adapters served as extra models, as vLLM's --lora-modules: name=path, comma-separated or repeated (listed by /v1/models, accepted as a request's model)")
	fs.StringVar(&cfg.Version, "server-version", cfg.Version, "what GET /version reports (and, with --personality llamacpp or ollama, /props' build_info or /api/version)")
	fs.StringVar(&cfg.Personality, "personality", cfg.Personality, "behave as this server where it differs from vLLM: "+strings.Join(mock.PersonalityNames(), ", ")+
		" (llamacpp: closes the connection after every streamed response, llamacpp:* /metrics, GET /props, timings; ollama: reads max_tokens only, serves the model as name:latest, GET /api/version, no /metrics)")
	fs.IntVar(&cfg.MaxModelLen, "max-model-len", cfg.MaxModelLen, "context length in tokens")
	fs.DurationVar(&cfg.TTFT, "ttft", cfg.TTFT, "mean time to first token (Go duration, e.g. 50ms)")
	fs.DurationVar(&cfg.TTFTStdev, "ttft-stdev", cfg.TTFTStdev, "TTFT standard deviation (0 = deterministic)")
	fs.DurationVar(&cfg.ITL, "itl", cfg.ITL, "mean inter-token latency")
	fs.DurationVar(&cfg.ITLStdev, "itl-stdev", cfg.ITLStdev, "ITL standard deviation (0 = deterministic)")
	fs.IntVar(&cfg.OutputTokens, "output-tokens", cfg.OutputTokens, "mean natural output length (ignore_eos with max_tokens overrides)")
	fs.Float64Var(&cfg.OutputTokensStdev, "output-tokens-stdev", cfg.OutputTokensStdev, "natural output length standard deviation")
	fs.IntVar(&cfg.TokensPerChunk, "tokens-per-chunk", cfg.TokensPerChunk, "tokens per SSE chunk (like speculative decoding)")
	fs.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the per-request random draws")
	noStamp := fs.Bool("no-stamp", false, `omit the "goodput_emit_ns" emission stamp from chunks`)
	processor := fs.String("processor", "", "count prompt tokens in usage with this tokenizer (a tokenizer.json path or directory, a local Hugging Face id, o200k_base, cl100k_base); default: about 4 bytes per token")
	fs.IntVar(&cfg.KVCacheTokens, "kv-cache-tokens", cfg.KVCacheTokens, "KV cache size behind vllm:kv_cache_usage_perc")
	fs.Float64Var(&cfg.ErrorRate, "error-rate", cfg.ErrorRate, "fraction of requests answered with an HTTP error")
	fs.IntSliceVar(&cfg.ErrorCodes, "error-codes", cfg.ErrorCodes, "HTTP statuses for --error-rate")
	fs.Float64Var(&cfg.DisconnectRate, "disconnect-rate", cfg.DisconnectRate, "fraction of streams cut mid-stream")
	fs.Float64Var(&cfg.StallRate, "stall-rate", cfg.StallRate, "fraction of streams that pause for --stall-duration")
	fs.DurationVar(&cfg.StallDuration, "stall-duration", cfg.StallDuration, "length of an injected stall")
	fs.Float64Var(&cfg.StreamErrorRate, "stream-error-rate", cfg.StreamErrorRate, `fraction of streams that get an {"error":…} payload`)
	fs.BoolVar(&cfg.NoAbort, "no-abort", cfg.NoAbort, "keep generating requests whose client left, holding their slot and counted in /metrics, until they would have finished (like servers that do not propagate a disconnect)")
	fs.Float64Var(&cfg.MetricsErrorRate, "metrics-error-rate", cfg.MetricsErrorRate, "fraction of /metrics scrapes answered HTTP 500 (drawn with --seed)")
	fs.BoolVar(&cfg.LazyMetrics, "lazy-metrics", cfg.LazyMetrics, "leave the engine's counters and histograms out of /metrics until the first request, as a freshly started vLLM does")
	fs.IntVar(&cfg.BlockSize, "block-size", cfg.BlockSize, "prefix-cache block size in tokens, as vLLM's --block-size; 1..1024")
	fs.IntVar(&cfg.PrefixCacheTokens, "prefix-cache-tokens", cfg.PrefixCacheTokens, "prefix-cache capacity in tokens, least recently used blocks evicted first (0: --kv-cache-tokens)")
	noPrefixCache := fs.Bool("no-prefix-cache", false, "turn the prefix cache off (vLLM's --no-enable-prefix-caching): no cached tokens, every prompt prefilled whole")
	fs.IntVar(&cfg.StoredResponses, "stored-responses", cfg.StoredResponses, "Responses API responses kept for previous_response_id, least recently used evicted first (0: none)")
	fs.DurationVar(&cfg.ServerToolTime, "server-tool-time", cfg.ServerToolTime, `how long a built-in Responses tool (type web_search, shell, mcp, …: not "function") runs on the server when the model calls it, before the text answer (server-side tool calls)`)
	fs.Float64Var(&cfg.ToolCallRate, "tool-call-rate", cfg.ToolCallRate, `fraction of requests with tools and tool_choice "auto" answered with a tool call (drawn with --seed); "required" and a named function always get one`)
	fs.IntVar(&cfg.ChatTemplateTokens, "chat-template-tokens", cfg.ChatTemplateTokens, "prompt tokens a chat template adds to every chat completion (in usage, /metrics and the prefill); 0..--max-model-len minus 1")
	preset := fs.String("preset", "", "simulate a continuous-batching engine with a capacity model ("+strings.Join(mock.PresetNames(), ", ")+"): TTFT grows with queueing and ITL with the batch, so the endpoint has a real knee; --max-num-seqs … --prefill-per-token override its parameters (without --preset they start from tiny's); --ttft/--itl are then ignored")
	cf := addCapacityFlags(fs)
	fs.IntVar(&cfg.GPUs, "gpus", cfg.GPUs, "simulated GPUs in GET /dcgm/metrics (0: the capacity model's, else 1)")
	cf.addGPUFlags(fs)
	fs.StringVar(&cfg.DCGMAddr, "dcgm-addr", "", "also serve the DCGM exporter exposition on this address (like dcgm-exporter's :9400)")
	fs.DurationVar(&cfg.DCGMUpdateInterval, "dcgm-interval", cfg.DCGMUpdateInterval, "how often the DCGM exposition's values change (dcgm-exporter's default is 30s)")
	if err := cli.ParseFlags(fs, args); err != nil {
		return nil, err
	}
	capacity, err := cf.model(*preset)
	if err != nil {
		return nil, err
	}
	cfg.Capacity = capacity
	cfg.GPU = cf.gpu(capacity)
	knee, err := cf.kneeWorkload(capacity)
	if err != nil {
		return nil, err
	}
	knee.TokensPerChunk = cfg.TokensPerChunk
	var session *sessionShape
	if fs.Changed("session-data") {
		if capacity == nil || *noPrefixCache {
			return nil, cli.Usagef("--session-data needs a capacity model and the prefix cache: give --preset or a capacity flag, without --no-prefix-cache")
		}
		if session, err = parseSessionData(cf.sessionData); err != nil {
			return nil, err
		}
	}
	if fs.NArg() > 0 {
		return nil, cli.Usagef("unexpected argument %q (see 'goodput mock --help')", fs.Arg(0))
	}
	if *port < 0 || *port > 65535 {
		return nil, cli.Usagef("--port %d: want 0..65535", *port)
	}
	if !validHost(*host) {
		return nil, cli.Usagef("--host %q: want an IP address or a host name, e.g. 127.0.0.1, 0.0.0.0 or localhost", *host)
	}
	cfg.Stamp = !*noStamp
	cfg.PrefixCache = !*noPrefixCache
	if *processor != "" {
		tok, err := tokenize.Resolve(*processor, tokenize.ResolveOptions{Getenv: e.Getenv})
		if err != nil {
			return nil, cli.Usagef("%s", run.OneLine(err))
		}
		cfg.PromptTokenCounter = tok.Count
		cfg.PromptTokenIDs = tok.Encode
		cfg.PromptTokenDecoder = tok.Decode
	}
	for _, m := range *lora {
		mod, err := mock.ParseLoRAModule(m)
		if err != nil {
			return nil, cli.Usagef("--lora-modules: %v", err)
		}
		cfg.LoRAModules = append(cfg.LoRAModules, mod)
	}
	for _, a := range *listen {
		if h, p, err := net.SplitHostPort(a); err != nil || h == "" || p == "" {
			return nil, cli.Usagef("--listen %q: want host:port, e.g. 127.0.0.2:8000 (port 0 picks a free one)", a)
		}
	}
	return &mockOptions{cfg: cfg, addr: net.JoinHostPort(*host, strconv.Itoa(*port)), listen: *listen, urlFile: *urlFile,
		preset: *preset, knee: knee, session: session, caps: cf}, nil
}

// mockFieldFlags names the flag of each mock.Config field (or nested
// field, as mock.ConfigError names it) a flag sets.
var mockFieldFlags = map[string]string{
	"Model": "model", "Personality": "personality", "LoRAModules": "lora-modules", "MaxModelLen": "max-model-len", "Version": "server-version",
	"TTFT": "ttft", "TTFTStdev": "ttft-stdev", "ITL": "itl", "ITLStdev": "itl-stdev",
	"OutputTokens": "output-tokens", "OutputTokensStdev": "output-tokens-stdev", "TokensPerChunk": "tokens-per-chunk",
	"ErrorRate": "error-rate", "ErrorCodes": "error-codes", "DisconnectRate": "disconnect-rate",
	"StallRate": "stall-rate", "StallDuration": "stall-duration", "StreamErrorRate": "stream-error-rate",
	"MetricsErrorRate": "metrics-error-rate", "ChatTemplateTokens": "chat-template-tokens",
	"KVCacheTokens": "kv-cache-tokens", "BlockSize": "block-size", "PrefixCacheTokens": "prefix-cache-tokens",
	"StoredResponses": "stored-responses", "ToolCallRate": "tool-call-rate", "ServerToolTime": "server-tool-time", "GPUs": "gpus", "DCGMAddr": "dcgm-addr", "DCGMUpdateInterval": "dcgm-interval",
	"Capacity.MaxNumSeqs": "max-num-seqs", "Capacity.MaxNumBatchedTokens": "max-num-batched-tokens",
	"Capacity.StepBase": "step-base", "Capacity.StepPerSeq": "step-per-seq", "Capacity.PrefillPerToken": "prefill-per-token",
	"GPU.Name": "gpu-name", "GPU.MemoryMiB": "gpu-memory-mib", "GPU.IdleWatts": "gpu-idle-watts",
	"GPU.WattsPerSeq": "gpu-watts-per-seq", "GPU.MaxWatts": "gpu-max-watts",
}

// mockMsgFlags rewrites the mock.Config field names a mock.ConfigError
// message refers to (a bound set by another field) as their flags.
var mockMsgFlags = strings.NewReplacer("MaxNumSeqs", "--max-num-seqs", "MaxWatts", "--gpu-max-watts", "MaxModelLen", "--max-model-len", "BlockSize", "--block-size", "KVCacheTokens", "--kv-cache-tokens")

// capacityFlags set or override the parameters of the capacity model
// (--max-num-seqs … --prefill-per-token) and of the simulated GPU
// (--gpu-*), and choose the request shape of the analytic knee printed at
// startup (--knee-data). A flag given overrides the preset's value; a
// capacity flag without --preset starts from the tiny preset.
type capacityFlags struct {
	fs                                        *pflag.FlagSet
	maxNumSeqs, maxNumBatchedTokens           int
	stepBase, stepPerSeq, prefillPerToken     time.Duration
	gpuName                                   string
	gpuMemoryMiB                              int
	gpuIdleWatts, gpuWattsPerSeq, gpuMaxWatts float64
	kneeData                                  string
	sessionData                               string
}

// capacityFlagNames are the flags that set CapacityModel fields, in the
// order the startup line lists them.
var capacityFlagNames = []string{"max-num-seqs", "max-num-batched-tokens", "step-base", "step-per-seq", "prefill-per-token"}

// gpuFlagNames are the flags that set GPUSpec fields.
var gpuFlagNames = []string{"gpu-name", "gpu-memory-mib", "gpu-idle-watts", "gpu-watts-per-seq", "gpu-max-watts"}

// addCapacityFlags registers the capacity-model flags and --knee-data on
// fs. Their defaults are the preset's, so the flags themselves default to
// zero and only a flag given (fs.Changed) is applied.
func addCapacityFlags(fs *pflag.FlagSet) *capacityFlags {
	f := &capacityFlags{fs: fs}
	tiny, _ := mock.Preset(mock.PresetTiny)
	def := func(v any) string { return fmt.Sprintf(" (default: the preset's; %v without --preset, from tiny)", v) }
	fs.IntVar(&f.maxNumSeqs, "max-num-seqs", 0, "engine slots, as vLLM's --max-num-seqs: at most this many requests in the batch (prefilling or decoding), the others wait in a FIFO queue; 1..65536"+def(tiny.MaxNumSeqs))
	fs.IntVar(&f.maxNumBatchedTokens, "max-num-batched-tokens", 0, "token budget of one engine step, as vLLM's --max-num-batched-tokens with chunked prefill: one token per decoding sequence, prompts prefilled in chunks from the rest; --max-num-seqs..16777216"+def(tiny.MaxNumBatchedTokens))
	fs.DurationVar(&f.stepBase, "step-base", 0, "fixed time of one engine step (Go duration; 1µs..10s, below about 2ms the 1ms timer granularity shows)"+def(tiny.StepBase))
	fs.DurationVar(&f.stepPerSeq, "step-per-seq", 0, "extra step time per decoding sequence in the step (0..1s)"+def(tiny.StepPerSeq))
	fs.DurationVar(&f.prefillPerToken, "prefill-per-token", 0, "extra step time per prompt token prefilled in the step (0..1s)"+def(tiny.PrefillPerToken))
	fs.StringVar(&f.sessionData, "session-data", "", "a conversation shape, in benchmark --data syntax: turns=N,prompt_tokens=P,output_tokens=M[,prefix_tokens=S] (a system prefix of S tokens, P new tokens per user turn, M per reply): print at startup the TTFT the capacity model expects for each turn alone in the engine, with the prefix cache holding the conversation so far")
	fs.StringVar(&f.kneeData, "knee-data", "", "request shape of the analytic knee printed at startup, in benchmark --data syntax with fixed lengths: prompt_tokens=N,output_tokens=M (a benchmark sending ignore_eos and max_tokens M); default: the preset's reference shape, prompt_tokens=1024,output_tokens=256 for the H100 presets, prompt_tokens=256,output_tokens=128 for tiny")
	return f
}

// addGPUFlags registers the flags that override the simulated GPU.
func (f *capacityFlags) addGPUFlags(fs *pflag.FlagSet) {
	h := mock.DefaultGPU()
	def := func(v any) string { return fmt.Sprintf(" (default: the capacity model's GPU's, else %v)", v) }
	fs.StringVar(&f.gpuName, "gpu-name", "", "modelName of the simulated GPUs in the DCGM exposition"+def(h.Name))
	fs.IntVar(&f.gpuMemoryMiB, "gpu-memory-mib", 0, "framebuffer of each simulated GPU in MiB, reported 90% used; 1..16777216"+def(h.MemoryMiB))
	fs.Float64Var(&f.gpuIdleWatts, "gpu-idle-watts", 0, "power draw of each simulated GPU with nothing running, in W; 0..--gpu-max-watts"+def(h.IdleWatts))
	fs.Float64Var(&f.gpuWattsPerSeq, "gpu-watts-per-seq", 0, "extra draw of each simulated GPU per running sequence, in W; 0..100000"+def(h.WattsPerSeq))
	fs.Float64Var(&f.gpuMaxWatts, "gpu-max-watts", 0, "power cap (board limit) of each simulated GPU, in W; 1..100000"+def(h.MaxWatts))
}

// given returns the flags of names that were given, as "--name=value".
func (f *capacityFlags) given(names []string) []string {
	var out []string
	for _, name := range names {
		if f.fs.Changed(name) {
			out = append(out, "--"+name+"="+f.fs.Lookup(name).Value.String())
		}
	}
	return out
}

// model returns the capacity model the flags ask for: the preset's, or
// tiny's when a capacity flag is given without --preset, with each given
// flag's value; nil when neither is given. The values are checked by
// mock.New (see configError).
func (f *capacityFlags) model(preset string) (*mock.CapacityModel, error) {
	if preset == "" {
		if len(f.given(capacityFlagNames)) == 0 {
			return nil, nil
		}
		preset = mock.PresetTiny
	}
	m, err := mock.Preset(preset)
	if err != nil {
		return nil, cli.Usagef("--preset: %v", err)
	}
	set := func(name string, apply func()) {
		if f.fs.Changed(name) {
			apply()
		}
	}
	set("max-num-seqs", func() { m.MaxNumSeqs = f.maxNumSeqs })
	set("max-num-batched-tokens", func() { m.MaxNumBatchedTokens = f.maxNumBatchedTokens })
	set("step-base", func() { m.StepBase = f.stepBase })
	set("step-per-seq", func() { m.StepPerSeq = f.stepPerSeq })
	set("prefill-per-token", func() { m.PrefillPerToken = f.prefillPerToken })
	return &m, nil
}

// gpu returns the simulated GPU the --gpu-* flags ask for, starting from
// the capacity model's GPU (or mock.DefaultGPU without one); nil when no
// --gpu-* flag is given, which leaves mock.Config.GPU to its default.
func (f *capacityFlags) gpu(m *mock.CapacityModel) *mock.GPUSpec {
	if len(f.given(gpuFlagNames)) == 0 {
		return nil
	}
	g := mock.DefaultGPU()
	if m != nil {
		g = m.GPU
	}
	if f.fs.Changed("gpu-name") {
		g.Name = f.gpuName
	}
	if f.fs.Changed("gpu-memory-mib") {
		g.MemoryMiB = f.gpuMemoryMiB
	}
	if f.fs.Changed("gpu-idle-watts") {
		g.IdleWatts = f.gpuIdleWatts
	}
	if f.fs.Changed("gpu-watts-per-seq") {
		g.WattsPerSeq = f.gpuWattsPerSeq
	}
	if f.fs.Changed("gpu-max-watts") {
		g.MaxWatts = f.gpuMaxWatts
	}
	return &g
}

// kneeWorkload returns the request shape of the analytic knee: --knee-data,
// else the reference shape of the model's preset. It is the zero Workload
// without a capacity model, where --knee-data is refused.
func (f *capacityFlags) kneeWorkload(m *mock.CapacityModel) (mock.Workload, error) {
	if f.fs.Changed("knee-data") {
		w, err := parseKneeData(f.kneeData)
		if err == nil && m == nil {
			err = cli.Usagef("--knee-data needs a capacity model: give --preset or a capacity flag such as --max-num-seqs")
		}
		return w, err
	}
	if m == nil {
		return mock.Workload{}, nil
	}
	w, err := mock.PresetWorkload(m.Name)
	if err != nil {
		return mock.Workload{}, fmt.Errorf("the reference shape of %s: %w", m.Name, err)
	}
	return w, nil
}

// sessionShape is a conversation of --session-data: Turns user turns of
// Prompt new tokens each, replies of Output tokens, after a system prefix
// of Prefix tokens.
type sessionShape struct{ Turns, Prompt, Output, Prefix int }

// parseSessionData reads --session-data: turns, prompt_tokens and
// output_tokens required, prefix_tokens optional.
func parseSessionData(s string) (*sessionShape, error) {
	bad := func(why string) error {
		return cli.Usagef("--session-data %q: %s; want turns=N,prompt_tokens=P,output_tokens=M[,prefix_tokens=S] with N in 1..1000, P and M in 1..16777216, S in 0..16777216", s, why)
	}
	var sh sessionShape
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		key, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return nil, bad(fmt.Sprintf("%q is not key=value", part))
		}
		var dst *int
		lo, hi := 1, 1<<24
		switch key {
		case "turns":
			dst, hi = &sh.Turns, 1000
		case "prompt_tokens":
			dst = &sh.Prompt
		case "output_tokens":
			dst = &sh.Output
		case "prefix_tokens":
			dst, lo = &sh.Prefix, 0
		default:
			return nil, bad(fmt.Sprintf("unknown key %q", key))
		}
		if seen[key] {
			return nil, bad(fmt.Sprintf("%s given twice", key))
		}
		seen[key] = true
		n, err := strconv.Atoi(val)
		if err != nil || n < lo || n > hi {
			return nil, bad(fmt.Sprintf("%s=%q is out of range", key, val))
		}
		*dst = n
	}
	if !seen["turns"] || !seen["prompt_tokens"] || !seen["output_tokens"] {
		return nil, bad("turns, prompt_tokens and output_tokens are required")
	}
	return &sh, nil
}

// describeSessionTTFT is the startup line of --session-data: for each turn
// of the conversation, the TTFT of the turn alone in the engine, its
// prompt (the prefix, every earlier turn and reply, the new turn and the
// chat template's tokens) and the cached part: the whole blocks of the
// conversation before it, which the prefix cache holds after each reply.
// Turn 0 finds nothing cached (a prefix of its own).
func describeSessionTTFT(cfg *mock.Config, sh sessionShape) string {
	parts := make([]string, 0, sh.Turns)
	for k := range sh.Turns {
		before := sh.Prefix + k*(sh.Prompt+sh.Output) // the conversation before turn k
		prompt := before + sh.Prompt + cfg.ChatTemplateTokens
		cached := 0
		if k > 0 {
			cached = min(before, prompt-1) / cfg.BlockSize * cfg.BlockSize
		}
		ttft, err := cfg.Capacity.LoneTTFT(prompt, cached)
		if err != nil {
			return "expected TTFT by turn not computed: " + err.Error()
		}
		parts = append(parts, fmt.Sprintf("turn %d %v (%d prompt, %d cached)", k, ttft.Round(10*time.Microsecond), prompt, cached))
	}
	return fmt.Sprintf("expected TTFT by turn of a lone conversation (turns=%d,prompt_tokens=%d,output_tokens=%d,prefix_tokens=%d): %s",
		sh.Turns, sh.Prompt, sh.Output, sh.Prefix, strings.Join(parts, ", "))
}

// parseKneeData reads --knee-data: prompt_tokens=N,output_tokens=M, both
// required, each in 1..16777216.
func parseKneeData(s string) (mock.Workload, error) {
	bad := func(why string) error {
		return cli.Usagef("--knee-data %q: %s; want prompt_tokens=N,output_tokens=M with N and M in 1..16777216 (fixed lengths: the analytic knee has no stdev)", s, why)
	}
	var w mock.Workload
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		key, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return w, bad(fmt.Sprintf("%q is not key=value", part))
		}
		var dst *int
		switch key {
		case "prompt_tokens":
			dst = &w.PromptTokens
		case "output_tokens":
			dst = &w.OutputTokens
		default:
			return w, bad(fmt.Sprintf("unknown key %q", key))
		}
		if seen[key] {
			return w, bad(fmt.Sprintf("%s given twice", key))
		}
		seen[key] = true
		n, err := strconv.Atoi(val)
		if err != nil || n < 1 || n > 1<<24 {
			return w, bad(fmt.Sprintf("%s=%q is not an integer in 1..16777216", key, val))
		}
		*dst = n
	}
	if !seen["prompt_tokens"] || !seen["output_tokens"] {
		return w, bad("both keys are required")
	}
	return w, nil
}

// configError turns a mock.New error into a one-line usage error naming
// the flag of the field at fault; when that flag was not given (the value
// is the preset's or the default GPU's), it says where the value came from.
func (f *capacityFlags) configError(err error, m *mock.CapacityModel) error {
	var ce *mock.ConfigError
	if !errors.As(err, &ce) || mockFieldFlags[ce.Field] == "" {
		return cli.Usagef("%v", err)
	}
	flag := mockFieldFlags[ce.Field]
	msg := mockMsgFlags.Replace(ce.Msg)
	if !f.fs.Changed(flag) {
		from := "the default GPU's"
		if m != nil {
			from = "the " + m.Name + " preset's"
		}
		if strings.HasPrefix(ce.Field, "Capacity.") || strings.HasPrefix(ce.Field, "GPU.") {
			msg += " (" + from + " value; give --" + flag + ")"
		}
	}
	return cli.Usagef("--%s: %s", flag, msg)
}

// describe is the startup line naming the capacity model and its
// parameters, overrides included; preset is --preset.
func (f *capacityFlags) describe(m *mock.CapacityModel, preset string) string {
	name := m.Name + " preset"
	if preset == "" {
		name = m.Name + " preset (the base without --preset)"
	}
	if given := f.given(capacityFlagNames); len(given) > 0 {
		name += " with " + strings.Join(given, " ")
	}
	return fmt.Sprintf("capacity model %s: %d slots, %d-token step budget, step %v + %v per decoding sequence + %v per prefill token",
		name, m.MaxNumSeqs, m.MaxNumBatchedTokens, m.StepBase, m.StepPerSeq, m.PrefillPerToken)
}

// describeKnee is the startup line with the model's analytic knee for w
// under the interactive SLO (mock.CapacityModel.Capacity), the ground
// truth a knee search against this mock should find.
func describeKnee(m *mock.CapacityModel, w mock.Workload) string {
	slo := mock.InteractiveSLO()
	head := fmt.Sprintf("analytic knee for prompt_tokens=%d,output_tokens=%d under TTFT P99 < %v, ITL P95 < %v", w.PromptTokens, w.OutputTokens, slo.TTFTP99, slo.ITLP95)
	c, err := m.Capacity(w, slo)
	if err != nil {
		return head + ": not computed: " + err.Error()
	}
	var closed string
	switch {
	case c.Closed.Concurrency == 0:
		closed = fmt.Sprintf("no concurrency meets it (%s fails at 1)", c.ClosedLimit)
	case c.ClosedLimit == "none":
		closed = fmt.Sprintf("concurrency %d (%.0f tok/s, TTFT P99 %v, ITL P95 %v; nothing binds above)",
			c.Closed.Concurrency, c.Closed.OutputTokensPerSec, c.Closed.TTFTP99.Round(time.Microsecond), c.Closed.ITLP95.Round(time.Microsecond))
	default:
		closed = fmt.Sprintf("concurrency %d (%.0f tok/s, TTFT P99 %v, ITL P95 %v; %s fails at %d)",
			c.Closed.Concurrency, c.Closed.OutputTokensPerSec, c.Closed.TTFTP99.Round(time.Microsecond), c.Closed.ITLP95.Round(time.Microsecond), c.ClosedLimit, c.Closed.Concurrency+1)
	}
	open := fmt.Sprintf("no constant rate meets it (%s)", c.OpenLimit)
	if c.Open.Rate > 0 {
		open = fmt.Sprintf("rate %s req/s (%.0f tok/s, bound by %s)", formatRate(c.Open.Rate), c.Open.OutputTokensPerSec, c.OpenLimit)
	}
	return fmt.Sprintf("%s: %s, %s; saturation %s req/s = %.0f tok/s",
		head, closed, open, formatRate(c.SaturationRate), c.SaturationTokensPerSec)
}

// describePrefixCache is the startup line about the prefix cache and,
// with a capacity model, the TTFT it predicts for a request of w's prompt
// alone in the engine with 0, 25, 50, 75 and 90% of it cached (in whole
// blocks): what a later turn of a conversation saves over turn 0.
func describePrefixCache(cfg *mock.Config, w mock.Workload) string {
	if !cfg.PrefixCache {
		return "prefix cache off (--no-prefix-cache): every prompt is prefilled whole"
	}
	capTokens := cfg.PrefixCacheTokens
	if capTokens == 0 {
		capTokens = cfg.KVCacheTokens
	}
	line := fmt.Sprintf("prefix cache: %d-token blocks, %d tokens, least recently used evicted first; usage reports cached tokens", cfg.BlockSize, capTokens/cfg.BlockSize*cfg.BlockSize)
	if cfg.Capacity == nil || w.PromptTokens < 1 {
		return line
	}
	var parts []string
	for _, pct := range []int{0, 25, 50, 75, 90} {
		cached := w.PromptTokens * pct / 100 / cfg.BlockSize * cfg.BlockSize
		cached = min(cached, (w.PromptTokens-1)/cfg.BlockSize*cfg.BlockSize)
		ttft, err := cfg.Capacity.LoneTTFT(w.PromptTokens, cached)
		if err != nil {
			return line + "; expected TTFT not computed: " + err.Error()
		}
		parts = append(parts, fmt.Sprintf("%d%% (%d cached) %v", pct, cached, ttft.Round(time.Microsecond)))
	}
	return fmt.Sprintf("%s\nexpected TTFT of a lone request of prompt_tokens=%d by cached share: %s", line, w.PromptTokens, strings.Join(parts, ", "))
}

// formatRate prints a request rate with two decimals, or three significant
// digits below 1 req/s.
func formatRate(r float64) string {
	if r >= 1 {
		return strconv.FormatFloat(r, 'f', 2, 64)
	}
	return strconv.FormatFloat(r, 'g', 3, 64)
}

// validHost reports whether h is an IP address (IPv6 with or without
// brackets) or a DNS host name; "" (every interface) is accepted too.
func validHost(h string) bool {
	if h == "" || net.ParseIP(strings.Trim(h, "[]")) != nil {
		return true
	}
	if len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(strings.TrimSuffix(h, "."), ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
				return false
			}
		}
	}
	return true
}
