package accum

import (
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
)

// Four requests ask for 32 tokens and get 32 (length), 14 and 10 (stop)
// and 30 (no finish reason): 3 of 4 are short, by 18, 22 and 2 tokens,
// a mean of 42/3 = 14; stop's two are 20 short on average.
func TestOutputShortfall(t *testing.T) {
	outs := []int{32, 14, 10, 30}
	finish := []string{"length", "stop", "stop", ""}
	g := editedRun(t, Config{RequestType: "chat_completions"}, 4, 64, -1, 0, -1, func(i int, r *record.Record) {
		r.RequestedOutputTokens = 32
		r.OutputTokens, r.ServerOutputTokens, r.FinishReason = outs[i], outs[i], finish[i]
	})
	sh := g.OutputShortfall
	if sh == nil || sh.Requests != 4 || sh.Short != 3 || sh.ShortFraction != 0.75 || sh.MeanShortfall != 14 {
		t.Fatalf("shortfall %+v", sh)
	}
	if len(sh.ByFinishReason) != 2 || *sh.ByFinishReason["stop"] != (report.ShortfallCounts{Short: 2, MeanShortfall: 20}) ||
		*sh.ByFinishReason["unknown"] != (report.ShortfallCounts{Short: 1, MeanShortfall: 2}) {
		t.Errorf("by finish reason %v %v", sh.ByFinishReason["stop"], sh.ByFinishReason["unknown"])
	}
	// Every output as long as asked, or none asked: no figure.
	g = editedRun(t, Config{}, 3, 64, -1, 32, -1, func(i int, r *record.Record) { r.RequestedOutputTokens = 32 - 32*(i%2) })
	if g.OutputShortfall != nil {
		t.Errorf("shortfall %+v, want none", g.OutputShortfall)
	}
}

// The server billed 32 output tokens, the client counted 14 of the text
// it streamed, and each request ended with finish_reason stop: an early
// stop, not a tokenizer. The same difference on outputs cut at their
// length (finish_reason length) is a tokenizer.
func TestOutputMismatchEarlyStop(t *testing.T) {
	run := func(finish string) *report.Extras {
		return editedRun(t, Config{RequestType: "chat_completions", Tokenizer: "o200k_base"}, 4, 64, 64, 32, 14, func(_ int, r *record.Record) {
			r.RequestedOutputTokens, r.FinishReason = 32, finish
		})
	}
	g := run("stop")
	if len(g.TokenWarnings) != 1 || g.TokenWarnings[0].Tokens != report.TokensOutput {
		t.Fatalf("warnings %+v", g.TokenWarnings)
	}
	m := g.TokenWarnings[0].Message
	for _, s := range []string{"an early stop, not a tokenizer", "4 of the 4 differing requests ended before their max_tokens", "ignore_eos"} {
		if !strings.Contains(m, s) {
			t.Errorf("warning %q lacks %q", m, s)
		}
	}
	if strings.Contains(m, "different model's tokenizer") {
		t.Errorf("warning %q blames the tokenizer", m)
	}
	m = run("length").TokenWarnings[0].Message
	for _, s := range []string{"different model's tokenizer", "4 of the 4 differing requests ran to their max_tokens, finish_reason length"} {
		if !strings.Contains(m, s) {
			t.Errorf("warning %q lacks %q", m, s)
		}
	}
}

// Ollama cut every prompt to its context: 3,000 to 3,004 tokens sent,
// 1,027 billed on each. The warning names the context limit and the
// count, not a tokenizer.
func TestPromptContextLimit(t *testing.T) {
	g := editedRun(t, Config{RequestType: "chat_completions", Tokenizer: "o200k_base"}, 5, 1027, 3000, 16, 16, func(i int, r *record.Record) {
		r.ClientPromptTokens = 3000 + i
	})
	if len(g.TokenWarnings) != 1 || g.TokenWarnings[0].Tokens != report.TokensPrompt {
		t.Fatalf("warnings %+v", g.TokenWarnings)
	}
	m := g.TokenWarnings[0].Message
	for _, s := range []string{"billed 1027 prompt tokens on every request", "context limit cut the prompts to 1027 tokens", "prompt_tokens plus output_tokens within 1027, less any template's tokens", "--ctx-size"} {
		if !strings.Contains(m, s) {
			t.Errorf("warning %q lacks %q", m, s)
		}
	}
	if strings.Contains(m, "tokenizer than") {
		t.Errorf("warning %q blames the tokenizer", m)
	}
}

// A 10-token surplus on text completions is a template surplus, and
// --chat-template-overhead auto compensates it there too.
func TestPromptTemplateSurplusCompletions(t *testing.T) {
	g := tokenRun(t, Config{RequestType: "text_completions", Tokenizer: "o200k_base"}, 4, 74, 64, 16, 16)
	if len(g.TokenWarnings) != 1 {
		t.Fatalf("warnings %+v", g.TokenWarnings)
	}
	m := g.TokenWarnings[0].Message
	for _, s := range []string{"10 more prompt tokens on every request", "template surplus", "--chat-template-overhead auto"} {
		if !strings.Contains(m, s) {
			t.Errorf("warning %q lacks %q", m, s)
		}
	}
	if strings.Contains(m, "BOS") {
		t.Errorf("warning %q calls it a BOS token", m)
	}
}

// Cached prompt tokens by the server's usage, of 100-token prompts: 96,
// 0, none reported, and 96 on a session's turn: 192 of 300 (0.64) in
// all; outside sessions 96 of 200 (0.48).
func TestPromptCache(t *testing.T) {
	cached := []int{96, 0, -1, 96}
	g := editedRun(t, Config{}, 4, 100, -1, 16, -1, func(i int, r *record.Record) {
		r.CachedTokens = cached[i]
		if i == 3 {
			r.Session = record.Session{ID: "s", Turns: 1}
		}
	})
	pc := g.PromptCache
	if pc == nil || pc.CacheCounts != (report.CacheCounts{Requests: 3, PromptTokens: 300, CachedTokens: 192, HitRate: 0.64}) {
		t.Fatalf("prompt cache %+v", pc)
	}
	if pc.Standalone == nil || *pc.Standalone != (report.CacheCounts{Requests: 2, PromptTokens: 200, CachedTokens: 96, HitRate: 0.48}) {
		t.Errorf("standalone %+v", pc.Standalone)
	}
	if g := tokenRun(t, Config{}, 2, 100, -1, 16, -1); g.PromptCache != nil {
		t.Errorf("prompt cache %+v without cached counts", g.PromptCache)
	}
}
