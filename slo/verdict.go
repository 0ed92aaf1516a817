package slo

import (
	"github.com/goodput-dev/goodput/metric"
	"github.com/goodput-dev/goodput/report"
)

// RequestThresholds are per-request thresholds; a zero (or negative)
// latency threshold is no threshold.
//
// A request is good (the DistServe and vLLM goodput definition) when it
// succeeded and each value it has is within its threshold. Ms holds a
// threshold in milliseconds per latency metric (metric.Latency.Slot); each
// metric's row says how a request's value is read:
//
//   - ttft: FirstToken − Dispatched; ttst: the second token-bearing
//     chunk − Dispatched.
//   - itl: (LastToken − FirstToken) / (output tokens − 1), GuideLLM's
//     inter-token latency (vLLM's per-request TPOT). A successful request
//     with a first token and at most one output token has no inter-token
//     gap and meets it.
//   - tpot: GuideLLM's time per output token, ((LastToken, else End) −
//     Dispatched) / output tokens, which includes the TTFT.
//   - e2e: End − Dispatched.
//   - stall: the longest gap between consecutive token-bearing chunks
//     (needs the stream measured; a request with a first token and fewer
//     than two chunks meets it).
//
// Output tokens are the report's: the server's usage (or the client's
// tokenizer count), else the number of token-bearing chunks. Errored
// requests are bad. A successful request that lacks a value a threshold
// needs (no first token from a non-streaming server, say) is undetermined.
// An incomplete request (cancelled by the client when its benchmark ended
// or the run was interrupted) is censored, not failed by the server: it is
// bad when what was seen before the cancellation already breaks a
// threshold (a time since dispatch it reached late, or did not reach
// within its threshold: its elapsed time exceeds it; a stall so far over
// its threshold), and undetermined otherwise. Undetermined requests are
// left out of the attainment's numerator and denominator.
//
// The token-deadline thresholds need the stream measured (Request's
// deadline fields):
//
//   - MinFluidity: Etalon's fluidity index, 1 − missed ÷ deadlines, at
//     least this (a request without deadlines is undetermined).
//   - MaxMissed (when HasMaxMissed): missed token deadlines, at most this.
//
// A cancelled request is bad when its missed deadlines so far already
// break MaxMissed.
type RequestThresholds struct {
	Ms                     [metric.N]float64
	MinFluidity, MaxMissed float64
	HasMaxMissed           bool
}

// IsZero reports whether no threshold is set.
func (t RequestThresholds) IsZero() bool {
	for _, ms := range t.Ms {
		if ms > 0 {
			return false
		}
	}
	return !t.Streaming()
}

// Streaming reports whether a threshold needs the stream measured.
func (t RequestThresholds) Streaming() bool {
	for _, l := range metric.All {
		if l.Stream && t.Ms[l.Slot] > 0 {
			return true
		}
	}
	return t.MinFluidity > 0 || t.HasMaxMissed
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
// outcome, its times (the metrics' values are read from them) and, when
// the stream was measured, its token deadlines. report/accum fills it from
// its request summaries.
type Request struct {
	// Status is report.StatusSuccessful, StatusErrored or
	// StatusIncomplete; any other value is undetermined.
	Status uint8
	// Timing holds the request's times, its chunk times included.
	Timing metric.Request
	// Streamed says the stream's quality was measured: the metrics with
	// Stream set have values, and Missed and Deadlines are its token
	// deadlines (Deadlines 0: none judged).
	Streamed          bool
	Missed, Deadlines int64
}

// value is the request's value of metric l in nanoseconds.
func (r *Request) value(l *metric.Latency) (float64, bool) {
	if l.Stream && !r.Streamed {
		return 0, false
	}
	return l.Value(r.Timing)
}

// judgeDeadlines applies the token-deadline thresholds to a request that
// is not already bad: bad, else v, or undetermined where a value is
// missing.
func (t *RequestThresholds) judgeDeadlines(r *Request, v Verdict, censored bool) Verdict {
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
	for _, l := range metric.All {
		ms := t.Ms[l.Slot]
		if ms <= 0 {
			continue
		}
		ns, ok := r.value(l)
		switch {
		case ok:
			if exceeds(ns, ms) {
				return VerdictBad
			}
		case l.Gapless != nil && l.Gapless(r.Timing):
			// No gap to break the threshold.
		default:
			v = VerdictUndetermined
		}
	}
	return t.judgeDeadlines(r, v, false)
}

// judgeCensored classifies a request cancelled by the client: bad only when
// what happened before the cancellation already breaks a threshold.
func (t *RequestThresholds) judgeCensored(r *Request) Verdict {
	elapsed, ok := metric.E2E.Value(r.Timing)
	if !ok {
		return VerdictUndetermined
	}
	for _, l := range metric.All {
		ms := t.Ms[l.Slot]
		if ms <= 0 || l.Censor == metric.CensorNone {
			continue
		}
		ns, ok := r.value(l)
		switch {
		case ok && exceeds(ns, ms):
			return VerdictBad
		case !ok && l.Censor == metric.CensorSinceStart && exceeds(elapsed, ms):
			return VerdictBad
		}
	}
	return t.judgeDeadlines(r, VerdictUndetermined, true)
}
