package accum

import (
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/slo"
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
	Thresholds() slo.RequestThresholds
	// Judge judges a finished benchmark (its distributions are final)
	// given the good-request counts of its measurement window.
	Judge(b *report.Benchmark, c report.GoodputCounts) *report.SLOResult
}

// slo.Spec is the SLO goodput runs with.
var _ SLO = slo.Spec{}

// judge classifies a request summary, its chunk times and its measured
// stream (nil: not measured) against the SLO's per-request thresholds.
func judge(t *slo.RequestThresholds, s *RequestSummary, times []int64, q *Stream) slo.Verdict {
	r := slo.Request{Status: s.status, Timing: s.timing(times)}
	if q != nil {
		r.Streamed, r.Missed, r.Deadlines = true, q.Missed, q.Deadlines
	}
	return t.Judge(&r)
}

// Per-request verdict bits in reqSum.flags.
const (
	flagGood  uint8 = 1 << 6
	flagBad   uint8 = 1 << 7
	verdictMk       = flagGood | flagBad
)

// verdictFlags stores a verdict in summary flags.
func verdictFlags(v slo.Verdict) uint8 {
	switch v {
	case slo.VerdictGood:
		return flagGood
	case slo.VerdictBad:
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
