package accum

import (
	"strconv"

	"github.com/goodput-dev/goodput/metric"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
)

// stats renders a sampled request as GuideLLM's GenerativeRequestStats.
// Timings are Unix seconds; stages goodput does not have (queue, schedule,
// finalize) are null; resolve_start and resolve_end are the dispatch and
// end times.
func (r *sampled) stats(info BenchmarkInfo, w MeasureWindow) *report.RequestStats {
	s := &r.s
	id := strconv.FormatUint(r.id, 10)
	rs := &report.RequestStats{Type: "generative_request_stats", RequestID: id}
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
	status := map[uint8]string{report.StatusSuccessful: "completed", report.StatusErrored: "errored", report.StatusIncomplete: "cancelled"}[s.status]
	info2 := report.RequestInfo{
		RequestID: id, Status: status, SchedulerNodeID: -1,
		SchedulerStartTime: report.Float(NsToSec(info.Start)),
	}
	if r.errMsg != "" {
		v := r.errMsg
		info2.Error = &v
	}
	if r.session.ID != "" {
		id := r.session.ID
		info2.ConversationID, info2.TurnIndex = &id, report.Int(r.session.Turn)
		info2.HistoryLen = report.IntPtr(int64(r.session.HistoryMessages))
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
	t.RequestIterations = report.Int(s.reqIters)
	t.TokenIterations = report.Int(s.tokIters)
	t.RequestEnd = optSec(s.end)
	t.ResolveEnd = optSec(s.end)
	info2.StartedAt = optSec(s.start)
	info2.CompletedAt = optSec(s.end)
	rs.Info = info2

	if p, ok := s.promptTokens(); ok {
		rs.InputMetrics.TextTokens = report.IntPtr(p)
		rs.InputMetrics.TotalTokens = report.IntPtr(p)
	}
	if m := r.media; m != nil {
		in := &rs.InputMetrics
		for _, f := range [...]struct {
			q   int
			dst **report.Int
		}{{mImages, &in.ImageCount}, {mPixels, &in.ImagePixels}, {mImageBytes, &in.ImageBytes}, {mSamples, &in.AudioSamples},
			{mAudioBytes, &in.AudioBytes}, {mFrames, &in.VideoFrames}, {mVideoBytes, &in.VideoBytes}} {
			if m[f.q] > 0 {
				*f.dst = report.IntPtr(int64(m[f.q]))
			}
		}
		if m[mAudioSeconds] > 0 {
			in.AudioSeconds = report.FloatPtr(m[mAudioSeconds])
		}
		if m[mVideoSeconds] > 0 {
			in.VideoSeconds = report.FloatPtr(m[mVideoSeconds])
		}
	}
	if s.usageOut >= 0 {
		rs.OutputMetrics.TextTokens = report.IntPtr(int64(s.usageOut))
		rs.OutputMetrics.TotalTokens = report.IntPtr(int64(s.usageOut))
	}

	rs.RequestStartTime = report.FloatPtr(NsToSec(s.start))
	rs.RequestEndTime = report.FloatPtr(NsToSec(s.end))
	lat, latOK := s.LatencyNs()
	if latOK {
		rs.RequestLatency = report.FloatPtr(float64(lat) / 1e9)
	}
	if p, ok := s.promptTokens(); ok {
		rs.PromptTokens = report.IntPtr(p)
	}
	out, outOK := s.outputTokens()
	if outOK {
		rs.OutputTokens = report.IntPtr(out)
	}
	tot, totOK := s.totalTokens()
	if totOK {
		rs.TotalTokens = report.IntPtr(tot)
	}
	if v, ok := s.TTFTNs(); ok {
		rs.TimeToFirstTokenMs = report.FloatPtr(float64(v) / 1e6)
	}
	if v, ok := s.tpotNs(); ok {
		rs.TimePerOutputTokenMs = report.FloatPtr(v / 1e6)
	}
	if v, ok := s.itlNs(); ok {
		rs.InterTokenLatencyMs = report.FloatPtr(v / 1e6)
	}
	if latOK && lat != 0 {
		sec := float64(lat) / 1e9
		if totOK {
			rs.TokensPerSecond = report.FloatPtr(float64(tot) / sec)
		}
		if outOK {
			rs.OutputTokensPerSecond = report.FloatPtr(float64(out) / sec)
		}
	}
	if v, ok := s.ns(metric.TTFOT); ok {
		rs.TimeToFirstOutputTokenMs = report.FloatPtr(float64(v) / 1e6)
	}
	if v, ok := s.iterTokensPerIteration(); ok {
		rs.IterTokensPerIteration = report.FloatPtr(v)
	}
	if v, ok := s.outputTokensPerIteration(); ok {
		rs.OutputTokensPerIteration = report.FloatPtr(v)
	}

	x := &report.RequestExtras{
		ID: r.id, ErrorClass: string(r.errClass), HTTPStatus: report.Int(s.http), FinishReason: r.finishReason,
		TokenSource: r.source.String(), ReasoningTokens: report.Int(r.reasoningTokens),
		Sent: optSec(r.sent), Headers: optSec(r.headers), InWindow: w.contains(s),
	}
	if r.cached >= 0 {
		x.CachedTokens = report.IntPtr(int64(r.cached))
	}
	if r.srv >= 0 {
		x.ServerOutputTokens = report.IntPtr(int64(r.srv))
	}
	if r.cli >= 0 {
		x.ClientOutputTokens = report.IntPtr(int64(r.cli))
	}
	if r.errClass == record.ErrNone {
		x.ErrorClass = ""
	}
	rs.Extras = x
	return rs
}
