package run

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/dataset"
	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/scorecard/measure"
	"github.com/goodput-dev/goodput/sweep"
	"github.com/goodput-dev/goodput/tokenize"
)

// tokenRun runs 8 requests of prompt_tokens=128 against a mock on loopback
// whose chat template adds 5 prompt tokens (it counts prompts with
// o200k_base, like the client when tok is set) and returns the report, the
// console and stderr.
func tokenRun(t *testing.T, tok *tokenize.Tokenizer, noStream bool, tokens Tokens) (*report.Report, string, string) {
	t.Helper()
	rep, console, stderr, err := tokenRunErr(t, tok, noStream, tokens)
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, stderr)
	}
	return rep, console, stderr
}

func tokenRunErr(t *testing.T, tok *tokenize.Tokenizer, noStream bool, tokens Tokens) (*report.Report, string, string, error) {
	t.Helper()
	mc := mock.DefaultConfig()
	mc.TTFT, mc.TTFTStdev, mc.ITL, mc.ITLStdev = 2*time.Millisecond, 0, time.Millisecond, 0
	mc.ChatTemplateTokens = 5
	o200k, err := tokenize.Builtin("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	mc.PromptTokenCounter = o200k.Count
	srv, err := mock.New(mc)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	spec := dataset.Spec{Prompt: dataset.Dist{Mean: 128}, Output: dataset.Dist{Mean: 8}}
	c := &Config{
		Client: loadgen.ClientConfig{Target: srv.URL(), Endpoint: loadgen.EndpointChat, NoStream: noStream, ConnectTimeout: time.Second, StallTimeout: -1, RequestTimeout: -1},
		Data:   Data{Synthetic: &spec, Options: dataset.Options{Tokenizer: tok, Seed: 1, TimeScale: 1}},
		Plan: Plan{
			Planner: sweep.List{{Kind: loadgen.Concurrent, Streams: 2}}, Profile: report.Profile{Kind: "concurrent", Streams: []int{2}},
			Constraints: loadgen.Constraints{MaxRequests: 8}, Seed: 1,
		},
		Telemetry: measure.Config{ServerMetrics: measure.ServerMetricsOff, Interval: time.Second, PUE: 1},
		Outputs:   Outputs{Dir: t.TempDir(), RunID: "r1", Kinds: map[string]bool{"console": true}},
		Metadata:  Metadata{ProbeTimeout: time.Second},
		Progress:  Progress{Disable: true, LogFormat: "console", Interval: time.Second},
		Build:     Build{Version: "test", Commit: "abc"},
		Tokens:    tokens,
	}
	var out, errb bytes.Buffer
	rep, err := Run(context.Background(), c, Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }})
	return rep, out.String(), errb.String(), err
}

// A chat template's 5 tokens are measured and warned about; with the
// overhead applied (measured by a probe, or given) the server bills the
// requested 128 and nothing warns.
func TestChatTemplateOverhead(t *testing.T) {
	tok, err := tokenize.Builtin("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	rep, _, stderr := tokenRun(t, tok, false, Tokens{})
	g := rep.Benchmarks[0].Extras
	pm, ov := g.PromptTokenMismatch, g.PromptOverhead["chat_completions"]
	if pm == nil || pm.Compared != 8 || pm.ServerHigher != 8 || pm.Difference.Mean != 5 || ov == nil || ov.Tokens.Mean != 5 || ov.Applied != 0 {
		t.Fatalf("prompt mismatch %+v, overhead %+v", pm, g.PromptOverhead)
	}
	if billed := rep.Benchmarks[0].Metrics.PromptTokenCount.Successful.Mean; billed != 133 {
		t.Errorf("billed prompt tokens %v, want 133", billed)
	}
	if len(g.TokenWarnings) != 1 || !strings.Contains(stderr, "WARNING: benchmark 0 (concurrent 2): prompt tokens: the server's usage and tokenizer o200k_base differ") ||
		!strings.Contains(stderr, "chat template") {
		t.Errorf("warnings %+v\nstderr:\n%s", g.TokenWarnings, stderr)
	}
	for _, tokens := range []Tokens{{OverheadAuto: true}, {Overhead: 5}} {
		rep, _, stderr = tokenRun(t, tok, false, tokens)
		g = rep.Benchmarks[0].Extras
		pm, ov = g.PromptTokenMismatch, g.PromptOverhead["chat_completions"]
		if pm == nil || pm.Compared != 8 || pm.Equal != 8 || ov == nil || ov.Tokens.Mean != 5 || ov.Applied != 5 {
			t.Fatalf("%+v: prompt mismatch %+v, overhead %+v", tokens, pm, ov)
		}
		if billed := rep.Benchmarks[0].Metrics.PromptTokenCount.Successful; billed.Mean != 128 || billed.Min != 128 || billed.Max != 128 {
			t.Errorf("%+v: billed prompt tokens %+v, want 128", tokens, billed)
		}
		if len(g.TokenWarnings) != 0 || strings.Contains(stderr, "tokens: the server's usage") { // not any WARNING: a loaded machine may add the saturation one
			t.Errorf("%+v: warnings %+v\nstderr:\n%s", tokens, g.TokenWarnings, stderr)
		}
		if tokens.OverheadAuto && !strings.Contains(stderr, "prompt overhead 5 tokens (measured with one probe request: 133 prompt tokens billed for 128 counted by o200k_base)") {
			t.Errorf("auto: stderr lacks the measurement:\n%s", stderr)
		}
	}
}

// --no-stream without a tokenizer: the client's output count is unknown,
// so nothing is compared (not a 100 % mismatch) and the console prints "-".
func TestNoStreamUnknownCounts(t *testing.T) {
	rep, console, stderr := tokenRun(t, nil, true, Tokens{})
	g := rep.Benchmarks[0].Extras
	if g.TokenMismatch.Compared != 0 || g.PromptTokenMismatch != nil || g.PromptOverhead != nil || len(g.TokenWarnings) != 0 {
		t.Fatalf("output %+v prompt %+v overhead %+v warnings %+v", g.TokenMismatch, g.PromptTokenMismatch, g.PromptOverhead, g.TokenWarnings)
	}
	var row string
	for _, l := range strings.Split(console, "\n") {
		if strings.Contains(l, "Mismatch %") {
			row = "header"
			continue
		}
		if row == "header" && strings.HasPrefix(strings.TrimSpace(l), "0 ") {
			row = l
		}
	}
	if !strings.HasSuffix(row, " -") {
		t.Errorf("mismatch row %q\nconsole:\n%s\nstderr:\n%s", row, console, stderr)
	}
	// Without a tokenizer the overhead cannot be applied: one line says so.
	_, _, _, err := tokenRunErr(t, nil, false, Tokens{OverheadAuto: true})
	var ue UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--chat-template-overhead needs a tokenizer (--processor)") {
		t.Errorf("auto without a tokenizer: %v", err)
	}
}
