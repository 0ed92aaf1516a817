package slo

import "github.com/goodput-dev/goodput/report"

// RequestThresholds are per-request latency thresholds in milliseconds; a
// zero (or negative) field is no threshold.
//
// A request is good (the DistServe and vLLM goodput definition) when it
// succeeded and each value it has is within its threshold:
//
//   - TTFTMs: FirstToken − Dispatched.
//   - ITLMs: (LastToken − FirstToken) / (output tokens − 1), GuideLLM's
//     inter-token latency (vLLM's per-request TPOT). A successful request
//     with a first token and at most one output token has no inter-token
//     gap and meets it.
//   - TPOTMs: GuideLLM's time per output token, ((LastToken, else End) −
//     Dispatched) / output tokens, which includes the TTFT.
//   - LatencyMs: End − Dispatched.
//
// Output tokens are the report's: the server's usage (or the client's
// tokenizer count), else the number of token-bearing chunks. Errored
// requests are bad. A successful request that lacks a value a threshold
// needs (no first token from a non-streaming server, say) is undetermined.
// An incomplete request (cancelled by the client when its benchmark ended
// or the run was interrupted) is censored, not failed by the server: it is
// bad when what was seen before the cancellation already breaks a
// threshold (its elapsed time exceeds the latency or, without a first
// token, the TTFT threshold; its first token came later than the TTFT
// threshold), and undetermined otherwise. Undetermined requests are left
// out of the attainment's numerator and denominator.
//
// The streaming-quality thresholds need the stream measured (Request's
// stall and deadline fields):
//
//   - StallMs: the longest gap between consecutive token-bearing chunks
//     (a request with fewer than two meets it).
//   - MinFluidity: Etalon's fluidity index, 1 − missed ÷ deadlines, at
//     least this (a request without deadlines is undetermined).
//   - MaxMissed (when HasMaxMissed): missed token deadlines, at most this.
//
// A cancelled request is bad when its stalls or missed deadlines so far
// already break StallMs or MaxMissed.
type RequestThresholds struct {
	TTFTMs, ITLMs, TPOTMs, LatencyMs float64
	StallMs, MinFluidity, MaxMissed  float64
	HasMaxMissed                     bool
}

// IsZero reports whether no threshold is set.
func (t RequestThresholds) IsZero() bool {
	return !(t.TTFTMs > 0 || t.ITLMs > 0 || t.TPOTMs > 0 || t.LatencyMs > 0) && !t.Streaming()
}

// Streaming reports whether a streaming-quality threshold is set.
func (t RequestThresholds) Streaming() bool {
	return t.StallMs > 0 || t.MinFluidity > 0 || t.HasMaxMissed
}

// Verdict is a request judged against RequestThresholds.
type Verdict uint8

// Verdicts.
const (
	VerdictUndetermined Verdict = iota // not known to be good or bad (left out of attainment)
	VerdictGood                        // succeeded within every threshold
	VerdictBad                         // errored, or broke a threshold
)

// String returns good, bad or undetermined.
func (v Verdict) String() string {
	switch v {
	case VerdictGood:
		return "good"
	case VerdictBad:
		return "bad"
	}
	return "undetermined"
}

// Request is what the per-request verdict reads of one request: its
// outcome and the values the thresholds need, each with whether the
// request has it. report/accum fills it from its request summaries.
type Request struct {
	// Status is report.StatusSuccessful, StatusErrored or
	// StatusIncomplete; any other value is undetermined.
	Status          uint8
	TTFTNs          int64
	HasTTFT         bool
	ITLNs           float64
	HasITL          bool
	TPOTNs          float64
	HasTPOT         bool
	LatencyNs       int64
	HasLatency      bool
	OutputTokens    int64
	HasOutputTokens bool
	// FirstToken is set when the request's first token arrived.
	FirstToken bool
	// StallNs is the longest gap between token-bearing chunks (HasStall:
	// two chunks or more); Missed and Deadlines its token deadlines
	// (Deadlines 0: none judged). Set only when the stream is measured.
	StallNs           int64
	HasStall          bool
	Missed, Deadlines int64
}

// judgeStream applies the streaming-quality thresholds to a request that
// is not already bad: bad, else v, or undetermined where a value is
// missing.
func (t *RequestThresholds) judgeStream(r *Request, v Verdict, censored bool) Verdict {
	if t.StallMs > 0 && r.HasStall && exceeds(float64(r.StallNs), t.StallMs) {
		return VerdictBad
	}
	if t.HasMaxMissed && float64(r.Missed) > t.MaxMissed {
		return VerdictBad
	}
	if censored {
		return v
	}
	if t.MinFluidity > 0 {
		if r.Deadlines == 0 {
			v = VerdictUndetermined
		} else if 1-float64(r.Missed)/float64(r.Deadlines) < t.MinFluidity-1e-12 {
			return VerdictBad
		}
	}
	if t.StallMs > 0 && !r.HasStall && !r.FirstToken {
		v = VerdictUndetermined
	}
	if t.HasMaxMissed && r.Deadlines == 0 {
		v = VerdictUndetermined
	}
	return v
}

// exceeds reports whether a duration in ns is over a threshold in ms.
func exceeds(ns float64, thresholdMs float64) bool {
	return thresholdMs > 0 && ns > thresholdMs*1e6
}

// Judge classifies one request (see RequestThresholds for the rules).
func (t *RequestThresholds) Judge(r *Request) Verdict {
	switch r.Status {
	case report.StatusErrored:
		return VerdictBad
	case report.StatusIncomplete:
		return t.judgeCensored(r)
	case report.StatusSuccessful:
	default:
		return VerdictUndetermined
	}
	v := VerdictGood
	if t.TTFTMs > 0 {
		ns, ok := r.TTFTNs, r.HasTTFT
		switch {
		case !ok:
			v = VerdictUndetermined
		case exceeds(float64(ns), t.TTFTMs):
			return VerdictBad
		}
	}
	if t.ITLMs > 0 {
		ns, ok := r.ITLNs, r.HasITL
		out, hasOut := r.OutputTokens, r.HasOutputTokens
		switch {
		case ok:
			if exceeds(ns, t.ITLMs) {
				return VerdictBad
			}
		case r.FirstToken && hasOut && out <= 1:
			// One token: no inter-token gap to break the threshold.
		default:
			v = VerdictUndetermined
		}
	}
	if t.TPOTMs > 0 {
		ns, ok := r.TPOTNs, r.HasTPOT
		switch {
		case !ok:
			v = VerdictUndetermined
		case exceeds(ns, t.TPOTMs):
			return VerdictBad
		}
	}
	if t.LatencyMs > 0 {
		ns, ok := r.LatencyNs, r.HasLatency
		switch {
		case !ok:
			v = VerdictUndetermined
		case exceeds(float64(ns), t.LatencyMs):
			return VerdictBad
		}
	}
	if t.Streaming() {
		return t.judgeStream(r, v, false)
	}
	return v
}

// judgeCensored classifies a request cancelled by the client: bad only when
// what happened before the cancellation already breaks a threshold.
func (t *RequestThresholds) judgeCensored(r *Request) Verdict {
	elapsed, ok := r.LatencyNs, r.HasLatency
	if !ok {
		return VerdictUndetermined
	}
	if exceeds(float64(elapsed), t.LatencyMs) {
		return VerdictBad
	}
	if ttft, ok := r.TTFTNs, r.HasTTFT; ok {
		if exceeds(float64(ttft), t.TTFTMs) {
			return VerdictBad
		}
	} else if exceeds(float64(elapsed), t.TTFTMs) {
		return VerdictBad
	}
	if t.Streaming() {
		return t.judgeStream(r, VerdictUndetermined, true)
	}
	return VerdictUndetermined
}
