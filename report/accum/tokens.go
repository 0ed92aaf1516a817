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
// unknown), and what the cache and shortfall figures need: the prompt
// and output counts used in metrics, the cached prompt tokens (-1 when
// unknown), the output length asked for (-1 when none), the finish reason
// and whether the request was a session's turn.
type tokenCounts struct {
	srvOut, cliOut, srvPrompt, cliPrompt int
	prompt, out, cached, askedOut        int
	finish                               string
	session                              bool
}

func countsOf(r *record.Record) tokenCounts {
	return tokenCounts{srvOut: r.ServerOutputTokens, cliOut: r.ClientOutputTokens,
		srvPrompt: r.ServerPromptTokens, cliPrompt: r.ClientPromptTokens,
		prompt: r.PromptTokens, out: r.OutputTokens, cached: r.CachedTokens, askedOut: r.RequestedOutputTokens,
		finish: r.FinishReason, session: r.Session.ID != ""}
}

// finishLength is the finish reason of an output cut at its max_tokens.
const finishLength = "length"

// tokenCheck compares the server's and the client's token counts of the
// in-window requests: output tokens, prompt tokens (the client's count plus
// the overhead the data took off) and the prompt overhead (against the raw
// prompt).
type tokenCheck struct {
	out, prompt, overhead mismatch
	// outEarly and outLength count the output mismatches of requests
	// that stopped short of their asked length with a finish reason other
	// than length (an early stop), and of those that ended with length.
	outEarly, outLength int64
	// srvPromptMin and srvPromptMax bound the server's prompt counts of
	// the compared prompts (a context cut bills the same count on all).
	srvPromptMin, srvPromptMax int
	cache, standalone          cacheSums
	short                      shortfall
}

// cacheSums add up the cached prompt tokens the server reported.
type cacheSums struct{ requests, prompt, cached int64 }

func (c *cacheSums) add(prompt, cached int) {
	c.requests++
	c.prompt += int64(max(prompt, 0))
	c.cached += int64(cached)
}

func (c *cacheSums) counts() report.CacheCounts {
	x := report.CacheCounts{Requests: report.Int(c.requests), PromptTokens: report.Int(c.prompt), CachedTokens: report.Int(c.cached)}
	if c.prompt > 0 {
		x.HitRate = report.Float(float64(c.cached) / float64(c.prompt))
	}
	return x
}

// shortfall counts outputs shorter than asked, by finish reason.
type shortfall struct {
	requests, short, tokens int64
	by                      map[string]*[2]int64 // finish reason → short, tokens
}

func (s *shortfall) add(asked, got int, finish string) {
	s.requests++
	if got >= asked {
		return
	}
	d := int64(asked - got)
	s.short++
	s.tokens += d
	if finish == "" {
		finish = "unknown"
	}
	if s.by == nil {
		s.by = map[string]*[2]int64{}
	}
	b := s.by[finish]
	if b == nil {
		b = new([2]int64)
		s.by[finish] = b
	}
	b[0]++
	b[1] += d
}

func (s *shortfall) report() *report.OutputShortfall {
	if s.short == 0 {
		return nil
	}
	out := &report.OutputShortfall{Requests: report.Int(s.requests), Short: report.Int(s.short),
		ShortFraction:  report.Float(float64(s.short) / float64(s.requests)),
		MeanShortfall:  report.Float(float64(s.tokens) / float64(s.short)),
		ByFinishReason: make(map[string]*report.ShortfallCounts, len(s.by))}
	for k, b := range s.by {
		out.ByFinishReason[k] = &report.ShortfallCounts{Short: report.Int(b[0]), MeanShortfall: report.Float(float64(b[1]) / float64(b[0]))}
	}
	return out
}

func (t *tokenCheck) add(tc tokenCounts, applied int, successful bool) {
	if tc.srvOut >= 0 && tc.cliOut >= 0 && tc.srvOut != tc.cliOut {
		switch {
		case tc.finish == finishLength:
			t.outLength++
		case tc.askedOut > 0 && min(tc.srvOut, tc.cliOut) < tc.askedOut:
			t.outEarly++
		}
	}
	t.out.add(tc.srvOut, tc.cliOut)
	if tc.cliPrompt >= 0 {
		if tc.srvPrompt >= 0 {
			if t.prompt.compared == 0 {
				t.srvPromptMin, t.srvPromptMax = tc.srvPrompt, tc.srvPrompt
			}
			t.srvPromptMin, t.srvPromptMax = min(t.srvPromptMin, tc.srvPrompt), max(t.srvPromptMax, tc.srvPrompt)
		}
		t.prompt.add(tc.srvPrompt, tc.cliPrompt+applied)
	}
	t.overhead.add(tc.srvPrompt, tc.cliPrompt)
	if !successful {
		return
	}
	if tc.cached >= 0 {
		t.cache.add(tc.prompt, tc.cached)
		if !tc.session {
			t.standalone.add(tc.prompt, tc.cached)
		}
	}
	if tc.askedOut > 0 && tc.out >= 0 {
		t.short.add(tc.askedOut, tc.out, tc.finish)
	}
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
	if t.cache.requests > 0 {
		ex.PromptCache = &report.PromptCache{CacheCounts: t.cache.counts()}
		if a.sessions != nil {
			c := t.standalone.counts()
			ex.PromptCache.Standalone = &c
		}
	}
	ex.OutputShortfall = t.short.report()
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
	warn(report.TokensOutput, &t.out, a.outputCause(proc))
	return out
}

// outputCause names the likely cause of an output mismatch: outputs that
// stopped before their asked length (finish_reason stop, eos) are an
// early stop; counts that differ on outputs cut at their length are a
// different tokenizer.
func (a *Accumulator) outputCause(proc string) string {
	t := &a.tok
	differ := t.out.server + t.out.client
	if t.outEarly > 0 && 2*t.outEarly >= differ {
		s := fmt.Sprintf("an early stop, not a tokenizer: %d of the %d differing requests ended before their max_tokens with a finish reason other than length", t.outEarly, differ)
		if sh := t.short.report(); sh != nil {
			s += fmt.Sprintf(" (%d outputs shorter than asked, %.1f tokens short on average; see output_shortfall)", sh.Short, float64(sh.MeanShortfall))
		}
		return s + `; the server did not honour ignore_eos (or its API has none): send it with --extra-body '{"ignore_eos":true}' where the server reads it, or compare lengths by the server's usage`
	}
	s := fmt.Sprintf("likely a different model's tokenizer: %s against a server whose model tokenizes differently; give the served model's tokenizer (--processor)", proc)
	if t.outLength > 0 {
		s += fmt.Sprintf(" (%d of the %d differing requests ran to their max_tokens, finish_reason length)", t.outLength, differ)
	}
	return s
}

// promptCause names the likely cause of a prompt mismatch: the same
// server count on every request, below what was sent, is the server's
// context limit cutting the prompts; a constant surplus on the server's
// side is what a template (a chat template, or the special tokens a
// server adds to a text prompt) looks like; anything else, a different
// tokenizer.
func (a *Accumulator) promptCause() string {
	t := &a.tok
	applied := a.cfg.PromptOverhead
	if n := t.srvPromptMin; t.prompt.compared >= 2 && n == t.srvPromptMax && t.prompt.client == t.prompt.compared {
		return fmt.Sprintf("the server billed %d prompt tokens on every request, fewer than each sent: its context limit cut the prompts to %d tokens; "+
			"send shorter prompts (--data prompt_tokens plus output_tokens within %d, less any template's tokens) or raise the server's context length (llama.cpp --ctx-size, Ollama num_ctx or OLLAMA_CONTEXT_LENGTH, vLLM --max-model-len)", n, n, n)
	}
	what := "the chat template (role markers and special tokens the server wraps the messages in)"
	if a.cfg.RequestType == "text_completions" {
		what = "a template surplus: tokens the server's prompt template adds to every text prompt (its special tokens and wrapper)"
	}
	if d, ok := t.prompt.constant(); ok && d > 0 {
		s := fmt.Sprintf("the server counts %d more prompt tokens on every request: likely %s", d, what)
		if applied > 0 {
			return s + fmt.Sprintf("; the %d tokens --chat-template-overhead took off are too few: measured overhead %d", applied, int64(applied)+d)
		}
		return s + "; --chat-template-overhead auto makes exact synthetic prompts bill the requested count"
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
