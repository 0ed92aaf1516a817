package accum

import (
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
)

// tokenRun accumulates n successful requests with the given server and
// client counts (prompt, output; -1 unknown) and returns the extras.
func tokenRun(t *testing.T, cfg Config, n int, srvP, cliP, srvO, cliO int) *report.Extras {
	t.Helper()
	return editedRun(t, cfg, n, srvP, cliP, srvO, cliO, nil)
}

// editedRun is tokenRun with edit(i, r) applied to request i's record
// before it is added (nil: none).
func editedRun(t *testing.T, cfg Config, n int, srvP, cliP, srvO, cliO int, edit func(int, *record.Record)) *report.Extras {
	t.Helper()
	cfg.Constraints = []report.Constraint{{Kind: report.ConstraintMaxRequests, Count: n}}
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		at := float64(10 * i)
		recSpec{id: uint64(i + 1), status: record.StatusSuccessful, intended: at, dispatched: at,
			chunks: []float64{at + 5, at + 6}, firstOut: -1, end: at + 7, iterations: 3,
			prompt: srvP, output: srvO, source: record.TokensUsage, srv: srvO, cli: cliO}.fill(tokenRec)
		tokenRec.ServerPromptTokens, tokenRec.ClientPromptTokens = srvP, cliP
		if edit != nil {
			edit(i, tokenRec)
		}
		a.Add(tokenRec)
	}
	return a.Finish(BenchmarkInfo{Start: base, End: ms(float64(10 * n)), StopTime: ms(float64(10 * n))}).Extras
}

var tokenRec = record.New()

// A chat template's 5 tokens: every request bills 5 more prompt tokens
// than the client counted. The prompt mismatch and the overhead say so,
// and the warning names the tokenizer and the template.
func TestPromptMismatchChatTemplate(t *testing.T) {
	g := tokenRun(t, Config{RequestType: "chat_completions", Tokenizer: "o200k_base"}, 10, 133, 128, 16, 16)
	pm := g.PromptTokenMismatch
	if pm == nil || pm.Compared != 10 || pm.ServerHigher != 10 || pm.Equal != 0 || pm.Difference.Mean != 5 {
		t.Fatalf("prompt mismatch %+v", pm)
	}
	ov := g.PromptOverhead["chat_completions"]
	if len(g.PromptOverhead) != 1 || ov == nil || ov.Applied != 0 || ov.Tokens.Count != 10 || ov.Tokens.Mean != 5 || ov.Tokens.Min != 5 || ov.Tokens.Max != 5 {
		t.Fatalf("prompt overhead %+v", g.PromptOverhead)
	}
	if g.TokenMismatch.Compared != 10 || g.TokenMismatch.Equal != 10 {
		t.Errorf("output mismatch %+v", g.TokenMismatch)
	}
	if len(g.TokenWarnings) != 1 {
		t.Fatalf("warnings %+v, want one (prompt)", g.TokenWarnings)
	}
	w := g.TokenWarnings[0]
	if w.Tokens != report.TokensPrompt || w.Tokenizer != "o200k_base" || w.RequestsPct != 100 || w.ThresholdPct != 1 ||
		float64(w.DifferencePct) < 3.75 || float64(w.DifferencePct) > 3.76 {
		t.Errorf("warning %+v", w)
	}
	for _, s := range []string{"tokenizer o200k_base", "5 more prompt tokens on every request", "chat template", "--chat-template-overhead auto"} {
		if !strings.Contains(w.Message, s) {
			t.Errorf("warning %q lacks %q", w.Message, s)
		}
	}
}

// With the overhead applied the client expects its raw count plus 5: the
// prompt counts agree, the overhead is still measured, nothing warns.
func TestPromptOverheadApplied(t *testing.T) {
	g := tokenRun(t, Config{RequestType: "chat_completions", Tokenizer: "o200k_base", PromptOverhead: 5}, 10, 128, 123, 16, 16)
	if pm := g.PromptTokenMismatch; pm == nil || pm.Compared != 10 || pm.Equal != 10 {
		t.Fatalf("prompt mismatch %+v", pm)
	}
	if ov := g.PromptOverhead["chat_completions"]; ov == nil || ov.Applied != 5 || ov.Tokens.Mean != 5 {
		t.Fatalf("prompt overhead %+v", g.PromptOverhead)
	}
	if len(g.TokenWarnings) != 0 {
		t.Errorf("warnings %+v", g.TokenWarnings)
	}
	// Too little applied: the warning says by how much.
	g = tokenRun(t, Config{RequestType: "chat_completions", Tokenizer: "o200k_base", PromptOverhead: 2}, 10, 128, 123, 16, 16)
	if len(g.TokenWarnings) != 1 || !strings.Contains(g.TokenWarnings[0].Message, "measured overhead 5") {
		t.Errorf("warnings %+v", g.TokenWarnings)
	}
}

// Another model's tokenizer: the output counts differ and the warning
// names the --processor in use.
func TestOutputMismatchWarning(t *testing.T) {
	g := tokenRun(t, Config{RequestType: "text_completions", Tokenizer: "o200k_base"}, 4, 64, 64, 100, 80)
	if len(g.TokenWarnings) != 1 {
		t.Fatalf("warnings %+v", g.TokenWarnings)
	}
	w := g.TokenWarnings[0]
	if w.Tokens != report.TokensOutput || w.DifferencePct != 20 || w.RequestsPct != 100 ||
		!strings.Contains(w.Message, "--processor o200k_base against a server whose model tokenizes differently") {
		t.Errorf("warning %+v", w)
	}
	if ov := g.PromptOverhead["text_completions"]; ov == nil || ov.Tokens.Mean != 0 {
		t.Errorf("overhead %+v", g.PromptOverhead)
	}
	// A threshold above the difference, or a negative one, keeps quiet.
	for _, lim := range []float64{0.25, -1} {
		g = tokenRun(t, Config{Tokenizer: "o200k_base", TokenMismatchWarn: lim}, 4, 64, 64, 100, 80)
		if len(g.TokenWarnings) != 0 {
			t.Errorf("threshold %v: warnings %+v", lim, g.TokenWarnings)
		}
	}
}

// Unknown client counts are left out: no comparison, no overhead, no
// warning, and no mismatch of 100 %.
func TestUnknownClientCounts(t *testing.T) {
	g := tokenRun(t, Config{RequestType: "chat_completions"}, 5, 133, -1, 16, -1)
	if g.PromptTokenMismatch != nil || g.PromptOverhead != nil || g.TokenWarnings != nil || g.TokenMismatch.Compared != 0 {
		t.Errorf("prompt %+v overhead %+v warnings %+v output %+v", g.PromptTokenMismatch, g.PromptOverhead, g.TokenWarnings, g.TokenMismatch)
	}
}
