package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/tokenize"
)

func runMock(ctx context.Context, e *env, args []string) error {
	cfg := mock.DefaultConfig()
	fs := newFlagSet("mock", "mock [flags]", e.stdout)
	host := fs.String("host", "127.0.0.1", "address to bind (the mock binds loopback unless told otherwise)")
	port := fs.Int("port", 8000, "port to listen on (0 picks a free one)")
	urlFile := fs.String("url-file", "", "write the served base URL to this file once listening (for scripts)")
	fs.StringVar(&cfg.Model, "model", cfg.Model, "served model name")
	fs.StringVar(&cfg.Version, "server-version", cfg.Version, "what GET /version reports")
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
	preset := fs.String("preset", "", "simulate a continuous-batching engine with a capacity model ("+strings.Join(mock.PresetNames(), ", ")+"): TTFT grows with queueing and ITL with the batch, so the endpoint has a real knee; --ttft/--itl are then ignored")
	fs.IntVar(&cfg.GPUs, "gpus", cfg.GPUs, "simulated GPUs in GET /dcgm/metrics (0: the preset's, else 1)")
	fs.StringVar(&cfg.DCGMAddr, "dcgm-addr", "", "also serve the DCGM exporter exposition on this address (like dcgm-exporter's :9400)")
	fs.DurationVar(&cfg.DCGMUpdateInterval, "dcgm-interval", cfg.DCGMUpdateInterval, "how often the DCGM exposition's values change (dcgm-exporter's default is 30s)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *preset != "" {
		m, err := mock.Preset(*preset)
		if err != nil {
			return usagef("--preset: %v", err)
		}
		cfg.Capacity = &m
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q (see 'goodput mock --help')", fs.Arg(0))
	}
	if *port < 0 || *port > 65535 {
		return usagef("--port %d: want 0..65535", *port)
	}
	if !validHost(*host) {
		return usagef("--host %q: want an IP address or a host name, e.g. 127.0.0.1, 0.0.0.0 or localhost", *host)
	}
	cfg.Stamp = !*noStamp
	if *processor != "" {
		tok, err := tokenize.Resolve(*processor, tokenize.ResolveOptions{Getenv: e.getenv})
		if err != nil {
			return usagef("%s", oneLineErr(err))
		}
		cfg.PromptTokenCounter = tok.Count
	}
	srv, err := mock.New(cfg)
	if err != nil {
		var ce *mock.ConfigError
		if errors.As(err, &ce) && mockFieldFlags[ce.Field] != "" {
			return usagef("--%s: %s", mockFieldFlags[ce.Field], ce.Msg)
		}
		return usagef("%v", err)
	}
	if err := srv.Start(net.JoinHostPort(*host, strconv.Itoa(*port))); err != nil {
		return fmt.Errorf("listening on %s:%d: %w", *host, *port, err)
	}
	defer srv.Close()
	fmt.Fprintf(e.stdout, "goodput mock serving %q on %s (Ctrl-C to stop)\n", cfg.Model, srv.URL())
	dcgm := srv.URL() + "/dcgm/metrics"
	if u := srv.DCGMURL(); u != "" {
		dcgm += " and " + u + "/metrics"
	}
	if cfg.Capacity != nil {
		fmt.Fprintf(e.stdout, "capacity model %s: %d slots, step %v + %v per sequence\n", cfg.Capacity.Name, cfg.Capacity.MaxNumSeqs, cfg.Capacity.StepBase, cfg.Capacity.StepPerSeq)
	}
	fmt.Fprintf(e.stdout, "DCGM exporter metrics on %s\n", dcgm)
	if *urlFile != "" {
		if err := os.WriteFile(*urlFile, []byte(srv.URL()+"\n"), 0o644); err != nil {
			return fmt.Errorf("--url-file: %w", err)
		}
	}
	<-ctx.Done()
	return nil
}

// mockFieldFlags names the flag of each mock.Config field a flag sets.
var mockFieldFlags = map[string]string{
	"Model": "model", "MaxModelLen": "max-model-len", "Version": "server-version",
	"TTFT": "ttft", "TTFTStdev": "ttft-stdev", "ITL": "itl", "ITLStdev": "itl-stdev",
	"OutputTokens": "output-tokens", "OutputTokensStdev": "output-tokens-stdev", "TokensPerChunk": "tokens-per-chunk",
	"ErrorRate": "error-rate", "ErrorCodes": "error-codes", "DisconnectRate": "disconnect-rate",
	"StallRate": "stall-rate", "StallDuration": "stall-duration", "StreamErrorRate": "stream-error-rate",
	"KVCacheTokens": "kv-cache-tokens", "GPUs": "gpus", "DCGMAddr": "dcgm-addr", "DCGMUpdateInterval": "dcgm-interval",
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
