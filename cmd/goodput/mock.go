package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"

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
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q (see 'goodput mock --help')", fs.Arg(0))
	}
	if *port < 0 || *port > 65535 {
		return usagef("--port %d: want 0..65535", *port)
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
		return usagef("%v", err)
	}
	if err := srv.Start(net.JoinHostPort(*host, strconv.Itoa(*port))); err != nil {
		return fmt.Errorf("listening on %s:%d: %w", *host, *port, err)
	}
	defer srv.Close()
	fmt.Fprintf(e.stdout, "goodput mock serving %q on %s (Ctrl-C to stop)\n", cfg.Model, srv.URL())
	if *urlFile != "" {
		if err := os.WriteFile(*urlFile, []byte(srv.URL()+"\n"), 0o644); err != nil {
			return fmt.Errorf("--url-file: %w", err)
		}
	}
	<-ctx.Done()
	return nil
}
