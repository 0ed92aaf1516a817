package accum

import (
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
	flags    uint8  // flagDispatched | flagOnlineIn
	inputs   uint16 // a pooling request's inputs or documents (record.Inputs, capped), in the padding
	errMsg   uint8  // index into Accumulator.msgNames (0 = none or beyond the table), in the padding
}

const (
	flagDispatched uint8 = 1 << iota // Dispatched != 0: start is the real request start
	flagOnlineIn                     // fed to the online histograms
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

// latencyNs is request_end − request_start (needs a dispatch time).
func (s *RequestSummary) LatencyNs() (int64, bool) {
	if !s.dispatched() || s.end == 0 {
		return 0, false
	}
	return s.end - s.start, true
}

func (s *RequestSummary) TTFTNs() (int64, bool) {
	if !s.dispatched() || s.first == 0 {
		return 0, false
	}
	return s.first - s.start, true
}

func (s *RequestSummary) ttfotNs() (int64, bool) {
	if !s.dispatched() || s.firstOut == 0 {
		return 0, false
	}
	return s.firstOut - s.start, true
}

// tpotNs is ((last token, else end) − start) / output_tokens, the
// per-token time including the first token.
func (s *RequestSummary) tpotNs() (float64, bool) {
	out, ok := s.outputTokens()
	if !s.dispatched() || !ok || out == 0 {
		return 0, false
	}
	stop := s.last
	if stop == 0 {
		stop = s.end
	}
	return float64(stop-s.start) / float64(out), true
}

// itlNs is (last token − first token) / (output_tokens − 1).
func (s *RequestSummary) itlNs() (float64, bool) {
	out, ok := s.outputTokens()
	if s.first == 0 || s.last == 0 || !ok || out <= 1 {
		return 0, false
	}
	return float64(s.last-s.first) / float64(out-1), true
}

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

// ttstNs is the time to the second token-bearing chunk (goodput extra).
func (s *RequestSummary) ttstNs(times []int64) (int64, bool) {
	if !s.dispatched() || len(times) < 2 || times[1] == 0 {
		return 0, false
	}
	return times[1] - s.start, true
}

// latenessNs is Dispatched − Intended (goodput extra; open-loop only).
func (s *RequestSummary) LatenessNs() (int64, bool) {
	if !s.dispatched() || s.intended == 0 {
		return 0, false
	}
	return s.start - s.intended, true
}

// schedTTFTNs is FirstToken − Intended (goodput extra).
func (s *RequestSummary) schedTTFTNs() (int64, bool) {
	if s.intended == 0 || s.first == 0 {
		return 0, false
	}
	return s.first - s.intended, true
}

// schedLatencyNs is End − Intended (goodput extra).
func (s *RequestSummary) schedLatencyNs() (int64, bool) {
	if s.intended == 0 || s.end == 0 {
		return 0, false
	}
	return s.end - s.intended, true
}

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
