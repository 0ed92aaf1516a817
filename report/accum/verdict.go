package accum

import (
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
)

// SLO judges a benchmark against a service-level objective. The
// accumulator classifies every request against the SLO's per-request
// thresholds as it is added (Config.SLO), counts the good ones over the
// measurement window in Finish, and asks Judge for the benchmark's
// verdict, which Finish stores in Extras.SLO. The slo package's Spec
// implements it.
type SLO interface {
	// Thresholds are the per-request latency thresholds a request must
	// meet to count as good.
	Thresholds() RequestThresholds
	// Judge judges a finished benchmark (its distributions are final)
	// given the good-request counts of its measurement window.
	Judge(b *report.Benchmark, c report.GoodputCounts) *report.SLOResult
}

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
type RequestThresholds struct {
	TTFTMs, ITLMs, TPOTMs, LatencyMs float64
}

// IsZero reports whether no threshold is set.
func (t RequestThresholds) IsZero() bool {
	return !(t.TTFTMs > 0 || t.ITLMs > 0 || t.TPOTMs > 0 || t.LatencyMs > 0)
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

// Judge classifies one request record (see RequestThresholds for the
// rules). Invalid records (no status or no timestamp) are undetermined.
func (t RequestThresholds) Judge(r *record.Record) Verdict {
	s, ok := Summarize(r)
	if !ok {
		return VerdictUndetermined
	}
	switch r.Status {
	case record.StatusSuccessful:
		s.status = report.StatusSuccessful
	case record.StatusErrored:
		s.status = report.StatusErrored
	case record.StatusIncomplete:
		s.status = report.StatusIncomplete
	default:
		return VerdictUndetermined
	}
	return t.judge(&s)
}

// exceeds reports whether a duration in ns is over a threshold in ms.
func exceeds(ns float64, thresholdMs float64) bool {
	return thresholdMs > 0 && ns > thresholdMs*1e6
}

// judge classifies a request summary.
func (t *RequestThresholds) judge(s *RequestSummary) Verdict {
	switch s.status {
	case report.StatusErrored:
		return VerdictBad
	case report.StatusIncomplete:
		return t.judgeCensored(s)
	case report.StatusSuccessful:
	default:
		return VerdictUndetermined
	}
	v := VerdictGood
	if t.TTFTMs > 0 {
		ns, ok := s.TTFTNs()
		switch {
		case !ok:
			v = VerdictUndetermined
		case exceeds(float64(ns), t.TTFTMs):
			return VerdictBad
		}
	}
	if t.ITLMs > 0 {
		ns, ok := s.itlNs()
		out, hasOut := s.outputTokens()
		switch {
		case ok:
			if exceeds(ns, t.ITLMs) {
				return VerdictBad
			}
		case s.first != 0 && hasOut && out <= 1:
			// One token: no inter-token gap to break the threshold.
		default:
			v = VerdictUndetermined
		}
	}
	if t.TPOTMs > 0 {
		ns, ok := s.tpotNs()
		switch {
		case !ok:
			v = VerdictUndetermined
		case exceeds(ns, t.TPOTMs):
			return VerdictBad
		}
	}
	if t.LatencyMs > 0 {
		ns, ok := s.LatencyNs()
		switch {
		case !ok:
			v = VerdictUndetermined
		case exceeds(float64(ns), t.LatencyMs):
			return VerdictBad
		}
	}
	return v
}

// judgeCensored classifies a request cancelled by the client: bad only when
// what happened before the cancellation already breaks a threshold.
func (t *RequestThresholds) judgeCensored(s *RequestSummary) Verdict {
	elapsed, ok := s.LatencyNs()
	if !ok {
		return VerdictUndetermined
	}
	if exceeds(float64(elapsed), t.LatencyMs) {
		return VerdictBad
	}
	if ttft, ok := s.TTFTNs(); ok {
		if exceeds(float64(ttft), t.TTFTMs) {
			return VerdictBad
		}
	} else if exceeds(float64(elapsed), t.TTFTMs) {
		return VerdictBad
	}
	return VerdictUndetermined
}

// Per-request verdict bits in reqSum.flags.
const (
	flagGood  uint8 = 1 << 6
	flagBad   uint8 = 1 << 7
	verdictMk       = flagGood | flagBad
)

// verdictFlags stores a verdict in summary flags.
func verdictFlags(v Verdict) uint8 {
	switch v {
	case VerdictGood:
		return flagGood
	case VerdictBad:
		return flagBad
	}
	return 0
}

// countGood counts one in-window request.
func countGood(c *report.GoodputCounts, s *RequestSummary) {
	c.InWindow++
	if s.flags&verdictMk != 0 {
		c.Judged++
	}
	out, ok := s.outputTokens()
	if !ok {
		out = 0
	}
	if s.flags&flagGood != 0 {
		c.Good++
		c.GoodOutputTokens += out
	}
	if s.status == report.StatusSuccessful {
		c.SuccessfulOutputTokens += out
	}
}

// mergeGood adds the counts of another set of requests.
func mergeGood(c *report.GoodputCounts, o report.GoodputCounts) {
	c.InWindow += o.InWindow
	c.Judged += o.Judged
	c.Good += o.Good
	c.GoodOutputTokens += o.GoodOutputTokens
	c.SuccessfulOutputTokens += o.SuccessfulOutputTokens
}
