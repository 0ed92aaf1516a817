package mock

import (
	"math"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestDefaultConfigIsValid(t *testing.T) {
	c := DefaultConfig()
	if err := c.validate(); err != nil {
		t.Fatalf("DefaultConfig does not validate: %v", err)
	}
	if c.Model != "goodput-mock" || c.TokensPerChunk != 1 || !c.Stamp || len(c.ErrorCodes) != 3 {
		t.Errorf("DefaultConfig = %+v", c)
	}
}

func TestConfigValidation(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Config)
		want   string // substring of the error; "" means valid
	}{
		{"empty model", func(c *Config) { c.Model = " " }, "Model"},
		{"max model len", func(c *Config) { c.MaxModelLen = 0 }, "MaxModelLen must be >= 1"},
		{"version", func(c *Config) { c.Version = "" }, "Version"},
		{"negative TTFT", func(c *Config) { c.TTFT = -time.Millisecond }, "TTFT must be a duration >= 0"},
		{"negative ITL stdev", func(c *Config) { c.ITLStdev = -1 }, "ITLStdev"},
		{"zero delays are fine", func(c *Config) { c.TTFT, c.ITL, c.TTFTStdev, c.ITLStdev = 0, 0, 0, 0 }, ""},
		{"output tokens", func(c *Config) { c.OutputTokens = 0 }, "OutputTokens must be >= 1"},
		{"output stdev NaN", func(c *Config) { c.OutputTokensStdev = math.NaN() }, "OutputTokensStdev"},
		{"tokens per chunk", func(c *Config) { c.TokensPerChunk = 0 }, "TokensPerChunk must be >= 1"},
		{"error rate", func(c *Config) { c.ErrorRate = 1.5 }, "ErrorRate must be a fraction in [0,1]"},
		{"disconnect rate NaN", func(c *Config) { c.DisconnectRate = math.NaN() }, "DisconnectRate"},
		{"stall rate", func(c *Config) { c.StallRate = -0.1 }, "StallRate"},
		{"stream error rate", func(c *Config) { c.StreamErrorRate = 2 }, "StreamErrorRate"},
		{"no error codes", func(c *Config) { c.ErrorRate, c.ErrorCodes = 0.1, nil }, "ErrorCodes must list"},
		{"no error codes, no errors", func(c *Config) { c.ErrorCodes = nil }, ""},
		{"bad error code", func(c *Config) { c.ErrorCodes = []int{200} }, "400..599"},
		{"stall without duration", func(c *Config) { c.StallRate, c.StallDuration = 0.5, 0 }, "StallDuration must be a duration > 0"},
		{"kv cache", func(c *Config) { c.KVCacheTokens = 0 }, "KVCacheTokens"},
		{"metrics error rate", func(c *Config) { c.MetricsErrorRate = 1.01 }, "MetricsErrorRate must be a fraction in [0,1]"},
		{"chat template tokens negative", func(c *Config) { c.ChatTemplateTokens = -1 }, "ChatTemplateTokens must be in 0..MaxModelLen minus 1"},
		{"chat template tokens fill the context", func(c *Config) { c.MaxModelLen, c.ChatTemplateTokens = 8, 8 }, "ChatTemplateTokens must be in 0..MaxModelLen minus 1 (0..7)"},
		{"difficult server", func(c *Config) { c.NoAbort, c.LazyMetrics, c.MetricsErrorRate, c.ChatTemplateTokens = true, true, 1, 5 }, ""},
		{"rates at bounds", func(c *Config) { c.ErrorRate, c.DisconnectRate, c.StallRate, c.StreamErrorRate = 1, 1, 0, 1 }, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.mutate(&c)
			_, err := New(c)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("New: %v, want success", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("New: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestPromptTokenCounter(t *testing.T) {
	cfg := fastConfig()
	var (
		mu   sync.Mutex
		seen []string
	)
	cfg.PromptTokenCounter = func(s string) int {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, s)
		return len(strings.Fields(s))
	}
	s := startServer(t, cfg)
	// Two messages, one as parts: "a b c" (3) + "d e" (2) + "f" (1) = 6.
	resp := post(t, nil, s.URL()+"/v1/chat/completions",
		`{"messages":[{"role":"system","content":"a b c"},{"role":"user","content":[{"type":"text","text":"d e"},{"type":"text","text":"f"}]}],"max_tokens":1,"stream":true,"stream_options":{"include_usage":true}}`)
	res := readSSE(resp.Body)
	resp.Body.Close()
	if len(res.payloads) == 0 || !strings.Contains(res.payloads[len(res.payloads)-1], `"prompt_tokens":6,`) {
		t.Errorf("usage chunk %v, want prompt_tokens 6", res.payloads)
	}
	mu.Lock()
	defer mu.Unlock()
	// The three text pieces, then the answer: the prefix cache caches it
	// as the next turn will send it back.
	if len(seen) != 4 || seen[3] != " the" {
		t.Errorf("counter called with %q, want the three text pieces and the answer", seen)
	}
	if got := ApproxTokenCount("12345"); got != 2 {
		t.Errorf("ApproxTokenCount(5 bytes) = %d, want ceil(5/4) = 2", got)
	}
}
