package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ErrNotV2 is wrapped by the errors of AsV2 (and so of WriteJSON and
// MarshalJSONBytes) for a report of an older GuideLLM layout that cannot
// be written as a report v2 GuideLLM v0.7 loads.
var ErrNotV2 = errors.New("cannot be written as GuideLLM report v2")

// legacySource is what a GuideLLM v0.2–v0.3 benchmark records beyond the
// model, needed to write it as report v2.
type legacySource struct {
	requestSamples json.RawMessage // request_samples (null: every record kept)
	requestType    string          // the first request record's request_type ("" when none)
}

// AsV2 returns the report in the form GuideLLM v0.7.3's report v2 loader
// accepts, which is what WriteJSON writes. Reports of goodput and of
// GuideLLM v2 are returned as they are.
//
// A GuideLLM v0.2–v0.3 report is converted into a new Report (r is not
// changed). What the old layout records is carried over: the run's
// configuration becomes "config" (backend target, model, endpoint,
// timeout and default max tokens; the profile; the data; the tokenizer;
// the seed; the constraints), p50 is the old median (v0.2–v0.3 computed
// the median with the same weighted-CDF lookup at 0.5 that later versions
// write as p50), scheduler_state gets the scheduler's start and end times
// and request counts (created and processed: the requests made), and the
// measurement window is the benchmark's first
// request start to last request end. What the old layout does not record
// is written as GuideLLM writes absent data, never as an estimate: the six
// distributions v0.2–v0.3 lacked (streaming iterations, total tokens,
// TTFOT, prompt tokens/s, tokens per iteration) as summaries of no
// samples (count 0), the text/image/video/audio/tool_call metrics as
// null summaries, the scheduler stages it did not time as -1.0, the
// scheduler's node and process count as -1, and no outputs. Keys of the
// old data and profile configuration that GuideLLM v0.7 has no field for
// (synthetic "samples" and "source", the profile's "initial_burst") are
// left out.
//
// The conversion is refused (an error wrapping ErrNotV2) when the old
// report cannot be made valid honestly: a benchmark with a warmup or
// cooldown (v0.2–v0.3 do not record when the excluded requests ran, which
// report v2's measurement window needs), a backend other than openai_http
// or without a target, data or a profile it cannot express, or
// benchmarks run against different targets or data. Reports of GuideLLM
// v0.4–v0.6 are refused too: their "args" do not map onto report v2's
// "config".
func (r *Report) AsV2() (*Report, error) {
	switch r.Layout {
	case LayoutLegacy03:
		out, err := legacyToV2(r)
		if err != nil {
			return nil, fmt.Errorf("%w (GuideLLM v0.2–v0.3 layout): %w", ErrNotV2, err)
		}
		return out, nil
	case LayoutV1, LayoutV04:
		return nil, fmt.Errorf("%w (GuideLLM v0.4–v0.6 layout): its run configuration is in \"args\", which goodput does not map onto report v2's \"config\"", ErrNotV2)
	}
	return r, nil
}

func legacyToV2(r *Report) (*Report, error) {
	if len(r.Benchmarks) == 0 {
		return nil, errors.New("no benchmarks to take the run's configuration from")
	}
	sc, err := legacyScenario(r.Benchmarks)
	if err != nil {
		return nil, err
	}
	out := &Report{Metadata: &Metadata{Version: 2}, Config: sc, Layout: LayoutV2,
		Benchmarks: make([]*Benchmark, 0, len(r.Benchmarks))}
	for i, b := range r.Benchmarks {
		nb, err := legacyBenchmarkV2(b)
		if err != nil {
			return nil, fmt.Errorf("benchmarks[%d]: %w", i, err)
		}
		out.Benchmarks = append(out.Benchmarks, nb)
	}
	return out, nil
}

// legacyBenchmarkV2 returns a copy of b with what report v2 requires and
// v0.2–v0.3 do not record filled as described on AsV2.
func legacyBenchmarkV2(b *Benchmark) (*Benchmark, error) {
	if !b.Config.Warmup.IsZero() || !b.Config.Cooldown.IsZero() {
		return nil, errors.New("warmup or cooldown set: v0.2–v0.3 do not record when the excluded requests ran, which report v2's measurement window needs")
	}
	if err := b.Config.Strategy.Validate(); err != nil {
		return nil, err
	}
	for _, f := range []struct {
		key string
		raw json.RawMessage
	}{{"args.profile", b.Config.Profile}, {"request_loader", b.Config.Requests}, {"worker", b.Config.Backend}} {
		if JSONKind(f.raw) != "an object" {
			return nil, fmt.Errorf("%s is %s, want an object", f.key, JSONKind(f.raw))
		}
	}
	sm := b.SchedulerMetrics
	switch {
	case b.StartTime == nil || b.EndTime == nil:
		return nil, errors.New("start_time or end_time is missing")
	case sm == nil || sm.StartTime == nil || sm.EndTime == nil:
		return nil, errors.New("run_stats.start_time or run_stats.end_time is missing")
	case sm.RequestsMade == nil:
		return nil, errors.New("run_stats.requests_made is missing")
	case b.Metrics.RequestTotals == nil:
		return nil, errors.New("request_totals is missing")
	}
	nb := *b
	nb.legacy = nil
	made := *sm.RequestsMade
	nb.SchedulerState = &SchedulerState{
		NodeID: -1, NumProcesses: -1, StartTime: *sm.StartTime, EndTime: sm.EndTime,
		EndQueuingConstraints:    map[string]SchedulerUpdateAction{},
		EndProcessingConstraints: map[string]SchedulerUpdateAction{},
		SchedulerConstraints:     map[string]SchedulerUpdateAction{},
		CreatedRequests:          made.Total, ProcessedRequests: made.Total, SuccessfulRequests: made.Successful,
		ErroredRequests: made.Errored, CancelledRequests: made.Incomplete,
	}
	nsm := *sm
	nsm.RequestsMade = &made
	// Without warmup and cooldown every request is measured: the first
	// request start and last request end bound the window.
	nsm.RequestStartTime, nsm.MeasureStartTime = b.StartTime, b.StartTime
	nsm.MeasureEndTime, nsm.RequestEndTime = b.EndTime, b.EndTime
	for _, f := range []**Float{&nsm.QueuedTimeAvg, &nsm.ResolveStartDelayAvg, &nsm.ResolveTargetedStartDelayAvg,
		&nsm.RequestStartDelayAvg, &nsm.RequestTargetedStartDelayAvg, &nsm.RequestTimeAvg, &nsm.ResolveEndDelayAvg,
		&nsm.ResolveTimeAvg, &nsm.FinalizedDelayAvg, &nsm.ProcessedDelayAvg} {
		if *f == nil {
			*f = FloatPtr(-1)
		}
	}
	nb.SchedulerMetrics = &nsm
	nb.WarmupDuration, nb.CooldownDuration = FloatPtr(0), FloatPtr(0)

	m := b.Metrics
	totals := *m.RequestTotals
	m.RequestTotals = &totals
	for _, d := range []**StatusDistributionSummary{&m.RequestsPerSecond, &m.RequestConcurrency, &m.RequestLatency,
		&m.RequestStreamingIterationsCount, &m.PromptTokenCount, &m.OutputTokenCount, &m.TotalTokenCount,
		&m.TimeToFirstTokenMs, &m.TimeToFirstOutputTokenMs, &m.TimePerOutputTokenMs, &m.InterTokenLatencyMs,
		&m.PromptTokensPerSecond, &m.OutputTokensPerSecond, &m.TokensPerSecond, &m.OutputTokensPerIteration,
		&m.IterTokensPerIteration} {
		*d = withP50(*d)
	}
	if m.Text == nil {
		m.Text = &TextMetrics{}
	}
	if m.Image == nil {
		m.Image = &ImageMetrics{}
	}
	if m.Video == nil {
		m.Video = &VideoMetrics{}
	}
	if m.Audio == nil {
		m.Audio = &AudioMetrics{}
	}
	if m.ToolCall == nil {
		m.ToolCall = &ToolCallMetrics{}
	}
	nb.Metrics = m
	return &nb, nil
}

// withP50 returns a copy of d whose every status has p50 (the median,
// when absent); a distribution or status the source lacks is a summary
// of no samples, as GuideLLM writes one.
func withP50(d *StatusDistributionSummary) *StatusDistributionSummary {
	out := &StatusDistributionSummary{}
	if d != nil {
		*out = *d
	}
	for _, s := range []**DistributionSummary{&out.Successful, &out.Errored, &out.Incomplete, &out.Total} {
		c := DistributionSummary{}
		if *s != nil {
			c = **s
		}
		if c.Percentiles.P50 == nil {
			med := c.Median
			c.Percentiles.P50 = &med
		}
		*s = &c
	}
	return out
}

// decodeObject decodes a JSON object kept verbatim from the old report.
func decodeObject(raw json.RawMessage, key string, v any) error {
	if JSONKind(raw) != "an object" {
		return fmt.Errorf("%s is %s, want an object", key, JSONKind(raw))
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%s: %s", key, OneLine(err.Error()))
	}
	return nil
}

// sameJSON reports whether two JSON values are equal once compacted.
func sameJSON(a, b json.RawMessage) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}
