package report

import (
	"strconv"

	"github.com/goodput-dev/goodput/record"
)

// stats renders a sampled request as GuideLLM's GenerativeRequestStats.
// Timings are Unix seconds; stages goodput does not have (queue, schedule,
// finalize) are null; resolve_start and resolve_end are the dispatch and
// end times.
func (r *sampled) stats(info BenchmarkInfo, w measureWindow) *RequestStats {
	s := &r.s
	id := strconv.FormatUint(r.id, 10)
	rs := &RequestStats{Type: "generative_request_stats", RequestID: id}
	if r.responseID != "" {
		v := r.responseID
		rs.ResponseID = &v
	}
	if r.output != "" {
		v := r.output
		rs.Output = &v
	}
	if r.reason != "" {
		v := r.reason
		rs.ReasoningOutput = &v
	}
	status := map[uint8]string{stSuccessful: "completed", stErrored: "errored", stIncomplete: "cancelled"}[s.status]
	info2 := RequestInfo{
		RequestID: id, Status: status, SchedulerNodeID: -1,
		SchedulerStartTime: Float(nsToSec(info.Start)),
	}
	if r.errMsg != "" {
		v := r.errMsg
		info2.Error = &v
	}
	t := &info2.Timings
	t.TargetedStart = optSec(s.intended)
	if s.dispatched() {
		t.ResolveStart = optSec(s.start)
		t.RequestStart = optSec(s.start)
	}
	t.FirstRequestIteration = optSec(r.firstChunk)
	t.FirstTokenIteration = optSec(s.first)
	t.FirstOutputTokenIteration = optSec(s.firstOut)
	t.LastTokenIteration = optSec(s.last)
	t.RequestIterations = Int(s.reqIters)
	t.TokenIterations = Int(s.tokIters)
	t.RequestEnd = optSec(s.end)
	t.ResolveEnd = optSec(s.end)
	info2.StartedAt = optSec(s.start)
	info2.CompletedAt = optSec(s.end)
	rs.Info = info2

	if p, ok := s.promptTokens(); ok {
		rs.InputMetrics.TextTokens = IntPtr(p)
		rs.InputMetrics.TotalTokens = IntPtr(p)
	}
	if s.usageOut >= 0 {
		rs.OutputMetrics.TextTokens = IntPtr(int64(s.usageOut))
		rs.OutputMetrics.TotalTokens = IntPtr(int64(s.usageOut))
	}

	rs.RequestStartTime = FloatPtr(nsToSec(s.start))
	rs.RequestEndTime = FloatPtr(nsToSec(s.end))
	lat, latOK := s.latencyNs()
	if latOK {
		rs.RequestLatency = FloatPtr(float64(lat) / 1e9)
	}
	if p, ok := s.promptTokens(); ok {
		rs.PromptTokens = IntPtr(p)
	}
	out, outOK := s.outputTokens()
	if outOK {
		rs.OutputTokens = IntPtr(out)
	}
	tot, totOK := s.totalTokens()
	if totOK {
		rs.TotalTokens = IntPtr(tot)
	}
	if v, ok := s.ttftNs(); ok {
		rs.TimeToFirstTokenMs = FloatPtr(float64(v) / 1e6)
	}
	if v, ok := s.tpotNs(); ok {
		rs.TimePerOutputTokenMs = FloatPtr(v / 1e6)
	}
	if v, ok := s.itlNs(); ok {
		rs.InterTokenLatencyMs = FloatPtr(v / 1e6)
	}
	if latOK && lat != 0 {
		sec := float64(lat) / 1e9
		if totOK {
			rs.TokensPerSecond = FloatPtr(float64(tot) / sec)
		}
		if outOK {
			rs.OutputTokensPerSecond = FloatPtr(float64(out) / sec)
		}
	}
	if v, ok := s.ttfotNs(); ok {
		rs.TimeToFirstOutputTokenMs = FloatPtr(float64(v) / 1e6)
	}
	if v, ok := s.iterTokensPerIteration(); ok {
		rs.IterTokensPerIteration = FloatPtr(v)
	}
	if v, ok := s.outputTokensPerIteration(); ok {
		rs.OutputTokensPerIteration = FloatPtr(v)
	}

	x := &RequestExtras{
		ID: r.id, ErrorClass: string(r.errClass), HTTPStatus: Int(s.http), FinishReason: r.finishReason,
		TokenSource: r.source.String(), ReasoningTokens: Int(r.reasoningTokens),
		Sent: optSec(r.sent), Headers: optSec(r.headers), InWindow: w.contains(s),
	}
	if r.cached >= 0 {
		x.CachedTokens = IntPtr(int64(r.cached))
	}
	if r.srv >= 0 {
		x.ServerOutputTokens = IntPtr(int64(r.srv))
	}
	if r.cli >= 0 {
		x.ClientOutputTokens = IntPtr(int64(r.cli))
	}
	if r.errClass == record.ErrNone {
		x.ErrorClass = ""
	}
	rs.Goodput = x
	return rs
}
