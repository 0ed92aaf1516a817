package accum

import (
	"fmt"
	"math"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/stats"
)

// DefaultTokenMismatchWarn is Config.TokenMismatchWarn's default: 1 % of
// the server's tokens.
const DefaultTokenMismatchWarn = 0.01

// mismatchValues bounds the distinct server − client differences kept.
const mismatchValues = 1 << 16

// tokenCounts are one request's server and client token counts (-1 when
// unknown).
type tokenCounts struct {
	srvOut, cliOut, srvPrompt, cliPrompt int
}

func countsOf(r *record.Record) tokenCounts {
	return tokenCounts{srvOut: r.ServerOutputTokens, cliOut: r.ClientOutputTokens,
		srvPrompt: r.ServerPromptTokens, cliPrompt: r.ClientPromptTokens}
}

// tokenCheck compares the server's and the client's token counts of the
// in-window requests: output tokens, prompt tokens (the client's count plus
// the overhead the data took off) and the prompt overhead (against the raw
// prompt).
type tokenCheck struct {
	out, prompt, overhead mismatch
}

func (t *tokenCheck) add(tc tokenCounts, applied int) {
	t.out.add(tc.srvOut, tc.cliOut)
	if tc.cliPrompt >= 0 {
		t.prompt.add(tc.srvPrompt, tc.cliPrompt+applied)
	}
	t.overhead.add(tc.srvPrompt, tc.cliPrompt)
}

// mismatch counts server vs client token counts.
type mismatch struct {
	compared, equal, server, client int64
	absDiff, srvSum                 int64 // Σ |server − client|, Σ server
	diffs                           map[int64]int64
	dropped                         int64 // differences beyond mismatchValues distinct values
}

func (m *mismatch) add(srv, cli int) {
	if srv < 0 || cli < 0 {
		return
	}
	m.compared++
	d := int64(srv) - int64(cli)
	switch {
	case d == 0:
		m.equal++
	case d > 0:
		m.server++
	default:
		m.client++
	}
	m.absDiff += max(d, -d)
	m.srvSum += int64(srv)
	if m.diffs == nil {
		m.diffs = map[int64]int64{}
	}
	if _, ok := m.diffs[d]; !ok && len(m.diffs) >= mismatchValues {
		m.dropped++
		return
	}
	m.diffs[d]++
}

func (m *mismatch) difference() *report.DistributionSummary {
	ss := make([]stats.Sample, 0, len(m.diffs))
	for d, n := range m.diffs {
		ss = append(ss, stats.Sample{Value: float64(d), Weight: float64(n)})
	}
	d := stats.FromValues(ss)
	return &d
}

func (m *mismatch) summary() report.TokenMismatch {
	return report.TokenMismatch{Compared: report.Int(m.compared), Equal: report.Int(m.equal),
		ServerHigher: report.Int(m.server), ClientHigher: report.Int(m.client), Difference: m.difference()}
}

// differencePct is Σ|server − client| / Σ server × 100 (0 without tokens).
func (m *mismatch) differencePct() float64 {
	if m.srvSum <= 0 {
		if m.absDiff > 0 {
			return 100
		}
		return 0
	}
	return 100 * float64(m.absDiff) / float64(m.srvSum)
}

// requestsPct is the share of compared requests whose counts differ.
func (m *mismatch) requestsPct() float64 {
	if m.compared == 0 {
		return 0
	}
	return 100 * float64(m.server+m.client) / float64(m.compared)
}

// constant reports whether every compared request had the same difference
// d (false when some differences were dropped).
func (m *mismatch) constant() (d int64, ok bool) {
	if len(m.diffs) != 1 || m.dropped > 0 {
		return 0, false
	}
	for k := range m.diffs {
		d = k
	}
	return d, true
}

// tokenExtras fills ex's token count comparisons and warnings.
func (a *Accumulator) tokenExtras(ex *report.Extras) {
	t := &a.tok
	ex.TokenMismatch = t.out.summary()
	for _, m := range []struct {
		key string
		m   *mismatch
	}{{"token_mismatch", &t.out}, {"prompt_token_mismatch", &t.prompt}, {"prompt_overhead", &t.overhead}} {
		if m.m.dropped > 0 {
			ex.Exact = false
			ex.InexactReasons = append(ex.InexactReasons, fmt.Sprintf(
				"%s leaves out %d requests beyond %d distinct differences", m.key, m.m.dropped, mismatchValues))
		}
	}
	if t.prompt.compared > 0 {
		pm := t.prompt.summary()
		ex.PromptTokenMismatch = &pm
	}
	if t.overhead.compared > 0 {
		typ := a.cfg.RequestType
		if typ == "" {
			typ = "unknown"
		}
		ex.PromptOverhead = map[string]*report.PromptOverhead{
			typ: {Applied: report.Int(a.cfg.PromptOverhead), Tokens: t.overhead.difference()},
		}
	}
	ex.TokenWarnings = a.tokenWarnings()
}

// tokenWarnings are the comparisons whose difference exceeds the
// threshold, each with its likely cause.
func (a *Accumulator) tokenWarnings() []report.TokenWarning {
	limit := a.cfg.TokenMismatchWarn
	if limit == 0 {
		limit = DefaultTokenMismatchWarn
	}
	if limit < 0 || math.IsNaN(limit) {
		return nil
	}
	tok := "the client's count (no tokenizer)"
	if a.cfg.Tokenizer != "" {
		tok = "tokenizer " + a.cfg.Tokenizer
	}
	var out []report.TokenWarning
	warn := func(kind string, m *mismatch, cause string) {
		pct := m.differencePct()
		if m.compared == 0 || pct <= 100*limit {
			return
		}
		out = append(out, report.TokenWarning{
			Tokens: kind, DifferencePct: report.Float(pct), ThresholdPct: report.Float(100 * limit),
			RequestsPct: report.Float(m.requestsPct()), Tokenizer: a.cfg.Tokenizer,
			Message: fmt.Sprintf("%s tokens: the server's usage and %s differ by %.1f %% of the server's tokens (in %.1f %% of %d requests; threshold %.1f %%): %s",
				kind, tok, pct, m.requestsPct(), m.compared, 100*limit, cause),
		})
	}
	t := &a.tok
	warn(report.TokensPrompt, &t.prompt, a.promptCause())
	proc := a.cfg.Tokenizer
	if proc == "" {
		proc = "the client's tokenizer"
	} else {
		proc = "--processor " + proc
	}
	warn(report.TokensOutput, &t.out, fmt.Sprintf(
		"likely a different model's tokenizer: %s against a server whose model tokenizes differently; give the served model's tokenizer (--processor)", proc))
	return out
}

// promptCause names the likely cause of a prompt mismatch: a constant
// surplus on the server's side is what a chat template (or the special
// tokens a server adds) looks like; anything else, a different tokenizer.
func (a *Accumulator) promptCause() string {
	t := &a.tok
	applied := a.cfg.PromptOverhead
	chat := a.cfg.RequestType != "text_completions"
	what := "the chat template (role markers and special tokens the server wraps the messages in)"
	if !chat {
		what = "special tokens the server adds to the prompt (a BOS token)"
	}
	if d, ok := t.prompt.constant(); ok && d > 0 {
		s := fmt.Sprintf("the server counts %d more prompt tokens on every request: likely %s", d, what)
		if applied > 0 {
			return s + fmt.Sprintf("; the %d tokens --chat-template-overhead took off are too few: measured overhead %d", applied, int64(applied)+d)
		}
		if chat {
			s += "; --chat-template-overhead auto makes exact synthetic prompts bill the requested count"
		}
		return s
	}
	if d, ok := t.prompt.constant(); ok && d < 0 && applied > 0 {
		return fmt.Sprintf("the server counts %d fewer prompt tokens on every request: the %d tokens --chat-template-overhead took off are too many (measured overhead %d)", -d, applied, int64(applied)+d)
	}
	s := "the difference varies between requests: likely a different model's tokenizer than the server's (give the served model's tokenizer with --processor)"
	if t.prompt.server > 0 && t.prompt.client == 0 {
		s += ", or " + what + " on top of it"
	}
	return s
}
