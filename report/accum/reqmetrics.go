package accum

import (
	"github.com/goodput-dev/goodput/metric"
	"github.com/goodput-dev/goodput/record"
)

// RequestSummary is the compact per-request summary the Accumulator keeps (up to
// Config.ExactCap of them, 72 bytes each): enough to recompute every
// GuideLLM metric and goodput's per-request extras exactly. Times are Unix nanoseconds,
// zero meaning "did not happen"; token counts are -1 when unknown.
type RequestSummary struct {
	start    int64 // GuideLLM request_start_time: Dispatched, else Intended, else End
	end      int64 // GuideLLM request_end_time: End, else start
	first    int64 // first token-bearing chunk (first_token_iteration)
	last     int64 // last token-bearing chunk (last_token_iteration)
	firstOut int64 // first non-reasoning chunk (first_output_token_iteration)
	intended int64 // schedule target (targeted_start)

	prompt   int32 // prompt tokens, -1 unknown
	usageOut int32 // output tokens from usage or the tokenizer, -1 unknown (chunk counts are not kept: GuideLLM derives them from tokIters)
	tokIters int32 // token-bearing chunks (token_iterations)
	reqIters int32 // SSE events (request_iterations)

	http     uint16 // HTTP status, 0 if none
	status   uint8  // stSuccessful, stErrored, stIncomplete
	errClass uint8  // index into Accumulator.classNames (0 = none)
	flags    uint8  // flagDispatched | flagOnlineIn | flagWindowIn | flagWindowOut | verdictMk
	inputs   uint16 // a pooling request's inputs or documents (record.Inputs, capped), in the padding
	errMsg   uint8  // index into Accumulator.msgNames (0 = none or beyond the table), in the padding
}

const (
	flagDispatched uint8 = 1 << iota // Dispatched != 0: start is the real request start
	flagOnlineIn                     // fed to the online histograms
	flagWindowIn                     // Config.InWindow holds it in the window
	flagWindowOut                    // Config.InWindow leaves it out
)

func clampInt32(v int) int32 {
	switch {
	case v > 1<<31-1:
		return 1<<31 - 1
	case v < -1:
		return -1
	}
	return int32(v)
}

// Summarize builds the compact summary of r. ok is false for a record
// without any timestamp.
func Summarize(r *record.Record) (s RequestSummary, ok bool) {
	switch {
	case r.Dispatched != 0:
		s.start = r.Dispatched
		s.flags |= flagDispatched
	case r.Intended != 0:
		s.start = r.Intended
	default:
		s.start = r.End
	}
	s.end = r.End
	if s.end == 0 {
		s.end = s.start
	}
	if s.start == 0 {
		return s, false
	}
	s.first, s.last, s.firstOut, s.intended = r.FirstToken, r.LastToken, r.FirstOutputToken, r.Intended
	s.prompt = -1
	if r.PromptTokens > 0 || r.ServerPromptTokens >= 0 || r.ClientPromptTokens >= 0 {
		s.prompt = clampInt32(r.PromptTokens)
	}
	// GuideLLM's output text_tokens come from the server's usage; a count
	// of token-bearing chunks is its fallback for output_tokens, not a
	// token count. goodput's tokenizer count is a real token count.
	s.usageOut = -1
	switch r.OutputSource {
	case record.TokensUsage, record.TokensTokenizer:
		s.usageOut = clampInt32(r.OutputTokens)
	case record.TokensUnknown:
		if r.OutputTokens > 0 || r.ServerOutputTokens >= 0 || r.ClientOutputTokens >= 0 {
			s.usageOut = clampInt32(r.OutputTokens)
		}
	}
	s.inputs = uint16(min(max(r.Inputs, 0), 1<<16-1))
	s.tokIters = clampInt32(len(r.ChunkTimes))
	s.reqIters = clampInt32(r.Iterations)
	if r.HTTPStatus > 0 && r.HTTPStatus < 1<<16 {
		s.http = uint16(r.HTTPStatus)
	}
	return s, true
}

func (s *RequestSummary) dispatched() bool { return s.flags&flagDispatched != 0 }

// Values below follow GuideLLM's GenerativeRequestStats properties; ok is
// false where GuideLLM's property is None.

// outputTokens is GuideLLM's output_tokens: the usage count, else one
// token per token-bearing chunk, else unknown.
func (s *RequestSummary) outputTokens() (int64, bool) {
	if s.usageOut >= 0 {
		return int64(s.usageOut), true
	}
	if s.tokIters > 0 {
		return int64(s.tokIters), true
	}
	return 0, false
}

func (s *RequestSummary) promptTokens() (int64, bool) { return int64(s.prompt), s.prompt >= 0 }

// totalTokens is prompt + output, unknown only when both are.
func (s *RequestSummary) totalTokens() (int64, bool) {
	p, pok := s.promptTokens()
	o, ook := s.outputTokens()
	return p + o, pok || ook
}

// timing is the summary as the metric table reads it, with the
// request's chunk times when the caller has them.
func (s *RequestSummary) timing(times []int64) metric.Request {
	r := metric.Request{End: s.end, FirstToken: s.first, LastToken: s.last, FirstOutputToken: s.firstOut,
		Intended: s.intended, OutputTokens: -1, Chunks: times}
	if s.dispatched() {
		r.Start = s.start
	}
	if out, ok := s.outputTokens(); ok {
		r.OutputTokens = out
	}
	return r
}

// value is the request's value of metric l in nanoseconds (metric.Latency
// gives the rules), without chunk times.
func (s *RequestSummary) value(l *metric.Latency) (float64, bool) {
	r := s.timing(nil)
	return l.Value(r)
}

// ns is value for a metric of whole nanoseconds.
func (s *RequestSummary) ns(l *metric.Latency) (int64, bool) {
	v, ok := s.value(l)
	return int64(v), ok
}

// LatencyNs is request_end − request_start (needs a dispatch time).
func (s *RequestSummary) LatencyNs() (int64, bool) { return s.ns(metric.E2E) }

// TTFTNs is the first token − request_start.
func (s *RequestSummary) TTFTNs() (int64, bool) { return s.ns(metric.TTFT) }

func (s *RequestSummary) tpotNs() (float64, bool) { return s.value(metric.TPOT) }

func (s *RequestSummary) itlNs() (float64, bool) { return s.value(metric.ITL) }

// iterTokensPerIteration is (output_tokens − 1) / (token_iterations − 1).
func (s *RequestSummary) iterTokensPerIteration() (float64, bool) {
	out, ok := s.outputTokens()
	if !ok || out <= 1 || s.tokIters <= 1 {
		return 0, false
	}
	return float64(out-1) / float64(s.tokIters-1), true
}

// outputTokensPerIteration is output_tokens / token_iterations.
func (s *RequestSummary) outputTokensPerIteration() (float64, bool) {
	out, ok := s.outputTokens()
	if !ok || s.tokIters < 1 {
		return 0, false
	}
	return float64(out) / float64(s.tokIters), true
}

// LatenessNs is Dispatched − Intended (goodput extra; open-loop only).
func (s *RequestSummary) LatenessNs() (int64, bool) { return s.ns(metric.Lateness) }

func (s *RequestSummary) schedTTFTNs() (int64, bool) { return s.ns(metric.ScheduledTTFT) }

// promptEventNs is the time GuideLLM books the prompt tokens at: the first
// token, else the request end.
func (s *RequestSummary) promptEventNs() int64 {
	if s.first != 0 {
		return s.first
	}
	return s.end
}

// outputEvents calls fn for GuideLLM's output_tokens_timings of the
// request: one event at the first token worth one token, then
// token_iterations−1 events evenly spaced up to the last token worth
// iter_tokens_per_iteration each; or, without streaming data, one event at
// the last token (else the end) worth all output tokens. Times are Unix
// seconds, computed as numpy.linspace does.
func (s *RequestSummary) outputEvents(fn func(t, w float64)) {
	out, ok := s.outputTokens()
	if s.first == 0 || s.last == 0 || s.tokIters <= 1 {
		t := s.last
		if t == 0 {
			t = s.end
		}
		w := 0.0
		if ok {
			w = float64(out)
		}
		fn(NsToSec(t), w)
		return
	}
	first := 0.0
	if ok && out != 0 {
		first = 1
	}
	start, stop := NsToSec(s.first), NsToSec(s.last)
	fn(start, first)
	tpi, ok := s.iterTokensPerIteration()
	if !ok {
		return
	}
	n := int(s.tokIters)
	step := (stop - start) / float64(n-1)
	for k := 1; k < n-1; k++ {
		fn(float64(k)*step+start, tpi)
	}
	fn(stop, tpi)
}

// outputEventCount is the number of events outputEvents produces.
func (s *RequestSummary) outputEventCount() int {
	if s.first == 0 || s.last == 0 || s.tokIters <= 1 {
		return 1
	}
	if _, ok := s.iterTokensPerIteration(); !ok {
		return 1
	}
	return int(s.tokIters)
}

func NsToSec(ns int64) float64 { return float64(ns) / 1e9 }

// sumBlock is the number of summaries per storage block (blocks avoid
// copying the whole store as it grows).
const sumBlock = 1 << 16

// sumStore is an append-only store of request summaries in fixed-size
// blocks.
type sumStore struct {
	blocks [][]RequestSummary
	n      int
}

func (s *sumStore) append(x RequestSummary) {
	if s.n%sumBlock == 0 {
		s.blocks = append(s.blocks, make([]RequestSummary, 0, sumBlock))
	}
	b := &s.blocks[len(s.blocks)-1]
	*b = append(*b, x)
	s.n++
}

func (s *sumStore) at(i int) *RequestSummary { return &s.blocks[i/sumBlock][i%sumBlock] }

func (s *sumStore) len() int { return s.n }
